/**
 * The signature primitive used by the verifier. node:crypto was measured faster than
 * @noble/ed25519 for Ed25519 verification (see bench.ts), so node:crypto is used for both
 * algorithms. KeyObjects are imported once per JWK and cached.
 */
import { sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
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

/** ECDSA verify options per key, made once: `{ key, dsaEncoding: 'ieee-p1363' }`. */
const p1363Options = new WeakMap<KeyObject, { key: KeyObject; dsaEncoding: 'ieee-p1363' }>();

function p1363(key: KeyObject): { key: KeyObject; dsaEncoding: 'ieee-p1363' } {
  let options = p1363Options.get(key);
  if (options === undefined) {
    options = { key, dsaEncoding: 'ieee-p1363' };
    p1363Options.set(key, options);
  }
  return options;
}

/** Verify raw signature bytes over `data`. ECDSA signatures are IEEE P1363 r||s. */
export function verifyBytes(alg: SignatureAlg, key: KeyObject, data: Uint8Array, signature: Uint8Array): boolean {
  try {
    if (alg === 'ed25519') return nodeVerify(null, data, key, signature);
    if (signature.length !== 64) return false;
    return nodeVerify('sha256', data, p1363(key), signature);
  } catch {
    return false;
  }
}

/** Sign `data`; ECDSA output is IEEE P1363 r||s (64 bytes). */
export function signBytes(alg: SignatureAlg, key: KeyObject, data: Uint8Array): Buffer {
  if (alg === 'ed25519') return nodeSign(null, data, key);
  return nodeSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
}
