/**
 * Steps that grade every reply the run has received so far on this transport (the schemas suite
 * runs last), optionally after one sample call of their own. A task that answered only refusals
 * leaves its response shape unjudged: a coverage gap, never a pass. With a released schema set of
 * the target's line (released-schemas.ts), each successful reply is judged against it too.
 */
import type { ExpectationDef } from '../../model.js';
import type { StepKind } from '../types.js';
import { describeReply, recordOf } from '../types.js';
import type { TaskReply } from '../../../transport/types.js';
import { unreachable } from './util.js';
import { verdictToJudgement } from '../expect/schema.js';
import { inCheckOrder, type Observation } from '../../observed.js';
import { releasedJudge } from '../released-schemas.js';

export const observedSchema: StepKind = {
  name: 'observed_schema',
  fields: {
    task: { type: 'string', minLength: 1 },
    /** Several tasks graded together (not_applicable only when none of them was received). */
    tasks: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
    /** Arguments of a sample call made when the agent lists the task (omit to only grade what was observed). */
    sample_args: { type: 'object' },
  },
  async run(step, ctx) {
    const tasks = [...(step.task !== undefined ? [step.task] : []), ...((step.tasks as unknown[] | undefined) ?? [])].map((t) => String(ctx.expand(t)));
    if (tasks.length === 0) return { verdict: { status: 'unmet', message: 'observed_schema needs task or tasks' } };
    const seen: Observation[] = [];
    for (const task of tasks) {
      if (!ctx.schemas.hasTaskSchema(task)) return { verdict: { status: 'unmet', message: `the harness has no response schema for ${task}` } };
      let sample: TaskReply | undefined;
      if (step.sample_args !== undefined && ctx.profile.tasks.includes(task)) {
        sample = await ctx.call(task, ctx.expand(step.sample_args) as Record<string, unknown>);
      }
      const mine = ctx.observed.forTask(ctx.kind, task).filter((o) => !o.reply.failure);
      if (mine.length === 0 && sample) {
        // The agent lists the task but its sample call got no reply: the transport stopped answering, or the reply was no task reply at all.
        return {
          verdict: unreachable(sample) ?? {
            status: 'failed',
            message: `the sample ${task} call got no task reply: ${describeReply(sample)}`,
            actual: sample.failure,
          },
        };
      }
      seen.push(...mine);
    }
    if (seen.length === 0) {
      return { verdict: { status: 'not_applicable', message: `no ${tasks.join('/')} reply was received during this run` } };
    }
    let errorReplies = 0;
    const released = releasedJudge(ctx);
    for (const o of inCheckOrder(seen)) {
      const r = o.reply;
      const verdict = r.isError
        ? r.error && r.error.raw !== undefined
          ? ctx.schemas.validate('error', r.error.raw)
          : { valid: true, errors: [] }
        : ctx.schemas.validateTaskResponse(r.task, r.payload);
      if (r.isError) errorReplies++;
      if (!verdict.valid) {
        ctx.exchanges.push(...r.exchanges);
        const j = verdictToJudgement(verdict, r.isError ? `a ${r.task} error object` : `a ${r.task} response (check ${o.checkId})`);
        return {
          verdict: {
            status: 'failed',
            message: j.message ?? 'schema-invalid',
            expected: j.expected,
            actual: r.isError ? r.error?.raw : r.payload,
            pointer: j.pointer,
          },
          record: recordOf(r),
        };
      }
      const againstReleased = r.isError ? undefined : released.judge(r, o.checkId);
      if (againstReleased) {
        ctx.exchanges.push(...r.exchanges);
        return { verdict: againstReleased, record: recordOf(r) };
      }
    }
    // Valid error objects alone say nothing about the response shape the check is about.
    if (errorReplies === seen.length) {
      return {
        verdict: {
          status: 'gap',
          gap: 'a successful reply to judge',
          message: `no successful ${tasks.join('/')} reply was received during this run (${seen.length === 1 ? 'one refusal, a valid error object' : `${seen.length} refusals, each a valid error object`}), so the response shape could not be judged`,
        },
      };
    }
    ctx.notes.push(`${seen.length} ${tasks.join('/')} replies validated (${errorReplies} error objects)`);
    return { verdict: released.finish(ctx.notes) ?? { status: 'ok' } };
  },
};

export const observedReplies: StepKind = {
  name: 'observed_replies',
  fields: {
    /** Restrict to these tasks (default: every task). */
    tasks: { type: 'array', items: { type: 'string' } },
    expect: { type: 'array', minItems: 1 },
  },
  required: ['expect'],
  expectationFields: ['expect'],
  async run(step, ctx) {
    const tasks = (step.tasks as string[] | undefined)?.map((t) => ctx.ids.expand(t));
    const seen = ctx.observed.all(ctx.kind).filter((o) => o.reply.ok && !o.reply.isError && (!tasks || tasks.includes(o.reply.task)));
    if (seen.length === 0) return { verdict: { status: 'unmet', message: 'no successful reply was received during the run, so there is nothing to judge' } };
    for (const o of inCheckOrder(seen)) {
      const j = ctx.judge(step.expect as ExpectationDef[], { reply: o.reply, record: recordOf(o.reply) });
      if (!j.ok) {
        ctx.exchanges.push(...o.reply.exchanges);
        return {
          verdict: {
            status: 'failed',
            message: `${o.reply.task} (check ${o.checkId}): ${j.message}`,
            expected: j.expected,
            actual: j.actual,
            pointer: j.pointer,
          },
        };
      }
    }
    ctx.notes.push(`${seen.length} replies checked`);
    return { verdict: { status: 'ok' } };
  },
};
