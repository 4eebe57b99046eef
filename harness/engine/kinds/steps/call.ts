/** `call`: one task call, judged by its expectations (default: a successful reply). */
import type { ExpectationDef } from '../../model.js';
import type { AuthOverride } from '../../../transport/types.js';
import type { StepKind } from '../types.js';
import { recordOf } from '../types.js';
import { AUTH_FIELD, authOverride, judgeReply } from './util.js';

export const call: StepKind = {
  name: 'call',
  fields: {
    task: { type: 'string', minLength: 1 },
    args: { type: 'object' },
    auth: AUTH_FIELD,
    /** Push notification registration (MCP: arguments.push_notification_config; A2A: configuration). */
    push_notification_config: { type: 'object' },
    /** A2A: poll tasks/get until the task is terminal. */
    poll: { type: 'boolean' },
    expect: { type: 'array' },
  },
  required: ['task'],
  expectationFields: ['expect'],
  async run(step, ctx) {
    const task = String(ctx.expand(step.task));
    const args = (ctx.expand(step.args ?? {}) ?? {}) as Record<string, unknown>;
    const auth: AuthOverride = authOverride(step.auth as string | undefined, ctx);
    const reply = await ctx.call(task, args, {
      auth,
      pushNotificationConfig: step.push_notification_config ? (ctx.expand(step.push_notification_config) as Record<string, unknown>) : undefined,
      pollUntilTerminal: step.poll === true,
    });
    const record = recordOf(reply);
    return { verdict: judgeReply(step.expect as ExpectationDef[] | undefined, reply, record, ctx), record };
  },
};
