/**
 * The mock seller's webhook signing keys (interface spec 5.1): a fresh Ed25519 key per running
 * seller, published in its JWKS with `<token>_use: request-signing` (a webhook-only key is a
 * second request-signing key with its own kid; digest 1.4), plus one key that is never
 * published (used only by the `webhook-key-unpublished` fault).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { ProtocolIds } from '../../../harness/token.js';
import { publicJwk, signingKeyFromJwk, type Jwk, type SigningKey } from '../../../harness/signing/keys/keys.js';

export interface SellerWebhookKeys {
  /** The key that signs webhooks; its public half is in `jwks`. */
  signing: SigningKey;
  /** Never published anywhere. */
  unpublished: SigningKey;
  /** The JWKS document served at `/.well-known/jwks.json`. */
  jwks: { keys: Jwk[] };
}

function ed25519Jwk(kid: string, ids: ProtocolIds): Jwk {
  const { privateKey } = generateKeyPairSync('ed25519');
  const priv = privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return { kid, kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', key_ops: ['verify'], [ids.keyUseMember]: 'request-signing', x: priv.x, d: priv.d };
}

export function createWebhookKeys(ids: ProtocolIds): SellerWebhookKeys {
  const suffix = randomBytes(6).toString('hex');
  const published = ed25519Jwk(`mock-seller-webhook-${suffix}`, ids);
  const hidden = ed25519Jwk(`mock-seller-unpublished-${suffix}`, ids);
  return {
    signing: signingKeyFromJwk(published),
    unpublished: signingKeyFromJwk(hidden),
    jwks: { keys: [publicJwk(published)] },
  };
}
