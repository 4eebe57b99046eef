/**
 * Step 7: how the verifier turns a `keyid` into a JWK. Resolvers report failures with a
 * profile-neutral reason (`key_unknown`, `jwks_unavailable`, `brand_json_*`, ...). The JWKS
 * resolver over brand.json lives in jwks-resolver.ts; this file has the interface and a
 * static resolver (vectors, tests, pre-shared test counterparties).
 */
import type { FailureReason } from '../codes.js';
import type { Jwk } from './keys.js';

export interface ResolvedKey {
  jwk: Jwk;
  /** `url` of the brand.json `agents[]` entry whose JWKS held the key, when known. */
  agentUrl?: string;
}

export type KeyLookup = { ok: true; key: ResolvedKey } | { ok: false; reason: FailureReason; detail: string };

export interface KeyResolver {
  /** May answer synchronously (static sets) or asynchronously (fetched JWKS). */
  resolve(keyid: string): KeyLookup | Promise<KeyLookup>;
}

/** A fixed key set. Duplicate kids are refused at construction (kids are unique per JWKS). */
export class StaticKeyResolver implements KeyResolver {
  /** kid → its (successful) lookup, made once. */
  private readonly byKid = new Map<string, KeyLookup>();

  constructor(keys: readonly Jwk[], agentUrl?: string) {
    for (const jwk of keys) {
      if (typeof jwk.kid !== 'string') continue;
      if (this.byKid.has(jwk.kid)) throw new Error(`duplicate kid ${jwk.kid} in key set`);
      this.byKid.set(jwk.kid, Object.freeze({ ok: true, key: Object.freeze({ jwk, agentUrl }) }));
    }
  }

  /** The last kid found and its lookup: one sender's requests carry one kid. */
  private lastKid: string | undefined;
  private lastLookup: KeyLookup | undefined;

  resolve(keyid: string): KeyLookup {
    if (keyid === this.lastKid) return this.lastLookup!;
    const found = this.byKid.get(keyid);
    if (found === undefined) return { ok: false, reason: 'key_unknown', detail: `no key with kid ${JSON.stringify(keyid)}` };
    this.lastKid = keyid;
    this.lastLookup = found;
    return found;
  }
}
