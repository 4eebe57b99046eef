/** What every route module of the registry API is given: the store, the clock and the service's hooks. */
import type { RunResult } from '../../core/engine/result.js';
import type { StoryboardOps } from '../storyboard-ops.js';
import type { AgentRow, RefreshLimits, RegistryStore } from '../types.js';
import type { Badge, BadgePolicy } from '../badges.js';
import type { BadgeKeySet } from '../badge-tokens/index.js';

export interface ServiceContext {
  store: RegistryStore;
  now: () => number;
  /** Called after a registration (the scheduler looks for due agents at once). */
  onRegistered?: (agent: AgentRow) => void;
  /** The service's probing interval (an agent without its own `check_interval_hours`). */
  intervalMs: number;
  refreshLimits: RefreshLimits;
  /** The service's public base URL (badge links, the token issuer): `--public-url`, else where it listens. */
  publicUrl: () => string;
  badgePolicy: BadgePolicy;
  /** The badge-token key set (absent: the service signs none). */
  badgeKeys?: BadgeKeySet;
  /** The signed token of a badge the agent holds (absent: the service signs none). */
  badgeToken?: (agent: AgentRow, badge: Badge) => Promise<string>;
  /** Probes the agent now, recording the run like a scheduled one (`triggeredBy`); undefined when a probe of it is already running. */
  probeNow?: (agent: AgentRow, triggeredBy: string) => Promise<{ runId: number; result: RunResult } | undefined>;
  /** The storyboard operations (routes/storyboards.ts); absent: a service that does not probe itself (503). */
  storyboards?: StoryboardOps;
}

/** Digest 6.3: one manual refresh per agent per 60 s, 30 per caller per hour. */
export const DEFAULT_REFRESH_LIMITS: RefreshLimits = { agentWindowMs: 60_000, perCaller: 30, callerWindowMs: 3_600_000 };
