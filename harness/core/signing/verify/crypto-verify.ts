/**
 * The signature primitives on node:crypto (measured faster than @noble/ed25519 for Ed25519, see
 * bench.ts): the public KeyObject of a JWK, imported once per JWK and cached (the verifier's
 * key-state.ts verifies with it), and signing.
 */
import { sign as nodeSign, type KeyObject } from 'node:crypto';
import { importPublicJwk, type Jwk, type SignatureAlg } from '../keys/keys.js';

const keyCache = new WeakMap<Jwk, KeyObject>();

/** The KeyObject of a JWK, imported on first use. Throws KeyImportError. */
export function publicKeyOf(jwk: Jwk): KeyObject {
  let key = keyCache.get(jwk);
  if (!key) {
    key = importPublicJwk(jwk);
    keyCache.set(jwk, key);
  }
  return key;
}

/** Sign `data`; ECDSA output is IEEE P1363 r||s (64 bytes). */
export function signBytes(alg: SignatureAlg, key: KeyObject, data: Uint8Array): Buffer {
  if (alg === 'ed25519') return nodeSign(null, data, key);
  return nodeSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
}
