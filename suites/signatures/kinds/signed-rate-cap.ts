/**
 * `signed_rate_cap` (checklist step 9a; runner contract `rate_abuse`, digest 1.12, 2.6): the
 * agent caps the live replay-cache entries per keyid, at `cap` for the test counterparty. Up to
 * cap + 1 valid requests with distinct nonces are sent with the counterparty's rate-cap key; the
 * agent must answer `request_signature_rate_abuse` by then, and accept every request before it.
 *
 * The cache outlives this check (entries live about 6 minutes) and may be shared by the MCP and
 * A2A endpoints, so the rejection may come earlier than request cap + 1 (another transport or a
 * recent run filled part of the cap); what must hold is accepted requests, then the refusal,
 * within cap + 1 requests. Sending stops at the first refusal.
 */
import type { CounterpartyRole } from '../../../harness/core/signing/keys/counterparty.js';
import { recordOf, type StepKind } from '../../../harness/core/engine/kinds/types.js';
import { unreachable } from '../../../harness/core/engine/kinds/steps/util.js';
import { counterpartyServer, coverDigest, signingPrepare, type SignSpec } from '../../../harness/core/signing/counterparty-signing.js';
import { describeProbe, judgeSigned, KEY_FIELD, noteKeys, rejectionCode } from './probe.js';
import { resolveTarget } from './target.js';

export const RATE_ABUSE_CODE = 'request_signature_rate_abuse';
/** Exchanges kept as evidence from the first and the last requests. */
const KEEP_HEAD = 2;
const KEEP_TAIL = 4;

export const signedRateCap: StepKind = {
  name: 'signed_rate_cap',
  /** Probe targets are called in the buyer's account, and a sandbox create buys the setup suite's product (target.ts). */
  reads: ['buyer', 'accounts', 'product'],
  fields: {
    key: KEY_FIELD,
    /** The per-keyid cap the agent applies to the test counterparty. */
    cap: { type: 'integer', minimum: 1, maximum: 1000 },
  },
  required: ['cap'],
  async run(step, ctx) {
    await counterpartyServer(ctx);
    const cap = step.cap as number;
    const target = await resolveTarget(ctx, 'accept');
    if (!target.ok) return { verdict: { status: 'gap', message: target.message, gap: 'an operation to probe the signature verifier with' } };
    const { task, args, how } = target.target;
    const spec: SignSpec = { key: (step.key as CounterpartyRole | undefined) ?? 'rate-cap', defects: [], coverDigest: coverDigest('policy', ctx) };
    const before = ctx.exchanges.length;
    let verdict: ReturnType<typeof judgeSigned> | undefined;
    let last: Awaited<ReturnType<typeof ctx.call>> | undefined;
    let sent = 0;
    for (let i = 1; i <= cap + 1; i++) {
      sent = i;
      const reply = await ctx.call(task, args, { prepare: signingPrepare(ctx, spec), purpose: `${task} (signed, rate-cap request ${i})` });
      last = reply;
      const down = unreachable(reply);
      if (down) {
        verdict = down;
        break;
      }
      if (rejectionCode(reply) === RATE_ABUSE_CODE) {
        verdict = { status: 'ok' };
        break;
      }
      if (reply.failure) {
        verdict = judgeSigned(reply, 'accepted', ctx, `request ${i} of ${cap + 1} (before the cap was reached)`);
        break;
      }
    }
    verdict ??= {
      status: 'failed',
      message: `${cap + 1} valid signed requests with distinct nonces were all accepted; the cap of ${cap} live entries per keyid was not enforced with ${RATE_ABUSE_CODE}`,
      expected: `HTTP 401 with WWW-Authenticate: Signature error="${RATE_ABUSE_CODE}" by request ${cap + 1}`,
      actual: `${cap + 1} requests accepted`,
    };
    ctx.notes.push(`${describeProbe(task, spec, ctx)}: ${sent} request(s) sent, cap ${cap} [${how}]`);
    const extra = ctx.exchanges.length - before - KEEP_HEAD - KEEP_TAIL;
    if (extra > 0) {
      ctx.exchanges.splice(before + KEEP_HEAD, extra);
      ctx.notes.push(`${extra} exchange(s) between the first ${KEEP_HEAD} and the last ${KEEP_TAIL} omitted from the evidence`);
    }
    if (verdict.status === 'failed') await noteKeys(ctx);
    return { verdict, record: last ? recordOf(last) : undefined };
  },
};
