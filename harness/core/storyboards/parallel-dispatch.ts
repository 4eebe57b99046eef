/**
 * A step's `parallel_dispatch` (the `parallel_dispatch_runner` test-kit contract of the
 * ecosystem's runners; the 3.1 idempotency storyboard's concurrent retry, digest 3.4 rule 9):
 * `count` (2 to 10) identical calls at once against the agent, in this process (`process_local`;
 * `distributed` is not run here). A dispatch answered `IDEMPOTENCY_IN_FLIGHT` (or the older
 * `SERVICE_UNAVAILABLE`) is sent again with the same key after the agent's `retry_after`, while
 * the barrier (`barrier_timeout_ms`, default 5000) lasts and at most five times. The step's
 * per-response validations are judged on every dispatch; the `cross_response_*` kinds on the set
 * of dispatches that resolved without an error.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { TaskReply } from '../transport/types.js';

export interface ParallelSpec {
  count: number;
  barrierMs: number;
}

const IN_FLIGHT = new Set(['IDEMPOTENCY_IN_FLIGHT', 'SERVICE_UNAVAILABLE']);
const RETRIES = 5;

/** The step's spec; a string saying why it cannot be run (the storyboard's defect, or a mode not run here). */
export function parallelSpecOf(raw: unknown): ParallelSpec | string | undefined {
  if (raw === undefined) return undefined;
  const s = raw as { count?: unknown; barrier_timeout_ms?: unknown; mode?: unknown } | null;
  if (!s || typeof s !== 'object') return 'parallel_dispatch is not a mapping';
  if (!Number.isInteger(s.count) || (s.count as number) < 2 || (s.count as number) > 10)
    return `parallel_dispatch count must be an integer in [2, 10], got ${JSON.stringify(s.count)}`;
  if (s.barrier_timeout_ms !== undefined && (typeof s.barrier_timeout_ms !== 'number' || !(s.barrier_timeout_ms > 0)))
    return `parallel_dispatch barrier_timeout_ms must be a positive number, got ${JSON.stringify(s.barrier_timeout_ms)}`;
  if (s.mode !== undefined && s.mode !== 'process_local' && s.mode !== 'distributed')
    return `parallel_dispatch mode must be process_local or distributed, got ${JSON.stringify(s.mode)}`;
  if (s.mode === 'distributed') return 'parallel_dispatch mode distributed (barrier-synced workers across processes), which the harness does not run';
  return { count: s.count as number, barrierMs: Math.min((s.barrier_timeout_ms as number | undefined) ?? 5000, 60_000) };
}

/** The seconds an in-flight refusal asks to wait (its `retry_after`), else one. */
function retryAfterMs(reply: TaskReply): number {
  const raw = reply.error?.raw as { retry_after?: unknown } | undefined;
  const s = typeof raw?.retry_after === 'number' && raw.retry_after >= 0 ? raw.retry_after : 1;
  return Math.min(s, 30) * 1000;
}

/** Every dispatch's last reply, in fan-out order, with how many times each was sent. */
export async function dispatchAll(spec: ParallelSpec, call: () => Promise<TaskReply>): Promise<Array<{ reply: TaskReply; attempts: number }>> {
  const deadline = Date.now() + spec.barrierMs;
  const one = async () => {
    let reply = await call();
    let attempts = 1;
    while (reply.error && IN_FLIGHT.has(reply.error.code) && attempts <= RETRIES) {
      const wait = retryAfterMs(reply);
      if (Date.now() + wait > deadline) break;
      await sleep(wait);
      reply = await call();
      attempts += 1;
    }
    return { reply, attempts };
  };
  return Promise.all(Array.from({ length: spec.count }, one));
}
