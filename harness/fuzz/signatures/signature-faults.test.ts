import { describe, expect, it } from 'vitest';
import { VERIFIER_FAULTS } from '../../../mocks/seller/signing/faults.js';
import { openMockContext } from '../testing/mock-context.js';
import { signatureMutations } from './signature-property.js';

/**
 * Verifier faults a single-defect mutation cannot show: the cap, unsigned calls, valid signatures
 * refused, and the 3.2 decoder's refusal of base64url (the mutations are those of the 14-step
 * checklist every line shares; signatures.profile.base64url-refused catches that fault at --target 3.2).
 */
const OUT_OF_REACH = new Set<string>([
  VERIFIER_FAULTS.v32LegacyDecoder,
  VERIFIER_FAULTS.rateCapIgnored,
  VERIFIER_FAULTS.unsignedAccepted,
  VERIFIER_FAULTS.webhookAuthUnsigned,
  VERIFIER_FAULTS.ed25519Refused,
  VERIFIER_FAULTS.es256Refused,
  // Rules probed by requests built for each (suites/signatures): not one defect in a valid signed
  // request of the checklist, so no mutation shows them. A doubled tag, a second label, an
  // unmatched Signature-Input label, a pure standard-base64 token (taken, not refused), forwarded
  // host headers, a body version member (3.2), a listed JSON-RPC method sent unsigned, names across
  // the two namespaces, the order of the cheap steps before the crypto, the nonce stored before
  // step 14, a webhook-usage key, the challenge's extra parameters, and a seller declaring no signing.
  VERIFIER_FAULTS.doubledTagAccepted,
  VERIFIER_FAULTS.everyLabelVerified,
  VERIFIER_FAULTS.unmatchedLabelRefused,
  VERIFIER_FAULTS.standardBase64Refused,
  VERIFIER_FAULTS.forwardedHostTrusted,
  VERIFIER_FAULTS.bodyVersionPolicy,
  VERIFIER_FAULTS.protocolMethodsUnchecked,
  VERIFIER_FAULTS.namespacesMixed,
  VERIFIER_FAULTS.cryptoFirst,
  VERIFIER_FAULTS.nonceAfterBody,
  VERIFIER_FAULTS.webhookUsageAccepted,
  VERIFIER_FAULTS.challengeRealm,
  // Shadow mode (warn_for), the Host header's case, its malformed forms and default port, and the
  // separate impossible-key counterparty: each needs a request built for it (a bearer beside a
  // failed signature, a Host other than the URL's, another counterparty's kid), not a mutation of
  // a valid signed request.
  VERIFIER_FAULTS.warnForEnforced,
  VERIFIER_FAULTS.warnForAuthenticates,
  VERIFIER_FAULTS.hostCaseKept,
  VERIFIER_FAULTS.malformedHostAccepted,
  VERIFIER_FAULTS.defaultPortKept,
  VERIFIER_FAULTS.impossibleJwkAccepted,
  VERIFIER_FAULTS.undeclaredVerifies,
]);

describe('fuzz.signatures.mutation-refused finds the verifier faults of the mock', () => {
  it('kills every fault in reach; the shrunk mutation replays from seed and path', { timeout: 120_000 }, async () => {
    const all = Object.values(VERIFIER_FAULTS);
    // Only the faults in reach are hunted: a fault named out of reach would cost a mock start and
    // 300 cases to show nothing (the list is what the hunt is judged against, not a finding).
    const hunted = all.filter((f) => !OUT_OF_REACH.has(f));
    const killed: string[] = [];
    const missed: string[] = [];
    const t0 = Date.now();
    for (const fault of hunted) {
      const m = await openMockContext({ faults: [fault] });
      try {
        const out = await signatureMutations.run(m.ctx, { seed: 1304, numRuns: 300 });
        if (out.outcome !== 'violated') {
          missed.push(`${fault} (${out.outcome}: ${out.message ?? ''})`);
          continue;
        }
        killed.push(fault);
        console.log(`${fault}: ${JSON.stringify(out.counterexample)} :: ${out.message}`);
        const replay = await signatureMutations.run(m.ctx, { seed: out.seed, numRuns: 1, path: out.path! });
        expect(replay.outcome, `${fault} replays`).toBe('violated');
        expect(replay.counterexample).toEqual(out.counterexample);
      } finally {
        await m.close();
      }
    }
    console.log(
      `fuzz signature kill rate: ${killed.length}/${hunted.length} hunted of ${all.length} (${Date.now() - t0} ms); out of reach by design: ${[...OUT_OF_REACH].join(', ')}`,
    );
    expect(missed).toEqual([]);
  });
});
