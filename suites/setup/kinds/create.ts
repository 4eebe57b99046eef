/**
 * `setup_create`: the first create_media_buy, judged like `call` (default: a successful reply).
 * A seller may answer a create asynchronously (interface spec 3.2: a `submitted` or `working`
 * task, its result delivered later by webhook). When the expectations fail on such an answer,
 * the run has no buy to build on, and that is a coverage gap naming the reason, not a failure:
 * the spec lets the seller decide, and the result comes only to a webhook receiver.
 */
import type { ExpectationDef } from '../../../harness/core/engine/model.js';
import { describeReply, recordOf, type StepKind } from '../../../harness/core/engine/kinds/types.js';
import { judgeReply } from '../../../harness/core/engine/kinds/steps/util.js';

const PENDING_TASK = new Set(['submitted', 'working', 'input-required']);

export const setupCreate: StepKind = {
  name: 'setup_create',
  fields: { args: { type: 'object' }, expect: { type: 'array' } },
  expectationFields: ['expect'],
  async run(step, ctx) {
    const args = (ctx.expand(step.args ?? {}) ?? {}) as Record<string, unknown>;
    const reply = await ctx.call('create_media_buy', args);
    const record = recordOf(reply);
    const verdict = judgeReply(step.expect as ExpectationDef[] | undefined, reply, record, ctx);
    if (verdict.status !== 'failed' || reply.isError) return { verdict, record };
    const payload = reply.payload as { status?: unknown; task_id?: unknown; media_buy_id?: unknown } | undefined;
    const taskStatus = PENDING_TASK.has(String(reply.status)) ? reply.status : PENDING_TASK.has(String(payload?.status)) ? payload?.status : undefined;
    if (taskStatus === undefined || payload?.media_buy_id !== undefined) return { verdict, record };
    return {
      verdict: {
        status: 'gap',
        gap: 'synchronous create_media_buy (or a webhook receiver for its task)',
        message: `the seller answered create_media_buy asynchronously (${describeReply(reply)}, task status ${String(taskStatus)}): the buy comes only in a later webhook; give fixtures for a buyer it confirms synchronously, or a public https receiver`,
      },
      record,
    };
  },
};
