/**
 * `webhook_call`: a task call that registers a webhook with a legacy `authentication` block
 * (HMAC-SHA256 or Bearer). Digest 1.16: signing-capable sellers must require that such a
 * registering request be signed, so when the agent declares `request_signing.supported` the
 * call is signed as the harness's test counterparty (the keys the `signatures` suite uses).
 * Otherwise it is an ordinary call. Judged like `call` (default: a successful reply).
 */
import type { ExpectationDef } from '../../../harness/engine/model.js';
import { recordOf, type StepKind } from '../../../harness/engine/kinds/types.js';
import { PUSH_CHANNEL_FIELD, judgeReply, pushOptions } from '../../../harness/engine/kinds/steps/util.js';
import { counterpartyServer, counterpartySigning, signingCapability } from '../../shared/counterparty-signing.js';
import { isReservedAddress } from '../../../harness/net/address-ranges.js';

/** A webhook URL that digest 5.9 lets (makes) a seller refuse: not https, or an IP literal in a reserved range, or localhost. */
export function refusableReceiver(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const u = new URL(url);
  if (u.protocol !== 'https:') return true;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  try {
    return isReservedAddress(host);
  } catch {
    return false; // a name, not an address: judged as given
  }
}

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
    // Digest 5.9: a seller must refuse webhook URLs that are not https or name a reserved address.
    // When the harness's own receiver is such a URL, a refused registration says nothing about the
    // rule under test: a coverage gap (the receiver's address), never a failure.
    const url = (push.pushNotificationConfig ?? push.a2aPushNotificationConfig)?.url;
    if (verdict.status === 'failed' && reply.isError && typeof url === 'string' && refusableReceiver(url))
      return {
        verdict: {
          status: 'gap',
          gap: 'a public https webhook receiver',
          message: `${task} refused the registration of the harness's receiver ${url}, which a seller must refuse anyway (digest 5.9: https and public addresses only): ${reply.error?.code ?? 'error'}; give the harness a public https receiver (${ctx.ids.runnerWebhookEnv}) to test this`,
        },
        record,
      };
    return { verdict, record };
  },
};
