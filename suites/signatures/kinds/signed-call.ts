/**
 * `signed_call`: one real task call over the agent's transport, signed by the harness's test
 * counterparty (RFC 9421 request profile), optionally with named defects that each break one
 * checklist step (harness/core/signing/sign/defects.ts), judged as accepted or as a 401 with the exact
 * `Signature error` code (digest 1.9, 1.14, 2.6).
 */
import type { DefectName } from '../../../harness/core/signing/sign/defects.js';
import type { CounterpartyRole } from '../../../harness/core/signing/keys/counterparty.js';
import { recordOf, type StepKind } from '../../../harness/core/engine/kinds/types.js';
import { authOverride } from '../../../harness/core/engine/kinds/steps/util.js';
import { counterpartyServer, coverDigest, signingPrepare, type SignSpec } from '../../../harness/core/signing/counterparty-signing.js';
import { DEFECTS_FIELD, describeProbe, EXPECT_FIELD, judgeSigned, KEY_FIELD, noteKeys, type SignedExpectation } from './probe.js';
import { resolveTarget, type OperationScope } from './target.js';

export const signedCall: StepKind = {
  name: 'signed_call',
  /** Probe targets are called in the buyer's account, and a sandbox create buys the setup suite's product (target.ts). */
  reads: ['buyer', 'accounts', 'product'],
  fields: {
    /** Counterparty key to sign with (default ed25519). */
    key: KEY_FIELD,
    defects: DEFECTS_FIELD,
    /** `policy` (default): covered unless the agent declares covers_content_digest forbidden. */
    content_digest: { enum: ['policy', 'covered', 'uncovered'] },
    /** `none`: no bearer token (pre-check P1). */
    auth: { enum: ['default', 'none'] },
    /** `required`: probe an operation from required_for only (default: supported_for + required_for). */
    operations: { enum: ['signed', 'required'] },
    /** Push notification registration sent with the call (webhook authentication pre-check). */
    push_notification_config: { type: 'object' },
    expect: EXPECT_FIELD,
  },
  required: ['expect'],
  async run(step, ctx) {
    await counterpartyServer(ctx);
    const expect = step.expect as SignedExpectation;
    const target = await resolveTarget(ctx, expect === 'accepted' ? 'accept' : 'reject', (step.operations as OperationScope | undefined) ?? 'signed');
    if (!target.ok) return { verdict: { status: 'gap', message: target.message, gap: 'an operation to probe the signature verifier with' } };
    const spec: SignSpec = {
      key: (step.key as CounterpartyRole | undefined) ?? 'ed25519',
      defects: (step.defects as DefectName[] | undefined) ?? [],
      coverDigest: coverDigest(step.content_digest, ctx),
    };
    const unsigned = spec.defects.includes('unsigned');
    const probe = unsigned ? `${target.target.task} without a signature` : describeProbe(target.target.task, spec, ctx);
    ctx.notes.push(`${probe} [${target.target.how}]`);
    const reply = await ctx.call(target.target.task, target.target.args, {
      auth: authOverride(step.auth as string | undefined, ctx),
      pushNotificationConfig: step.push_notification_config ? (ctx.expand(step.push_notification_config) as Record<string, unknown>) : undefined,
      prepare: signingPrepare(ctx, spec),
      purpose: `${target.target.task} (${unsigned ? 'unsigned' : spec.defects.length ? `signed, ${spec.defects.join('+')}` : 'signed'})`,
    });
    const verdict = judgeSigned(reply, expect, ctx, probe);
    if (verdict.status === 'failed') await noteKeys(ctx);
    return { verdict, record: recordOf(reply) };
  },
};
