/**
 * Per-key verifier state, made once per resolved JWK object: the Step 8 policy verdict for the
 * (profile, key-use member, alg) it was last asked about, the imported KeyObject (or the import
 * error) and the ready-made options of the verify call. Like the KeyObject cache in
 * crypto-verify.ts, it treats a resolved JWK object as immutable: resolvers hand out new
 * objects when key sets change.
 */
import { verify as nodeVerify, type KeyObject } from 'node:crypto';
import type { SignatureProfile } from '../codes.js';
import { publicKeyOf } from './crypto-verify.js';
import { keyPolicyFailure, type Jwk, type KeyPolicyFailure, type SignatureAlg } from '../keys/keys.js';

type VerifyKey = KeyObject | { key: KeyObject; dsaEncoding: 'ieee-p1363' };

export interface KeyState {
  /** Step 8 policy failure for the last (profile, member, alg) asked, or undefined. */
  policyFailure: KeyPolicyFailure | undefined;
  /** Import failure message, when the JWK cannot be imported. */
  importError: string | undefined;
  alg: SignatureAlg;
  /** What `crypto.verify` takes for this key and alg. */
  verifyKey: VerifyKey | undefined;
  profile: SignatureProfile;
  keyUseMember: string;
}

const states = new WeakMap<Jwk, KeyState>();
/** The last JWK asked about and its state: one sender's requests resolve to one key object. */
let lastJwk: Jwk | undefined;
let lastState: KeyState | undefined;

/** Step 8 for `jwk` under the given profile, member and alg, with the key ready to verify. */
export function keyStateFor(jwk: Jwk, profile: SignatureProfile, keyUseMember: string, alg: SignatureAlg): KeyState {
  const st = jwk === lastJwk ? lastState : states.get(jwk);
  if (st !== undefined && st.profile === profile && st.keyUseMember === keyUseMember && st.alg === alg) {
    lastJwk = jwk;
    lastState = st;
    return st;
  }
  const fresh: KeyState = {
    policyFailure: keyPolicyFailure(jwk, profile, keyUseMember, alg),
    importError: undefined,
    alg,
    verifyKey: undefined,
    profile,
    keyUseMember,
  };
  if (fresh.policyFailure === undefined) {
    try {
      const key = publicKeyOf(jwk);
      fresh.verifyKey = alg === 'ed25519' ? key : { key, dsaEncoding: 'ieee-p1363' };
    } catch (err) {
      fresh.importError = (err as Error).message;
    }
  }
  states.set(jwk, fresh);
  lastJwk = jwk;
  lastState = fresh;
  return fresh;
}

/**
 * 64-byte signatures are copied here before the call: native code reads an ArrayBuffer-backed
 * array as it is, while a small heap-allocated Uint8Array would first be moved off-heap.
 */
const SIGNATURE_SCRATCH = new Uint8Array(new ArrayBuffer(64));

/**
 * `verifyWithState` on libuv's thread pool. The bytes are copied first: the caller's views may be
 * reused (the signature scratch above) before the pool thread reads them.
 */
export function verifyWithStateOffloaded(st: KeyState, data: Uint8Array, signature: Uint8Array): Promise<boolean> {
  const vk = st.verifyKey;
  if (vk === undefined || (st.alg !== 'ed25519' && signature.length !== 64)) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    try {
      nodeVerify(st.alg === 'ed25519' ? null : 'sha256', Buffer.from(data), vk, Buffer.from(signature), (err, ok) => resolve(!err && ok));
    } catch {
      resolve(false);
    }
  });
}

/** Verify raw signature bytes over `data` with a prepared key (ECDSA signatures are IEEE P1363 r||s). */
export function verifyWithState(st: KeyState, data: Uint8Array, signature: Uint8Array): boolean {
  const vk = st.verifyKey;
  if (vk === undefined) return false;
  if (signature.length === 64 && !Buffer.isBuffer(signature)) {
    SIGNATURE_SCRATCH.set(signature);
    signature = SIGNATURE_SCRATCH;
  }
  try {
    if (st.alg === 'ed25519') return nodeVerify(null, data, vk as KeyObject, signature);
    return signature.length === 64 && nodeVerify('sha256', data, vk, signature);
  } catch {
    return false;
  }
}
