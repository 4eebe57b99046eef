/**
 * `receiver_requires`: the prerequisites of a check (a receiver, its read-back hook, a second
 * endpoint, a declared dedup bound); without a receiver the check is not_applicable, without the
 * rest it is not_testable.
 *
 * `receiver_state`: reads the receiver's state back through the read-back convention
 * (suites/webhook-receiver/README.md) and judges it: how many times each delivery was processed, and the task's
 * current status. Processing happens after the acknowledgement, so the step polls (bounded)
 * until the receiver reports nothing pending and the expected deliveries are visible, then
 * reads once more after a short settle time to catch a late second processing.
 */
import type { StepKind, StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import { NO_RECEIVER, probeEnv, readTaskState, receiverTarget, type StateReadBack } from '../../../harness/core/webhooks/receiver-probe/client.js';
import { aliasValue } from '../../../harness/core/webhooks/receiver-probe/scope.js';
import { STATUSES } from './send.js';

export const READBACK_TIMEOUT_MS = 10_000;
export const READBACK_POLL_MS = 50;
export const READBACK_SETTLE_MS = 300;

export const receiverRequires: StepKind = {
  name: 'receiver_requires',
  fields: {
    state: { type: 'boolean' },
    alt_endpoint: { type: 'boolean' },
    dedup_bound: { type: 'boolean' },
  },
  async run(step, ctx) {
    const target = receiverTarget(ctx);
    if (!target) return { verdict: { status: 'not_applicable', message: NO_RECEIVER } };
    const missing: string[] = [];
    if (step.state === true && !target.stateUrl) missing.push('a read-back hook (--receiver-state URL)');
    if (step.alt_endpoint === true && !target.altUrl) missing.push('a second endpoint of the same receiver (--receiver-alt URL)');
    if (step.dedup_bound === true && target.dedupBound === undefined) missing.push('a declared dedup bound for the flood sender (--receiver-dedup-bound N)');
    if (missing.length > 0)
      return {
        verdict: {
          status: 'gap',
          message: `needs ${missing.join(' and ')}`,
          gap: `receiver options (${missing.map((m) => /--[a-z-]+/.exec(m)![0]).join(', ')})`,
        },
      };
    return { verdict: { status: 'ok' } };
  },
};

interface ProcessedSpec {
  key: string;
  count: number;
}

/** Waits `ms`, or less when the run is aborted (never rejects). */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function countKey(state: StateReadBack, key: string): number {
  return state.events.filter((e) => e.idempotency_key === key).length;
}

export const receiverState: StepKind = {
  name: 'receiver_state',
  waits: true,
  fields: {
    task: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
    expect_task_status: { enum: [...STATUSES] },
    /** The receiver knows nothing of the task: no status applied, no delivery processed for it. */
    expect_untouched: { type: 'boolean' },
    expect_processed: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: { key: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' }, count: { type: 'integer', minimum: 0 } },
        required: ['key', 'count'],
        additionalProperties: false,
      },
    },
  },
  required: ['task'],
  async run(step, ctx) {
    const target = receiverTarget(ctx);
    if (!target) return { verdict: { status: 'not_applicable', message: NO_RECEIVER } };
    if (!target.stateUrl)
      return { verdict: { status: 'gap', message: 'needs a read-back hook (--receiver-state URL)', gap: 'receiver options (--receiver-state)' } };
    const env = await probeEnv(ctx);
    const taskId = aliasValue(ctx, 'task', String(step.task));
    const processed = ((step.expect_processed as ProcessedSpec[] | undefined) ?? []).map((p) => ({ ...p, id: aliasValue(ctx, 'key', p.key) }));
    const wantStatus = step.expect_task_status as string | undefined;

    // Poll until nothing is pending and every expected delivery shows up (or the time is up).
    const deadline = Date.now() + READBACK_TIMEOUT_MS;
    let read = await readTaskState(ctx, env, taskId, { record: false });
    const ready = (s: StateReadBack) =>
      (s.pending ?? 0) === 0 && processed.every((p) => p.count === 0 || countKey(s, p.id) >= 1) && (wantStatus === undefined || s.task !== null);
    while (read.ok && !ready(read.state) && Date.now() < deadline && !ctx.signal.aborted) {
      await ctx.idle(() => sleepUnlessAborted(READBACK_POLL_MS, ctx.signal));
      read = await readTaskState(ctx, env, taskId, { record: false });
    }
    if (read.ok) {
      await ctx.idle(() => sleepUnlessAborted(READBACK_SETTLE_MS, ctx.signal));
      read = await readTaskState(ctx, env, taskId);
    }
    if (!read.ok)
      return { verdict: { status: 'gap', message: `the receiver's read-back hook did not answer usably: ${read.message}`, gap: 'receiver read-back hook' } };
    const state = read.state;
    const record = { payload: state };
    for (const p of processed) {
      const n = countKey(state, p.id);
      if (n !== p.count) {
        const verdict: StepVerdict = {
          status: 'failed',
          message: `delivery ${p.key} (idempotency_key ${p.id}) was processed ${n} time(s), expected ${p.count}`,
          expected: { idempotency_key: p.id, processed: p.count },
          actual: { processed: n, events: state.events },
        };
        return { verdict, record };
      }
    }
    if (wantStatus !== undefined && state.task?.status !== wantStatus) {
      const verdict: StepVerdict = {
        status: 'failed',
        message: `task ${taskId} is ${state.task?.status === undefined ? 'unknown to the receiver' : `"${state.task.status}"`}, expected "${wantStatus}"`,
        expected: { status: wantStatus },
        actual: state.task,
        pointer: '/task/status',
      };
      return { verdict, record };
    }
    if (step.expect_untouched === true && (state.task !== null || state.events.length > 0)) {
      const verdict: StepVerdict = {
        status: 'failed',
        message: `task ${taskId} was never named in a payload, only in the URL, yet the receiver ${state.task !== null ? `holds it as "${state.task.status}"` : `processed ${state.events.length} delivery(ies) for it`}: it correlates on a value taken from the URL`,
        expected: { task: null, events: [] },
        actual: { task: state.task, events: state.events },
      };
      return { verdict, record };
    }
    return { verdict: { status: 'ok' }, record };
  },
};
