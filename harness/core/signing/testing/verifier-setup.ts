/** Shared helpers for this directory's tests: fresh keys and verifier contexts. */
import { protocolIds } from '../../token.js';
import type { BinaryEncoding } from '../parse/base64.js';
import type { SignatureProfile } from '../codes.js';
import { StaticKeyResolver } from '../keys/key-resolver.js';
import { signingKeyFromJwk, type Jwk, type SignatureAlg } from '../keys/keys.js';
import { InMemoryReplayCache } from '../verify/replay-cache.js';
import type { VerifyContext } from '../verify/verifier-types.js';
import { generateJwk } from '../../../../fixtures/signing/vector-builder.js';

export const ids = protocolIds('proto');
export const NOW = 1776520800;

export function freshKey(alg: SignatureAlg, kid = `test-${alg}`, purpose: string | null = 'request-signing'): Jwk {
  return generateJwk({ kid, alg, purpose }, ids);
}

export function signingKey(jwk: Jwk) {
  return signingKeyFromJwk(jwk);
}

export interface Setup {
  profile: SignatureProfile;
  encoding: BinaryEncoding;
  label: string;
}

export const SETUPS: readonly Setup[] = [
  { profile: 'request', encoding: 'legacy', label: 'request 3.1' },
  { profile: 'request', encoding: 'strict', label: 'request 3.2' },
  { profile: 'webhook', encoding: 'legacy', label: 'webhook' },
];

export function context(setup: Setup, keys: Jwk[], extra: Partial<VerifyContext> = {}): VerifyContext {
  return {
    profile: setup.profile,
    ids,
    encoding: setup.encoding,
    capability: setup.profile === 'request' ? { supported: true, covers_content_digest: 'required', required_for: ['create_media_buy'] } : undefined,
    digestPolicy: 'required',
    operation: 'create_media_buy',
    now: () => NOW,
    keys: new StaticKeyResolver(keys, 'https://agent.example.com/mcp'),
    replayCache: new InMemoryReplayCache({ perKeyidCap: 1000 }),
    ...extra,
  };
}
