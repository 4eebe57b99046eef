/**
 * Single-defect mutations of a valid signed request (RFC 9421 request profile) and the error
 * codes the verifier checklist names for each (digest 1.3, 1.7, 1.9). Only defects whose code is
 * unambiguous are generated; where the checklist leaves two codes open, both are accepted (as in
 * suites/signatures/signatures.yaml).
 */
import fc from 'fast-check';
import { PARAM_ORDER } from '../../core/signing/sign/signature-base.js';

export type DigestPolicy = 'required' | 'forbidden' | 'either';

export type Mutation =
  | { kind: 'window'; variant: 'created-in-future' | 'expired' | 'too-long' | 'inverted'; seconds: number }
  | { kind: 'missing-param'; param: (typeof PARAM_ORDER)[number] }
  | { kind: 'tag'; variant: 'upper-case' | 'suffix' | 'prefix' | 'v2' | 'truncated' | 'webhook' }
  | { kind: 'alg-not-allowed' }
  | { kind: 'alg-key-mismatch' }
  | { kind: 'keyid'; variant: 'suffix' | 'prefix' | 'upper-case' | 'random'; salt: number }
  | { kind: 'key-role'; role: 'governance' | 'sign-only' | 'enc-use' | 'revoked' }
  | { kind: 'nonce'; variant: 'short' | 'padded'; bytes: number }
  | { kind: 'drop-component'; component: '@method' | '@target-uri' | '@authority' | 'content-type' | 'content-digest' }
  | {
      kind: 'header';
      defect:
        | 'signature-without-input'
        | 'input-without-signature'
        | 'malformed-input'
        | 'duplicate-label'
        | 'unquoted-string-param'
        | 'multi-valued-content-type'
        | 'covered-header-absent'
        | 'non-ascii-host';
    }
  | { kind: 'malformed-target-uri' }
  | { kind: 'bad-signature'; byte: number; bit: number }
  | { kind: 'covered-value-changed'; component: 'content-type' | '@target-uri' }
  | { kind: 'digest-mismatch'; where: 'leading' | 'trailing' | 'after-open' | 'before-close' }
  | { kind: 'digest-coverage'; covered: boolean }
  | { kind: 'duplicate-json-key' }
  /** A valid signed request sent twice, byte for byte: the second copy reuses the (keyid, nonce). */
  | { kind: 'replayed-nonce' };

const C = (reason: string) => `request_signature_${reason}`;

/**
 * One probe: the mutation, the key it is signed with (when the mutation does not pick one), and
 * under `covers_content_digest: either` whether content-digest is left uncovered (both are valid).
 */
export interface Probe {
  key: 'ed25519' | 'es256';
  uncoveredDigest: boolean;
  mutation: Mutation;
}

/** The codes the checklist names for a mutation (first: the expected one; the rest also allowed). */
export function expectedCodes(m: Mutation, policy: DigestPolicy): string[] {
  switch (m.kind) {
    case 'window':
      return [C('window_invalid')];
    case 'missing-param':
      return [C('params_incomplete')];
    case 'tag':
      return [C('tag_invalid')];
    case 'alg-not-allowed':
      return [C('alg_not_allowed')];
    case 'alg-key-mismatch':
      // Step 8 covers alg/kty/crv consistency; a crypto-first check answers invalid (as signatures.yaml allows).
      return [C('key_purpose_invalid'), C('invalid')];
    case 'keyid':
      return [C('key_unknown')];
    case 'key-role':
      return m.role === 'revoked' ? [C('key_revoked')] : [C('key_purpose_invalid')];
    case 'nonce':
      // The spec names no code for a bad nonce (digest 1.3, 7): malformed or incomplete, as signatures.yaml accepts.
      return [C('header_malformed'), C('params_incomplete')];
    case 'drop-component':
      return [C('components_incomplete')];
    case 'header':
      return [C('header_malformed')];
    case 'bad-signature':
    case 'covered-value-changed':
      return [C('invalid')];
    case 'digest-mismatch':
      return [C('digest_mismatch')];
    case 'digest-coverage':
      return policy === 'forbidden' ? [C('components_unexpected')] : [C('components_incomplete')];
    case 'duplicate-json-key':
      return ['request_body_malformed'];
    case 'replayed-nonce':
      return [C('replayed')];
    case 'malformed-target-uri':
      // A host with empty labels (two trailing dots), sent as the Host header: step 10 (digest 1.6, 1.9).
      return ['request_target_uri_malformed'];
  }
}

