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
import { type ProbeSettings, type Prober, probeAgent } from './probe.js';
import { DEFAULT_INTERVAL_MS, Scheduler } from './scheduler.js';
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
  /** After each registration (besides waking the in-process scheduler): the Postgres producer's wake. */
  onRegistered?: () => void;
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
  const recovered = await o.store.recoverInterrupted(Date.now());
  const scheduler =
    o.workers > 0
      ? new Scheduler({
          store: o.store,
          probe: o.probe ?? probeAgent,
          settings: o.settings,
          workers: o.workers,
          perHost: o.perHost,
          intervalMs: o.intervalMs ?? DEFAULT_INTERVAL_MS,
          runner,
          onRun: o.onRun,
          onError: o.onError,
        })
      : undefined;
  const server: Server = createServer(
    createRegistryHandler({
      store: o.store,
      apiKeys: o.apiKeys,
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
    },
  };
}
