/**
 * Scale-out on PostgreSQL: probes are jobs of a pg-boss queue (a maintained Postgres job queue
 * that runs on Node 20; see docs/compliance-service.md for why pg-boss). The producer (inside `registry serve
 * --postgres`) sends one job per due agent, at most `perHost` in flight per host and `maxInFlight`
 * in all; any number of workers (`registry worker --postgres`, on any machine) take them. A job
 * whose worker died is retried once it expires (pg-boss `expireInSeconds`, set above a probe's
 * budget so a live probe never expires); the retry declares the dead attempt's run interrupted.
 * The store's one-running-run-per-agent index makes a double probe impossible whatever the queue does.
 */
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { RunResult } from '../core/engine/result.js';
import type { ProbeSettings, Prober } from './probe.js';
import { probeAgent } from './probe.js';
import { problemOf } from './run-summary.js';
import { DEFAULT_MAX_BACKOFF_MS, hostOf, intervalOf, nextDue } from './scheduler.js';
import type { PostgresRegistryStore } from './postgres-store.js';
import type { AgentRow } from './types.js';

export const PROBE_QUEUE = 'proto-comply-probe';
/** NOTIFY channels: jobs were sent (workers fetch now), a probe finished (the producer sends the next). */
export const JOBS_SENT = 'proto_comply_probe_jobs';
export const PROBE_DONE = 'proto_comply_probe_done';
/**
 * Polling periods, now only a fallback: a notification wakes the worker or the producer at once, the
 * poll catches what a notification cannot (a retried job coming due, a lost connection, an agent
 * coming due by the clock).
 */
const WORKER_POLL_S = 2;
const PRODUCER_TICK_MS = 2_000;
/** Seconds a job may run beyond the probe's budget (certify's grace, the result's write) before it counts as dead. */
const EXPIRE_MARGIN_S = 45;

export interface ProbeQueueOptions {
  url: string;
  budgetS: number;
  /** Override of the expiry (tests); default budget + margin. */
  expireInSeconds?: number;
}

export class ProbeQueue {
  /** Run by stop(): the LISTEN connections of this process's producer and workers. */
  private readonly closers: Array<() => Promise<void>> = [];

  private constructor(
    readonly boss: InstanceType<typeof PgBoss>,
    readonly expireInSeconds: number,
    readonly url: string,
  ) {}

  /** LISTEN on `channel` until the queue stops. */
  listen(channel: string, onNotify: () => void): void {
    this.closers.push(listen(this.url, channel, onNotify).stop);
  }

  static async open(o: ProbeQueueOptions): Promise<ProbeQueue> {
    const expireInSeconds = o.expireInSeconds ?? o.budgetS + EXPIRE_MARGIN_S;
    const boss = new PgBoss({ connectionString: o.url, max: 4, maintenanceIntervalSeconds: Math.min(30, Math.max(1, Math.floor(expireInSeconds / 4))) });
    boss.on('error', () => {});
    await boss.start();
    await boss.createQueue(PROBE_QUEUE, { name: PROBE_QUEUE, policy: 'standard', retryLimit: 5, retryDelay: 1, expireInSeconds });
    return new ProbeQueue(boss, expireInSeconds, o.url);
  }

  async send(agentId: number): Promise<string | null> {
    return this.boss.send(PROBE_QUEUE, { agentId }, { expireInSeconds: this.expireInSeconds, retryLimit: 5, retryDelay: 1 });
  }

  async stop(): Promise<void> {
    await Promise.all(this.closers.splice(0).map((c) => c()));
    await this.boss.stop({ graceful: false, wait: true, timeout: 5_000 });
  }
}

/**
 * LISTENs on `channel` over a connection of its own and calls `onNotify` for each notification;
 * reconnects after a second when the connection drops. `stop` closes it.
 */
export function listen(url: string, channel: string, onNotify: () => void): { stop(): Promise<void> } {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: url });
    client = c;
    const again = () => {
      if (client !== c || stopped) return;
      client = undefined;
      void c.end().catch(() => undefined);
      retry = setTimeout(() => void connect(), 1_000);
    };
    c.on('error', again);
    c.on('end', again);
    c.on('notification', () => onNotify());
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      // Whatever was sent while we were not listening.
      onNotify();
    } catch {
      again();
    }
  };
  void connect();
  return {
    stop: async () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}

export interface ProducerOptions {
  store: PostgresRegistryStore;
  queue: ProbeQueue;
  perHost: number;
  maxInFlight: number;
  tickMs?: number;
  onError?: (e: unknown) => void;
}