export function probeArb(policy: DigestPolicy): fc.Arbitrary<Probe> {
  return fc.record({
    key: fc.constantFrom('ed25519' as const, 'es256' as const),
    uncoveredDigest: policy === 'either' ? fc.boolean() : fc.constant(false),
    mutation: mutationArb(policy),
  });
}

/** Mutations for an agent declaring `covers_content_digest: policy` (digest 1.7). */
export function mutationArb(policy: DigestPolicy): fc.Arbitrary<Mutation> {
  const components = ['@method', '@target-uri', '@authority', 'content-type', ...(policy === 'required' ? ['content-digest' as const] : [])] as const;
  const arbs: fc.Arbitrary<Mutation>[] = [
    fc.record({
      kind: fc.constant('window' as const),
      variant: fc.constantFrom('created-in-future' as const, 'expired' as const, 'too-long' as const, 'inverted' as const),
      seconds: fc.nat(3000),
    }),
    fc.record({ kind: fc.constant('missing-param' as const), param: fc.constantFrom(...PARAM_ORDER) }),
    fc.record({
      kind: fc.constant('tag' as const),
      variant: fc.constantFrom('upper-case' as const, 'suffix' as const, 'prefix' as const, 'v2' as const, 'truncated' as const, 'webhook' as const),
    }),
    fc.constant({ kind: 'alg-not-allowed' as const }),
    fc.constant({ kind: 'alg-key-mismatch' as const }),
    fc.record({
      kind: fc.constant('keyid' as const),
      variant: fc.constantFrom('suffix' as const, 'prefix' as const, 'upper-case' as const, 'random' as const),
      salt: fc.nat(1_000_000),
    }),
    fc.record({
      kind: fc.constant('key-role' as const),
      role: fc.constantFrom('governance' as const, 'sign-only' as const, 'enc-use' as const, 'revoked' as const),
    }),
    fc.record({ kind: fc.constant('nonce' as const), variant: fc.constantFrom('short' as const, 'padded' as const), bytes: fc.integer({ min: 1, max: 15 }) }),
    fc.record({ kind: fc.constant('drop-component' as const), component: fc.constantFrom(...components) }),
    fc.record({
      kind: fc.constant('header' as const),
      defect: fc.constantFrom(
        'signature-without-input' as const,
        'input-without-signature' as const,
        'malformed-input' as const,
        'duplicate-label' as const,
        'unquoted-string-param' as const,
        'multi-valued-content-type' as const,
        'covered-header-absent' as const,
        'non-ascii-host' as const,
      ),
    }),
    fc.record({ kind: fc.constant('bad-signature' as const), byte: fc.nat(63), bit: fc.nat(7) }),
    fc.record({ kind: fc.constant('covered-value-changed' as const), component: fc.constantFrom('content-type' as const, '@target-uri' as const) }),
    fc.constant({ kind: 'duplicate-json-key' as const }),
    fc.constant({ kind: 'malformed-target-uri' as const }),
    fc.constant({ kind: 'replayed-nonce' as const }),
  ];
  if (policy !== 'forbidden')
    arbs.push(
      fc.record({
        kind: fc.constant('digest-mismatch' as const),
        where: fc.constantFrom('leading' as const, 'trailing' as const, 'after-open' as const, 'before-close' as const),
      }),
    );
  if (policy === 'forbidden') arbs.push(fc.constant({ kind: 'digest-coverage' as const, covered: true }));
  if (policy === 'required') arbs.push(fc.constant({ kind: 'digest-coverage' as const, covered: false }));
  return fc.oneof(...arbs);
}
