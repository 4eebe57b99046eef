/**
 * JWK handling for the profile (digest 1.3, 1.4, 2.4): algorithm names, alg/kty/crv
 * consistency, the step-8 purpose policy on `<token>_use`, and import into node:crypto
 * KeyObjects (the `<token>_use` member and other extensions are stripped for import but kept
 * on the JWK for the policy check).
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { SignatureProfile } from '../codes.js';

/** A JWK as published (extension members allowed). */
export interface Jwk {
  kid?: string;
  kty?: string;
  crv?: string;
  alg?: string;
  use?: string;
  key_ops?: unknown;
  x?: string;
  y?: string;
  d?: string;
  /** Private scalar of the public test vectors; accepted by `importPrivateJwk`. */
  _private_d_for_test_only?: string;
  [member: string]: unknown;
}

/** `Signature-Input` alg values the profile allows. */
export type SignatureAlg = 'ed25519' | 'ecdsa-p256-sha256';
export const ALLOWED_SIG_ALGS: readonly SignatureAlg[] = ['ed25519', 'ecdsa-p256-sha256'];

export function isAllowedSigAlg(alg: string): alg is SignatureAlg {
  return alg === 'ed25519' || alg === 'ecdsa-p256-sha256';
}

/** JWK `alg` for each signature alg, and the key type it needs. */
export const SIG_ALG_JWK: Record<SignatureAlg, { alg: string; kty: string; crv: string }> = {
  ed25519: { alg: 'EdDSA', kty: 'OKP', crv: 'Ed25519' },
  'ecdsa-p256-sha256': { alg: 'ES256', kty: 'EC', crv: 'P-256' },
};

/** The signature alg a JWK can produce, or undefined when its parameters are inconsistent. */
export function sigAlgOfJwk(jwk: Jwk): SignatureAlg | undefined {
  for (const alg of ALLOWED_SIG_ALGS) {
    const want = SIG_ALG_JWK[alg];
    if (jwk.kty !== want.kty || jwk.crv !== want.crv) continue;
    if (jwk.alg !== undefined && jwk.alg !== want.alg) return undefined;
    if (typeof jwk.x !== 'string') return undefined;
    if (want.kty === 'EC' && typeof jwk.y !== 'string') return undefined;
    if (want.kty === 'OKP' && jwk.y !== undefined) return undefined;
    return alg;
  }
  return undefined;
}

const REQUEST_KEY_USES: readonly string[] = Object.freeze(['request-signing']);
const WEBHOOK_KEY_USES: readonly string[] = Object.freeze(['request-signing', 'webhook-signing']);

/** Purposes accepted at step 8: requests need `request-signing`; webhooks also take the deprecated `webhook-signing`. */
export function acceptedKeyUses(profile: SignatureProfile): readonly string[] {
  return profile === 'request' ? REQUEST_KEY_USES : WEBHOOK_KEY_USES;
}

export type KeyPolicyFailure = 'use_not_sig' | 'key_ops_missing_verify' | 'purpose_mismatch' | 'inconsistent_parameters' | 'alg_mismatch';

/**
 * Step 8: `use=sig`, `key_ops` contains `verify`, `<token>_use` accepted for the profile
 * (absent fails), alg/kty/crv consistent, and the JWK's algorithm equals the signature's.
 * Returns undefined when the key is acceptable.
 */
export function checkKeyPolicy(jwk: Jwk, opts: { profile: SignatureProfile; keyUseMember: string; sigAlg: SignatureAlg }): KeyPolicyFailure | undefined {
  return keyPolicyFailure(jwk, opts.profile, opts.keyUseMember, opts.sigAlg);
}

/** `checkKeyPolicy` with positional arguments (the verifier's per-request form). */
export function keyPolicyFailure(jwk: Jwk, profile: SignatureProfile, keyUseMember: string, sigAlg: SignatureAlg): KeyPolicyFailure | undefined {
  if (jwk.use !== 'sig') return 'use_not_sig';
  if (!Array.isArray(jwk.key_ops) || !jwk.key_ops.includes('verify')) return 'key_ops_missing_verify';
  const purpose = jwk[keyUseMember];
  if (typeof purpose !== 'string' || !acceptedKeyUses(profile).includes(purpose)) return 'purpose_mismatch';
  const keyAlg = sigAlgOfJwk(jwk);
  if (keyAlg === undefined) return 'inconsistent_parameters';
  if (keyAlg !== sigAlg) return 'alg_mismatch';
  return undefined;
}

export class KeyImportError extends Error {
  override name = 'KeyImportError';
}

/** Import the public half of a JWK (extension members stripped). */
export function importPublicJwk(jwk: Jwk): KeyObject {
  const bare: Record<string, string> = { kty: String(jwk.kty), crv: String(jwk.crv), x: String(jwk.x) };
  if (jwk.kty === 'EC') bare.y = String(jwk.y);
  try {
    return createPublicKey({ key: bare, format: 'jwk' });
  } catch (err) {
    throw new KeyImportError(`cannot import JWK ${jwk.kid ?? '(no kid)'}: ${(err as Error).message}`);
  }
}

/** Import a private JWK (`d`, or the test vectors' `_private_d_for_test_only`). */
export function importPrivateJwk(jwk: Jwk): KeyObject {
  const d = jwk.d ?? jwk._private_d_for_test_only;
  if (typeof d !== 'string') throw new KeyImportError(`JWK ${jwk.kid ?? '(no kid)'} has no private scalar`);
  const bare: Record<string, string> = { kty: String(jwk.kty), crv: String(jwk.crv), x: String(jwk.x), d };
  if (jwk.kty === 'EC') bare.y = String(jwk.y);
  try {
    return createPrivateKey({ key: bare, format: 'jwk' });
  } catch (err) {
    throw new KeyImportError(`cannot import private JWK ${jwk.kid ?? '(no kid)'}: ${(err as Error).message}`);
  }
}

/** The public JWK members only (what a JWKS publishes): private members removed. */
export function publicJwk(jwk: Jwk): Jwk {
  const { d: _d, _private_d_for_test_only: _t, ...rest } = jwk;
  return rest;
}

/** A key ready to sign: its kid, profile alg and private KeyObject. */
export interface SigningKey {
  kid: string;
  alg: SignatureAlg;
  privateKey: KeyObject;
}

/** Build a SigningKey from a private JWK. */
export function signingKeyFromJwk(jwk: Jwk): SigningKey {
  const alg = sigAlgOfJwk(jwk);
  if (!alg || typeof jwk.kid !== 'string') throw new KeyImportError(`JWK ${jwk.kid ?? '(no kid)'} is not a usable signing key`);
  return { kid: jwk.kid, alg, privateKey: importPrivateJwk(jwk) };
}
