/**
 * `signed_replay` (checklist step 12; runner contract `replay_window`, digest 2.6): the identical
 * signed request is sent twice, back to back. The first copy must be accepted (it really runs:
 * create_media_buy on a sandbox seller, otherwise a listed read); the second, byte for byte the
 * same, must be refused with `request_signature_replayed`.
 *
 * With `defects` and `first`, the first copy is a validly signed request that a later step refuses
 * (step 14: a body with duplicate keys); its nonce was stored all the same (step 13 runs before
 * step 14), so the identical copy is a replay too. A first copy not refused as `first` says blocks
 * the check by `first_prerequisite`.
 */
import type { DefectName } from '../../../harness/core/signing/sign/defects.js';
import type { CounterpartyRole } from '../../../harness/core/signing/keys/counterparty.js';
import type { OutgoingRequest } from '../../../harness/core/transport/types.js';
import { recordOf, type StepKind } from '../../../harness/core/engine/kinds/types.js';
import { counterpartyServer, coverDigest, signingPrepare, type SignSpec } from '../../../harness/core/signing/counterparty-signing.js';
import { DEFECTS_FIELD, describeProbe, EXPECT_FIELD, judgeSigned, KEY_FIELD, noteKeys, type SignedExpectation } from './probe.js';
import { resolveTarget } from './target.js';

export const REPLAYED_CODE = 'request_signature_replayed';

export const signedReplay: StepKind = {
  name: 'signed_replay',
  /** Probe targets are called in the buyer's account, and a sandbox create buys the setup suite's product (target.ts). */
  reads: ['buyer', 'accounts', 'product'],
  fields: {
    key: KEY_FIELD,
    defects: DEFECTS_FIELD,
    /** What the first copy must get (default accepted). */
    first: EXPECT_FIELD,
    /** The check that tests what `first` expects: a first copy answered otherwise blocks by it. */
    first_prerequisite: { type: 'string', minLength: 1 },
  },
  async run(step, ctx) {
    await counterpartyServer(ctx);
    const firstExpect = (step.first as SignedExpectation | undefined) ?? 'accepted';
    const target = await resolveTarget(ctx, firstExpect === 'accepted' ? 'replay' : 'reject');
    if (!target.ok) return { verdict: { status: 'gap', message: target.message, gap: 'an operation to probe the signature verifier with' } };
    const { task, args, how } = target.target;
    const spec: SignSpec = {
      key: (step.key as CounterpartyRole | undefined) ?? 'ed25519',
      defects: (step.defects as DefectName[] | undefined) ?? [],
      coverDigest: coverDigest('policy', ctx),
    };
    const captured: { req?: OutgoingRequest } = {};
    ctx.notes.push(`${describeProbe(task, spec, ctx)}, sent twice [${how}]`);
    const first = await ctx.call(task, args, { prepare: signingPrepare(ctx, spec, (r) => (captured.req = r)), purpose: `${task} (signed, first copy)` });
    const firstVerdict = judgeSigned(first, firstExpect, ctx, 'the first copy of the signed request');
    const copy = captured.req;
    if (firstVerdict.status === 'failed' && typeof step.first_prerequisite === 'string') {
      return { verdict: { status: 'unmet', message: firstVerdict.message, blocked_by: step.first_prerequisite }, record: recordOf(first) };
    }
    if (firstVerdict.status !== 'ok' || !copy) {
      if (firstVerdict.status === 'failed') await noteKeys(ctx);
      return { verdict: firstVerdict, record: recordOf(first) };
    }
    const second = await ctx.call(task, args, {
      // The identical request: same URL, headers (signature, nonce) and body bytes.
      prepare: () => ({ method: copy.method, url: copy.url, headers: { ...copy.headers }, body: copy.body }),
      purpose: `${task} (signed, identical replay)`,
    });
    const verdict = judgeSigned(second, { error: REPLAYED_CODE }, ctx, 'the identical second copy');
    if (verdict.status === 'failed') {
      if (second.failure?.kind === 'protocol' && second.httpStatus !== undefined && second.httpStatus < 300) {
        ctx.notes.push(
          `the agent answered the replayed copy with HTTP ${second.httpStatus}: it processed it (the copy carries the first request's JSON-RPC id, so the transport found no reply to the id it expected)`,
        );
      }
      await noteKeys(ctx);
    }
    return { verdict, record: recordOf(second) };
  },
};
