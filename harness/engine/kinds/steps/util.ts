import type { ExpectationDef } from '../../model.js';
import type { AuthOverride, TaskReply } from '../../../transport/types.js';
import type { CheckContext, StepRecord, StepVerdict } from '../types.js';
import { describeReply } from '../types.js';

export const AUTH_FIELD = { enum: ['default', 'none', 'wrong'] } as const;

export const DEFAULT_EXPECT: ExpectationDef[] = [{ kind: 'success' }];

export function authOverride(mode: string | undefined, ctx: CheckContext): AuthOverride {
  switch (mode) {
    case 'none':
      return { mode: 'none' };
    case 'wrong':
      return { mode: 'bearer', token: `proto-comply-wrong-${ctx.random.alias('uuid', '__wrong_bearer', (r) => r.uuid())}` };
    default:
      return { mode: 'default' };
  }
}

/**
 * A reply that never arrived because the agent stopped answering on the network: the step could
 * not be carried out, so the check is blocked by the transport itself (`transport.<kind>`), never
 * passed and never failed on a rule it could not probe.
 */
export function unreachable(reply: TaskReply): StepVerdict | undefined {
  if (reply.failure?.kind === 'network') {
    return { status: 'unmet', message: `the agent could not be reached: ${reply.failure.message}`, blocked_by: `transport.${reply.transport}` };
  }
  if (reply.failure?.kind === 'refused') {
    return { status: 'unmet', message: `the harness did not call the agent: ${reply.failure.message}`, blocked_by: `transport.${reply.transport}` };
  }
  return undefined;
}

export function judgeReply(expect: ExpectationDef[] | undefined, reply: TaskReply, record: StepRecord, ctx: CheckContext): StepVerdict {
  const down = unreachable(reply);
  if (down) return down;
  const j = ctx.judge(expect ?? DEFAULT_EXPECT, { reply, record });
  if (j.ok) return { status: 'ok' };
  return {
    status: 'failed',
    message: `${reply.task}: ${j.message ?? `unexpected ${describeReply(reply)}`}`,
    expected: j.expected,
    actual: j.actual,
    pointer: j.pointer,
  };
}
