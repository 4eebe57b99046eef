/**
 * The probing scheduler: every agent at most once per interval (start to start; the registry's
 * probing rule allows one per agent per 60 s), at most `workers` probes at once, at most `perHost`
 * on one host (fairness: a host with many agents cannot take every worker), the soonest due first.
 * An agent that could not be reached is retried with exponential backoff (interval, 2x, 4x, ...
 * capped). A probe's run is recorded as started before it begins, so a process killed mid-probe
 * leaves it `running`, and the next start declares it interrupted and probes the agent again.
 */
import type { RunResult } from '../core/engine/result.js';
import type { ProbeSettings, Prober } from './probe.js';
import { problemOf, unreached } from './run-summary.js';
import type { AgentRow, RegistryStore } from './types.js';

export interface SchedulerOptions {
  store: RegistryStore;
  probe: Prober;
  settings: ProbeSettings;
  /** Probes at once (global). */
  workers: number;
  /** Probes at once on one host. */
  perHost: number;
  /** Minimum time between two probes of one agent, start to start. */
  intervalMs: number;
  /** Longest backoff after consecutive unreachable probes. */
  maxBackoffMs?: number;
  /** Who runs the probes (recorded on each run). */
  runner: string;
  /** Poll period for due agents when nothing else wakes the scheduler. */
  tickMs?: number;
  now?: () => number;
  /** Each finished probe (the live console line, tests). */
  onRun?: (agent: AgentRow, result: RunResult) => void;
  /** A store or probe failure the scheduler survived. */
  onError?: (e: unknown) => void;
}

export const DEFAULT_INTERVAL_MS = 60_000;
export const DEFAULT_MAX_BACKOFF_MS = 3_600_000;

/** When an agent is next due after a probe that started at `startedAt`. */
export function nextDue(
  startedAt: number,
  result: RunResult,
  failuresBefore: number,
  intervalMs: number,
  maxBackoffMs: number,
): { at: number; failures: number } {
  if (!unreached(result)) return { at: startedAt + intervalMs, failures: 0 };
  const failures = failuresBefore + 1;
  return { at: startedAt + Math.min(maxBackoffMs, intervalMs * 2 ** Math.min(failures - 1, 20)), failures };
}

/** The agent's own interval (its owner's `check_interval_hours`), else the service's. */
export function intervalOf(agent: AgentRow, serviceIntervalMs: number): number {
  return agent.checkIntervalHours ? agent.checkIntervalHours * 3_600_000 : serviceIntervalMs;
}

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return url;
  }
}

export class Scheduler {
  private readonly running = new Map<number, { host: string; done: Promise<void> }>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private again = false;
  private stopped = true;
  private readonly now: () => number;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly o: SchedulerOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Probes in flight. */
  get active(): number {
    return this.running.size;
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Look for due agents now (a registration, a finished probe). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    void this.tick();
  }

  /** Stop starting probes; with `wait`, resolve when those in flight have finished. */
  async stop(o: { wait: boolean } = { wait: true }): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (o.wait) await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** Resolves when no probe is running and none is due (tests). */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.wake();
    });
  }

  private async tick(): Promise<void> {
    this.ticking = true;
    try {
      do {
        this.again = false;
        await this.launchDue();
      } while (this.again && !this.stopped);
    } catch (e) {
      this.o.onError?.(e);
    } finally {
      this.ticking = false;
    }
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), this.o.tickMs ?? 500);
  }

  private async launchDue(): Promise<void> {
    const free = this.o.workers - this.running.size;
    if (free <= 0) return;
    const perHost = new Map<string, number>();
    for (const r of this.running.values()) perHost.set(r.host, (perHost.get(r.host) ?? 0) + 1);
    // More than the free slots: some may wait on their host's limit while others' hosts are free.
    const due = await this.o.store.dueAgents(this.now(), Math.max(free * 4, 64));
    let launched = 0;
    for (const agent of due) {
      if (launched >= free || this.stopped) break;
      const host = hostOf(agent.url);
      if ((perHost.get(host) ?? 0) >= this.o.perHost) continue;
      const startedAt = this.now();
      const runId = await this.o.store.startRun(agent.id, startedAt, this.o.runner, 'schedule');
      if (runId === undefined) continue;
      perHost.set(host, (perHost.get(host) ?? 0) + 1);
      launched++;
      const done = this.runProbe(agent, runId, startedAt).finally(() => {
        this.running.delete(runId);
        this.wake();
      });
      this.running.set(runId, { host, done });
    }
    if (launched === 0 && this.running.size === 0 && due.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  private async runProbe(agent: AgentRow, runId: number, startedAt: number): Promise<void> {
    const result = await this.o.probe(agent, this.o.settings);
    const next = nextDue(startedAt, result, agent.failures, intervalOf(agent, this.o.intervalMs), this.o.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS);
    try {
      await this.o.store.finishRun(runId, { result, now: this.now(), nextDueAt: next.at, failures: next.failures, problem: problemOf(result) });
    } catch (e) {
      this.o.onError?.(e);
      return;
    }
    this.o.onRun?.(agent, result);
  }
}
