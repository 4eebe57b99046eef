/**
 * The registry's REST API (JSON; errors are `{error}` as digest 6.3 says): the route modules under
 * routes/ composed into one route table (http/router.ts). Reads are public (CORS open); writes and
 * owner-only reads need a key (http/callers.ts). Each route module lists its routes at its top.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MemberKey } from './http/callers.js';
import { createRouter, type Route } from './http/router.js';
import { complianceRoutes } from './routes/compliance.js';
import { DEFAULT_REFRESH_LIMITS, type ServiceContext } from './routes/context.js';
import { fleetRoutes } from './routes/fleet.js';
import { ownerSettingsRoutes } from './routes/owner-settings.js';
import { refreshRoutes } from './routes/refresh.js';
import { diagnosticsRoutes } from './routes/diagnostics.js';
import { openApiRoutes } from './routes/openapi.js';
import { storyboardStatusRoutes } from './routes/storyboard-status.js';
import { badgeRoutes } from './routes/badges.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { badgeKeyRoutes } from './routes/badge-keys.js';
import { organizationRoutes } from './routes/organizations.js';
import type { BadgeKeySet } from './badge-tokens/index.js';
import { badgeSigner } from './badge-signing.js';
import { type Badge, type BadgePolicy, DEFAULT_BADGE_GRACE_MS } from './badges.js';
import { storyboardRoutes } from './routes/storyboards.js';
import type { StoryboardOps } from './storyboard-ops.js';
import type { AgentRow, RefreshLimits, RegistryStore } from './types.js';
import type { RunResult } from '../core/engine/result.js';
import { DEFAULT_INTERVAL_MS } from './scheduler.js';

export { MAX_BODY_BYTES } from './http/respond.js';

export interface ApiOptions {
  store: RegistryStore;
  /** Operator keys: may register and remove any agent; none and no member keys: writes are refused. */
  apiKeys: readonly string[];
  /** Member keys: a member registers and owns their own agents. */
  memberKeys?: readonly MemberKey[];
  now?: () => number;
  /** Called after a registration (the scheduler looks for due agents at once). */
  onRegistered?: (agent: AgentRow) => void;
  intervalMs?: number;
  refreshLimits?: RefreshLimits;
  probeNow?: (agent: AgentRow, triggeredBy: string) => Promise<{ runId: number; result: RunResult } | undefined>;
  /** The public base URL (default: where the service listens, known after it starts). */
  publicUrl?: () => string;
  badgePolicy?: BadgePolicy;
  badgeToken?: (agent: AgentRow, badge: Badge) => Promise<string>;
  /** The badge-token key set: tokens on every listed badge, the JWKS, rotation. */
  badgeKeys?: BadgeKeySet;
  storyboards?: StoryboardOps;
}

/** Every route the service answers, in one table; each has its OpenAPI description under openapi/ (openapi.test.ts checks both ways). */
export function registryRoutes(s: ServiceContext): Route[] {
  const routes: Route[] = [
    ...fleetRoutes(s),
    ...organizationRoutes(s),
    ...complianceRoutes(s),
    ...ownerSettingsRoutes(s),
    ...refreshRoutes(s),
    ...diagnosticsRoutes(s),
    ...storyboardStatusRoutes(s),
    ...badgeRoutes(s),
    ...badgeKeyRoutes(s),
    ...dashboardRoutes(s),
    ...storyboardRoutes(s),
    ...openApiRoutes(() => routes),
  ];
  return routes;
}

export function createRegistryHandler(o: ApiOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const ctx: ServiceContext = {
    store: o.store,
    now: o.now ?? Date.now,
    intervalMs: o.intervalMs ?? DEFAULT_INTERVAL_MS,
    refreshLimits: o.refreshLimits ?? DEFAULT_REFRESH_LIMITS,
    ...(o.onRegistered ? { onRegistered: o.onRegistered } : {}),
    ...(o.probeNow ? { probeNow: o.probeNow } : {}),
    publicUrl: o.publicUrl ?? (() => 'http://registry.invalid'),
    badgePolicy: o.badgePolicy ?? { graceMs: DEFAULT_BADGE_GRACE_MS },
    ...(o.badgeKeys ? { badgeKeys: o.badgeKeys } : {}),
    ...(o.storyboards ? { storyboards: o.storyboards } : {}),
  };
  const token = o.badgeToken ?? (o.badgeKeys ? badgeSigner(o.badgeKeys, ctx.publicUrl) : undefined);
  if (token) ctx.badgeToken = token;
  return createRouter(registryRoutes(ctx), { operators: o.apiKeys, members: o.memberKeys ?? [] });
}
