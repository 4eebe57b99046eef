/**
 * The mock seller's signing keys: a fresh Ed25519 webhook key per running seller (interface spec
 * 5.1), published in its JWKS with `<token>_use: request-signing` (a webhook-only key is a second
 * request-signing key with its own kid; digest 1.4); a governance key, published with
 * `<token>_use: governance-signing`, that signs the JWS accompanying a check_governance approval
 * (spec 4.3); and one key that is never published (the `webhook-key-unpublished` and
 * `governance-token-forged` faults sign with it).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { ProtocolIds } from '../../../harness/core/token.js';
import { publicJwk, signingKeyFromJwk, type Jwk, type SigningKey } from '../../../harness/core/signing/keys/keys.js';

export interface SellerWebhookKeys {
  /** The key that signs webhooks; its public half is in `jwks`. */
  signing: SigningKey;
  /** Signs governance approvals (check_governance); published with purpose governance-signing. */
  governance: SigningKey;
  /** Never published anywhere. */
  unpublished: SigningKey;
  /** The JWKS document served at `/.well-known/jwks.json`. */
  jwks: { keys: Jwk[] };
}

function ed25519Jwk(kid: string, ids: ProtocolIds, purpose = 'request-signing'): Jwk {
  const { privateKey } = generateKeyPairSync('ed25519');
  const priv = privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return { kid, kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', key_ops: ['verify'], [ids.keyUseMember]: purpose, x: priv.x, d: priv.d };
}

/** `deprecatedUsage`: the webhook key carries the deprecated webhook-signing purpose (fault webhook-key-deprecated-usage). */
export function createWebhookKeys(ids: ProtocolIds, opts: { deprecatedUsage?: boolean } = {}): SellerWebhookKeys {
  const suffix = randomBytes(6).toString('hex');
  const published = ed25519Jwk(`mock-seller-webhook-${suffix}`, ids, opts.deprecatedUsage ? 'webhook-signing' : 'request-signing');
  const governance = ed25519Jwk(`mock-seller-governance-${suffix}`, ids, 'governance-signing');
  const hidden = ed25519Jwk(`mock-seller-unpublished-${suffix}`, ids);
  return {
    signing: signingKeyFromJwk(published),
    governance: signingKeyFromJwk(governance),
    unpublished: signingKeyFromJwk(hidden),
    jwks: { keys: [publicJwk(published), publicJwk(governance)] },
  };
}
