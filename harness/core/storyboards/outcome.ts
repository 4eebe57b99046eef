/**
 * A reply as the step's validations see it (StepOutcome), and validations judged across the
 * replies of a parallel dispatch (parallel-dispatch.ts): a per-response kind fails when one
 * dispatch fails it (naming which), is not applicable when it applies to none, and passes
 * otherwise; a `cross_response_*` kind is judged once, on the dispatches that resolved.
 */
import type { ValidationRecord } from '../engine/storyboard-step.js';
import { CONTROLLER_TASK } from '../protocol/tasks.js';
import type { TaskReply } from '../transport/types.js';
import type { StoryboardValidation } from './model.js';
import { judgeValidation, type StepOutcome, type ValidationEnv } from './validations.js';

/** A controller's `{success: false}` is its error (digest 4.6: asserted with field_value on `error`). */
export const isControllerRefusal = (reply: TaskReply, task: string): boolean =>
  task === CONTROLLER_TASK &&
  ((reply.isError && reply.errorEnvelope ? reply.errorEnvelope : reply.payload) as { success?: unknown } | undefined)?.success === false;

export function outcomeOf(reply: TaskReply, task: string, sentContextId?: string): StepOutcome {
  // An error is judged on what the agent sent beside it too (its echoed context).
  const payload = reply.isError && reply.errorEnvelope ? reply.errorEnvelope : reply.payload;
  const answered = reply.exchanges.findLast((e) => e.response !== undefined && e.response.status === reply.httpStatus);
  return {
    ok: reply.ok && !reply.isError && !isControllerRefusal(reply, task),
    payload,
    ...(reply.error?.code ? { errorCode: reply.error.code } : {}),
    ...(reply.httpStatus !== undefined ? { httpStatus: reply.httpStatus } : {}),
    ...(answered?.response ? { headers: answered.response.headers } : {}),
    reply: {
      transport: reply.transport,
      status: reply.status,
      payloadSource: reply.payloadSource,
      ...(reply.taskId ? { taskId: reply.taskId } : {}),
      ...(reply.contextId ? { contextId: reply.contextId } : {}),
      ...(sentContextId ? { sentContextId } : {}),
    },
  };
}

const CROSS = /^cross_response_/;

/** One validation over the step's replies: one reply, or every dispatch of a parallel one. */
export function judgeAcross(v: StoryboardValidation, outcomes: StepOutcome[], env: ValidationEnv, parallel: boolean): ValidationRecord {
  if (CROSS.test(v.check))
    return judgeValidation(v, outcomes[0], parallel ? { ...env, crossResponses: outcomes.filter((o) => o.ok).map((o) => o.payload) } : env);
  if (outcomes.length === 1) return judgeValidation(v, outcomes[0], env);
  const each = outcomes.map((o) => judgeValidation(v, o, env));
  const failed = each.findIndex((r) => r.outcome === 'failed');
  if (failed >= 0) return { ...each[failed], message: `dispatch ${failed + 1} of ${each.length}: ${each[failed].message}` };
  return each.find((r) => r.outcome === 'passed') ?? each[0];
}
