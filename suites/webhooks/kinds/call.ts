/**
 * `webhook_call`: a task call that registers a webhook with a legacy `authentication` block
 * (HMAC-SHA256 or Bearer). Digest 1.16: signing-capable sellers must require that such a
 * registering request be signed, so when the agent declares `request_signing.supported` the
 * call is signed as the harness's test counterparty (the keys the `signatures` suite uses).
 * Otherwise it is an ordinary call. Judged like `call` (default: a successful reply), a push URL
 * the seller refused under digest 5.9 included (a coverage gap, steps/util.ts refusedPushUrl).
 */
import type { ExpectationDef } from '../../../harness/core/engine/model.js';
import { recordOf, type StepKind } from '../../../harness/core/engine/kinds/types.js';
import { PUSH_CHANNEL_FIELD, judgeReply, pushOptions, refusedPushUrl } from '../../../harness/core/engine/kinds/steps/util.js';
import { counterpartyServer, counterpartySigning, signingCapability } from '../../../harness/core/signing/counterparty-signing.js';
export const webhookCall: StepKind = {
  name: 'webhook_call',
  fields: {
    task: { type: 'string', minLength: 1 },
    args: { type: 'object' },
    /** The registration (interface spec 2.7), sent as `push_channel` says (default: the task argument on both transports). */
    push_notification_config: { type: 'object' },
    push_channel: PUSH_CHANNEL_FIELD,
    expect: { type: 'array' },
  },
  required: ['task', 'push_notification_config'],
  expectationFields: ['expect'],
  async run(step, ctx) {
    const task = String(ctx.expand(step.task));
    const args = (ctx.expand(step.args ?? {}) ?? {}) as Record<string, unknown>;
    const push = pushOptions(step, ctx);
    if ('status' in push) return { verdict: push };
    let prepare;
    if (signingCapability(ctx).supported === true) {
      await counterpartyServer(ctx);
      prepare = counterpartySigning(ctx);
      ctx.notes.push(`${task} registering a webhook with an authentication block is signed as the harness's test counterparty (digest 1.16)`);
    }
    const reply = await ctx.call(task, args, { ...push, prepare });
    const record = recordOf(reply);
    const verdict = judgeReply(step.expect as ExpectationDef[] | undefined, reply, record, ctx);
    return { verdict: refusedPushUrl({ push: push.pushNotificationConfig ?? push.a2aPushNotificationConfig, args }, reply, verdict, ctx), record };
  },
};
