/**
 * The registry service: the REST API (api.ts) on loopback or any address, and the scheduler
 * (scheduler.ts) probing the registered agents, over one store. At start, runs a previous process
 * left `running` (killed mid-probe) are declared interrupted and their agents probed again.
 */
import { createServer, type Server } from 'node:http';
import { baseUrlOf, listen } from '../core/net/listen.js';
import type { RunResult } from '../core/engine/result.js';
import { createRegistryHandler } from './api.js';
import type { MemberKey } from './http/callers.js';
import { BadgeKeySet } from './badge-tokens/index.js';
import { BADGE_TOKEN_LIFETIME_S } from './badge-signing.js';
import { type ProbeSettings, type Prober, probeAgent } from './probe.js';
import { DEFAULT_INTERVAL_MS, DEFAULT_MAX_BACKOFF_MS, intervalOf, nextDue, Scheduler } from './scheduler.js';
import { problemOf } from './run-summary.js';
import { type NamedReference, ReferenceAgents, type StartReferenceSeller } from './reference-agent.js';
import { StoryboardOps } from './storyboard-ops.js';
import type { RefreshLimits } from './types.js';
import type { AgentRow, RegistryStore } from './types.js';

export interface RegistryServiceOptions {
  store: RegistryStore;
  host?: string;
  port?: number;
  apiKeys: readonly string[];
  memberKeys?: readonly MemberKey[];
  /** Probes at once. 0: serve only (another process probes: `registry worker`). */
  workers: number;
  perHost: number;
  intervalMs?: number;
  settings: ProbeSettings;
  probe?: Prober;
  runner?: string;
  onRun?: (agent: AgentRow, result: RunResult) => void;
  onError?: (e: unknown) => void;
  /** The public base URL of the service (badge links, token issuer); default where it listens. */
  publicUrl?: string;
  /** The badge-token key file (badge-tokens/; created owner-only on first start); absent: no tokens, no JWKS (503). */
  badgeKeysPath?: string;
  /** How long a badge stays degraded after the agent stops passing (default 72 h). */
  badgeGraceMs?: number;
  /** Manual refresh limits (default: digest 6.3's one per agent per 60 s, 30 per caller per hour). */
  refreshLimits?: RefreshLimits;
  /** After each registration (besides waking the in-process scheduler): the Postgres producer's wake. */
  onRegistered?: () => void;
  /** The reference agent of storyboard comparisons (`--reference-agent`); default the built-in mock seller, started when first needed. */
  referenceAgent?: NamedReference;
  /** Starts the built-in reference seller when no reference agent is named (the command line's builtin-mocks.ts). */
  startReferenceSeller?: StartReferenceSeller;
}

export interface RunningRegistryService {
  url: string;
  scheduler: Scheduler | undefined;
  /** Runs found interrupted at start. */
  recovered: number;
  close(): Promise<void>;
}

export async function startRegistryService(o: RegistryServiceOptions): Promise<RunningRegistryService> {
  const runner = o.runner ?? `pid:${process.pid}`;
  const intervalMs = o.intervalMs ?? DEFAULT_INTERVAL_MS;
  const probe = o.probe ?? probeAgent;
  const recovered = await o.store.recoverInterrupted(Date.now());
  const scheduler =
    o.workers > 0
      ? new Scheduler({
          store: o.store,
          probe,
          settings: o.settings,
          workers: o.workers,
          perHost: o.perHost,
          intervalMs,
          runner,
          onRun: o.onRun,
          onError: o.onError,
        })
      : undefined;
  // A manual refresh: probed in this process, recorded like a scheduled run (its next due time follows from it).
  const probeNow = async (agent: AgentRow, triggeredBy: string): Promise<{ runId: number; result: RunResult } | undefined> => {
    const startedAt = Date.now();
    const runId = await o.store.startRun(agent.id, startedAt, runner, triggeredBy);
    if (runId === undefined) return undefined;
    const result = await probe(agent, o.settings);
    const next = nextDue(startedAt, result, agent.failures, intervalOf(agent, intervalMs), DEFAULT_MAX_BACKOFF_MS);
    await o.store.finishRun(runId, { result, now: Date.now(), nextDueAt: next.at, failures: next.failures, problem: problemOf(result) });
    o.onRun?.(agent, result);
    return { runId, result };
  };
  let publicUrl = o.publicUrl?.replace(/\/+$/, '') ?? '';
  const badgeKeys = o.badgeKeysPath ? await BadgeKeySet.open(o.badgeKeysPath, { maxTokenLifetimeSeconds: BADGE_TOKEN_LIFETIME_S }) : undefined;
  const reference = new ReferenceAgents({
    ...(o.referenceAgent ? { named: o.referenceAgent } : {}),
    ...(o.startReferenceSeller ? { startBuiltin: o.startReferenceSeller } : {}),
    ...(o.settings.target ? { target: o.settings.target } : {}),
  });
  const storyboards = new StoryboardOps({ store: o.store, settings: o.settings, runner, reference });
  const server: Server = createServer(
    createRegistryHandler({
      store: o.store,
      apiKeys: o.apiKeys,
      intervalMs,
      probeNow,
      publicUrl: () => publicUrl,
      ...(badgeKeys ? { badgeKeys } : {}),
      ...(o.badgeGraceMs !== undefined ? { badgePolicy: { graceMs: o.badgeGraceMs } } : {}),
      storyboards,
      ...(o.refreshLimits ? { refreshLimits: o.refreshLimits } : {}),
      ...(o.memberKeys ? { memberKeys: o.memberKeys } : {}),
      onRegistered: () => {
        scheduler?.wake();
        o.onRegistered?.();
      },
    }),
  );
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  const addr = await listen(server, o.port ?? 0, o.host ?? '127.0.0.1');
  publicUrl ||= baseUrlOf(addr);
  scheduler?.start();
  return {
    url: baseUrlOf(addr),
    scheduler,
    recovered,
    async close() {
      // Probes in flight are not waited for: their runs are declared interrupted and redone next time.
      await scheduler?.stop({ wait: false });
      await o.store.recoverInterrupted(Date.now(), runner);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await reference.close();
    },
  };
}