/** Sends a job for each due agent, within the per-host and global in-flight limits; runs until stopped. */
export function startProducer(o: ProducerOptions): { stop(): void; wake(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let busy = false;
  let again = false;
  const tick = async (): Promise<void> => {
    if (stopped || busy) return;
    busy = true;
    try {
      const now = Date.now();
      // A mark whose job never came (a producer died between mark and send) or gave up is cleared.
      await o.store.clearStaleQueued(now, (o.queue.expireInSeconds + 5) * 6 * 1000);
      const inFlight = await o.store.inFlightByHost();
      let total = [...inFlight.values()].reduce((a, b) => a + b, 0);
      let sent = 0;
      if (total < o.maxInFlight) {
        for (const agent of await o.store.dueAgents(now, Math.max(64, (o.maxInFlight - total) * 4))) {
          if (total >= o.maxInFlight) break;
          const host = hostOf(agent.url);
          if ((inFlight.get(host) ?? 0) >= o.perHost) continue;
          if (!(await o.store.markQueued(agent.id, now))) continue;
          const jobId = await o.queue.send(agent.id).catch((e: unknown) => {
            o.onError?.(e);
            return null;
          });
          await o.store.setQueuedJob(agent.id, jobId);
          if (!jobId) continue;
          inFlight.set(host, (inFlight.get(host) ?? 0) + 1);
          total++;
          sent++;
        }
      }
      // Workers fetch now rather than at their next poll.
      if (sent > 0) await o.store.notify(JOBS_SENT);
    } catch (e) {
      o.onError?.(e);
    } finally {
      busy = false;
      if (again && !stopped) {
        again = false;
        void tick();
      } else if (!stopped) timer = setTimeout(() => void tick(), o.tickMs ?? PRODUCER_TICK_MS);
    }
  };
  const wake = (): void => {
    if (stopped) return;
    // A wake during a tick runs another right after it (the tick may have read the state before the change).
    if (busy) {
      again = true;
      return;
    }
    if (timer) clearTimeout(timer);
    void tick();
  };
  // A probe finished in some worker: its agent's slot is free, send the next job now.
  o.queue.listen(PROBE_DONE, wake);
  void tick();
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    wake,
  };
}

export interface WorkerOptions {
  store: PostgresRegistryStore;
  queue: ProbeQueue;
  /** Probes at once in this process. */
  concurrency: number;
  settings: ProbeSettings;
  intervalMs: number;
  runner: string;
  probe?: Prober;
  onStart?: (agent: AgentRow) => void;
  onRun?: (agent: AgentRow, result: RunResult) => void;
  onError?: (e: unknown) => void;
}

/** Takes probe jobs until the queue is stopped. */
export async function startWorker(o: WorkerOptions): Promise<void> {
  const probe = o.probe ?? probeAgent;
  const handle = async (job: { id: string; data: { agentId: number } }): Promise<void> => {
    const agent = await o.store.getAgentById(job.data.agentId);
    if (!agent) return; // removed since: nothing to do
    const startedAt = Date.now();
    const runId = await o.store.startRun(agent.id, startedAt, o.runner, 'schedule', job.id);
    // Someone else's probe of this agent is running (it cannot happen through the producer): try later.
    if (runId === undefined) throw new Error(`agent ${agent.url} is being probed by another job`);
    o.onStart?.(agent);
    const result = await probe(agent, o.settings);
    const next = nextDue(startedAt, result, agent.failures, intervalOf(agent, o.intervalMs), DEFAULT_MAX_BACKOFF_MS);
    await o.store.finishRun(runId, { result, now: Date.now(), nextDueAt: next.at, failures: next.failures, problem: problemOf(result) });
    await o.store.notify(PROBE_DONE);
    o.onRun?.(agent, result);
  };
  // One pg-boss worker per slot, each taking one job and the next as soon as it is done (a batch
  // would hold every slot of it until its slowest probe ended). Idle slots poll, and wake at once
  // when the producer notifies that it sent jobs.
  const ids: string[] = [];
  o.queue.listen(JOBS_SENT, () => {
    for (const id of ids) o.queue.boss.notifyWorker(id);
  });
  for (let i = 0; i < o.concurrency; i++) {
    const id = await o.queue.boss.work<{ agentId: number }>(PROBE_QUEUE, { batchSize: 1, pollingIntervalSeconds: WORKER_POLL_S }, async ([job]) => {
      if (!job) return;
      try {
        await handle(job);
      } catch (e) {
        o.onError?.(e);
        throw e;
      }
    });
    ids.push(id);
  }
}
