/**
 * `call_concurrent`: the same call sent N times at once (idempotency under concurrency); with
 * `variants`, copy i carries the arguments merged with variants[i mod length] (one key, other payloads).
 */
import type { ExpectationDef } from '../../model.js';
import type { StepKind } from '../types.js';
import { recordOf } from '../types.js';
import { unreachable } from './util.js';

export const callConcurrent: StepKind = {
  name: 'call_concurrent',
  fields: {
    task: { type: 'string', minLength: 1 },
    args: { type: 'object' },
    count: { type: 'integer', minimum: 2, maximum: 32 },
    /** Top-level argument overrides, one per copy in turn. */
    variants: { type: 'array', items: { type: 'object' }, minItems: 1, maxItems: 32 },
    /** Expectations over the whole group (distinct_count, each, some). */
    expect: { type: 'array' },
  },
  required: ['task', 'count'],
  expectationFields: ['expect'],
  async run(step, ctx) {
    const task = String(ctx.expand(step.task));
    const args = (ctx.expand(step.args ?? {}) ?? {}) as Record<string, unknown>;
    const n = step.count as number;
    const variants = (step.variants === undefined ? [{}] : (ctx.expand(step.variants) as Record<string, unknown>[])) ?? [{}];
    const replies = await Promise.all(Array.from({ length: n }, (_, i) => ctx.call(task, structuredClone({ ...args, ...variants[i % variants.length] }))));
    const record = { task, replies: replies.map(recordOf) };
    for (const r of replies) {
      const down = unreachable(r);
      if (down) return { verdict: down, record };
    }
    const j = ctx.judge(step.expect as ExpectationDef[] | undefined, { replies, record });
    if (j.ok) return { verdict: { status: 'ok' }, record };
    return {
      verdict: {
        status: 'failed',
        message: `${n} concurrent ${task} calls: ${j.message}`,
        expected: j.expected,
        actual: j.actual,
        pointer: j.pointer,
        owner: j.owner,
      },
      record,
    };
  },
};
