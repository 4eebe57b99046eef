import { describe, expect, it } from 'vitest';
import { sign as nodeSign } from 'node:crypto';
import { importPrivateJwk } from '../keys/keys.js';
import { keyStateFor, verifyWithState } from './key-state.js';
import { freshKey, ids } from '../testing/verifier-setup.js';

describe('keyStateFor', () => {
  it('gives the Step 8 verdict for the profile, member and alg asked', () => {
    const jwk = freshKey('ed25519');
    expect(keyStateFor(jwk, 'request', ids.keyUseMember, 'ed25519').policyFailure).toBeUndefined();
    expect(keyStateFor(jwk, 'request', ids.keyUseMember, 'ecdsa-p256-sha256').policyFailure).toBe('alg_mismatch');
    expect(keyStateFor(jwk, 'request', 'other_use', 'ed25519').policyFailure).toBe('purpose_mismatch');
    expect(keyStateFor(jwk, 'request', ids.keyUseMember, 'ed25519').policyFailure).toBeUndefined();
    const webhookKey = freshKey('ecdsa-p256-sha256', 'wh', 'webhook-signing');
    expect(keyStateFor(webhookKey, 'request', ids.keyUseMember, 'ecdsa-p256-sha256').policyFailure).toBe('purpose_mismatch');
    expect(keyStateFor(webhookKey, 'webhook', ids.keyUseMember, 'ecdsa-p256-sha256').policyFailure).toBeUndefined();
  });

  it('reports a key that cannot be imported', () => {
    const jwk = { ...freshKey('ecdsa-p256-sha256'), x: 'AAAA' };
    const st = keyStateFor(jwk, 'request', ids.keyUseMember, 'ecdsa-p256-sha256');
    expect(st.policyFailure).toBeUndefined();
    expect(st.importError).toMatch(/cannot import/);
    expect(verifyWithState(st, new Uint8Array(1), new Uint8Array(64))).toBe(false);
  });

  it('verifies both algorithms, with heap or Buffer signatures, and refuses bad ones', () => {
    for (const alg of ['ed25519', 'ecdsa-p256-sha256'] as const) {
      const jwk = freshKey(alg);
      const data = new TextEncoder().encode(`base for ${alg}`);
      const priv = importPrivateJwk(jwk);
      const sig = alg === 'ed25519' ? nodeSign(null, data, priv) : nodeSign('sha256', data, { key: priv, dsaEncoding: 'ieee-p1363' });
      const st = keyStateFor(jwk, 'request', ids.keyUseMember, alg);
      expect(verifyWithState(st, data, sig)).toBe(true);
      expect(verifyWithState(st, data, new Uint8Array(sig))).toBe(true);
      const bad = new Uint8Array(sig);
      bad[5]! ^= 1;
      expect(verifyWithState(st, data, bad)).toBe(false);
      expect(verifyWithState(st, data, sig.subarray(0, 63))).toBe(false);
    }
  });
});
