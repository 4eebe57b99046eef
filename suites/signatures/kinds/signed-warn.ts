/**
 * `signed_warn`: shadow mode (`request_signing.warn_for`, digest 1.10). A well-formed counterparty
 * signature whose bytes do not verify (a crypto failure, which shadow mode records and never
 * hard-rejects) is sent to an operation the agent lists in warn_for:
 * - `auth: default`, with the run's bearer token: the request goes on (warn_for wins over
 *   supported_for, where the same signature is refused with request_signature_invalid);
 * - `auth: none` (3.2): no signer is established, so without another authenticator it is refused
 *   (any HTTP 401). A control call first, unsigned and without credentials: an agent answering it
 *   serves the operation to anonymous callers, and the refusal cannot be judged (a coverage gap).
 */
import { recordOf, type StepKind } from '../../../harness/core/engine/kinds/types.js';
import { unreachable } from '../../../harness/core/engine/kinds/steps/util.js';
import { counterpartyServer, coverDigest, signingPrepare, type SignSpec } from '../../../harness/core/signing/counterparty-signing.js';
import { describeProbe, isSignatureRejection, judgeSigned, noteKeys } from './probe.js';
import { resolveWarnTarget } from './target.js';

export const signedWarn: StepKind = {
  name: 'signed_warn',
  /** A get_products target reads the buyer's facts and account (target.ts). */
  reads: ['buyer', 'accounts'],
  fields: {
    /** `default`: the run's bearer token goes along; `none`: no credential at all. */
    auth: { enum: ['default', 'none'] },
  },
  required: ['auth'],
  async run(step, ctx) {
    await counterpartyServer(ctx);
    const anonymous = step.auth === 'none';
    const target = resolveWarnTarget(ctx, anonymous ? 'reject' : 'accept');
    if (!target.ok) return { verdict: { status: 'gap', message: target.message, gap: 'an operation in request_signing.warn_for to probe' } };
    const { task, args, how } = target.target;
    if (anonymous) {
      const control = await ctx.call(task, args, { auth: { mode: 'none' }, purpose: `${task} (unsigned, no credentials: control)` });
      const down = unreachable(control);
      if (down) return { verdict: down, record: recordOf(control) };
      if (!isSignatureRejection(control)) {
        return {
          verdict: {
            status: 'gap',
            message: `the agent answers ${task} unsigned and without any credential (not an HTTP 401), so it needs no independent authenticator there and a refusal cannot be asked for`,
            gap: 'a warn_for operation the agent refuses to anonymous callers',
          },
          record: recordOf(control),
        };
      }
    }
    const spec: SignSpec = { key: 'ed25519', defects: ['bad-signature'], coverDigest: coverDigest('policy', ctx) };
    const probe = `${describeProbe(task, spec, ctx)}, ${anonymous ? 'without any credential' : "with the run's bearer token"}`;
    ctx.notes.push(`${probe} [${how}${anonymous ? '; control: the same call unsigned without credentials was refused with HTTP 401' : ''}]`);
    const reply = await ctx.call(task, args, {
      auth: anonymous ? { mode: 'none' } : { mode: 'default' },
      prepare: signingPrepare(ctx, spec),
      purpose: `${task} (signed, bad-signature, warn_for, ${anonymous ? 'no credentials' : 'bearer'})`,
    });
    const verdict = judgeSigned(reply, anonymous ? 'refused' : 'accepted', ctx, probe);
    if (verdict.status === 'failed' && !anonymous) await noteKeys(ctx);
    return { verdict, record: recordOf(reply) };
  },
};
