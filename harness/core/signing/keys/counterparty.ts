/**
 * The harness as a registered test counterparty of a live agent (digest 2.6, runner contract of
 * the signed-requests suite): the TEST-ONLY keys the `signatures` suite signs with, the public
 * JWKS an agent is configured to trust, the key id the agent pre-revokes and the per-keyid cap
 * it applies to this counterparty.
 *
 * Keys come from our own fixtures (fixtures/signing/keys.json, plus the rate-cap and
 * webhook-usage keys in fixtures/signing/counterparty-keys.json), written with the default token; the purpose member
 * is re-spelled for the token in use (`<token>_use`). Never trust these keys in production.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TOKEN, protocolIds, type ProtocolIds } from '../../token.js';
import { publicJwk, signingKeyFromJwk, type Jwk, type SigningKey } from './keys.js';

/** What each counterparty key is for in the live probes. */
export const COUNTERPARTY_ROLES = ['ed25519', 'es256', 'revoked', 'governance', 'sign-only', 'enc-use', 'rate-cap', 'webhook-usage'] as const;
export type CounterpartyRole = (typeof COUNTERPARTY_ROLES)[number];

const ROLE_KIDS: Record<CounterpartyRole, string> = {
  ed25519: 'own-ed25519-2026',
  es256: 'own-es256-2026',
  revoked: 'own-revoked-2026',
  governance: 'own-gov-2026',
  'sign-only': 'own-sign-only-2026',
  'enc-use': 'own-enc-use-2026',
  'rate-cap': 'own-ratecap-2026',
  'webhook-usage': 'own-webhook-usage-2026',
};

/** The key id of a counterparty key (the same for every token). */
export const counterpartyKid = (role: CounterpartyRole): string => ROLE_KIDS[role];

export const ROLE_DESCRIPTIONS: Record<CounterpartyRole, string> = {
  ed25519: 'main Ed25519 signer (request-signing)',
  es256: 'ES256 signer (request-signing)',
  revoked: 'request-signing key the agent must treat as revoked',
  governance: 'governance-signing key: step 8 must refuse it for requests',
  'sign-only': 'key_ops ["sign"] without "verify": step 8 must refuse it',
  'enc-use': 'use "enc" instead of "sig": step 8 must refuse it',
  'rate-cap': 'request-signing key reserved for the per-keyid cap probe',
  'webhook-usage': 'deprecated webhook-signing usage: accepted on the webhook path only, step 8 must refuse it for requests',
};

/**
 * Per-keyid replay-cache cap the agent applies to this counterparty: the runner contract's
 * `grading_target_per_keyid_cap_requests` (the production floor stays 1,000,000 for others).
 */
export const TEST_COUNTERPARTY_PER_KEYID_CAP = 100;
/** The agent's replay TTL for this counterparty must be at least this (contract `min_replay_ttl_seconds`). */
export const TEST_COUNTERPARTY_MIN_REPLAY_TTL_SECONDS = 10;

const FIXTURE_FILES = ['../../../../fixtures/signing/keys.json', '../../../../fixtures/signing/counterparty-keys.json'];
/** The fixtures are written with the default token. */
const FIXTURE_IDS = protocolIds(DEFAULT_TOKEN);

let fixtureCache: Map<string, Jwk> | undefined;

function fixtureKeys(): Map<string, Jwk> {
  if (!fixtureCache) {
    const byKid = new Map<string, Jwk>();
    for (const rel of FIXTURE_FILES) {
      const doc = JSON.parse(readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8')) as { keys?: Jwk[] };
      for (const k of doc.keys ?? []) if (typeof k.kid === 'string') byKid.set(k.kid, k);
    }
    for (const [role, kid] of Object.entries(ROLE_KIDS)) {
      if (!byKid.has(kid)) throw new Error(`test counterparty key ${kid} (${role}) is missing from the signing fixtures`);
    }
    fixtureCache = byKid;
  }
  return fixtureCache;
}

/** A fixture key with its purpose member spelled for `ids` (private scalar kept). */
function retokened(jwk: Jwk, ids: ProtocolIds): Jwk {
  const out: Jwk = {};
  for (const [name, value] of Object.entries(jwk)) {
    out[name === FIXTURE_IDS.keyUseMember ? ids.keyUseMember : name] = value;
  }
  return out;
}

export interface CounterpartyKeys {
  ids: ProtocolIds;
  /** The public JWKS an agent trusts for the test counterparty (no private members). */
  jwks: { keys: Jwk[] };
  kid(role: CounterpartyRole): string;
  /** The private key of a role, ready for `signRequest`. */
  signingKey(role: CounterpartyRole): SigningKey;
  /** Key ids the agent must pre-revoke. */
  revokedKids: string[];
  /** Cap the agent applies per keyid of this counterparty. */
  perKeyidCap: number;
}

const cache = new Map<string, CounterpartyKeys>();

export function counterpartyKeys(ids: ProtocolIds): CounterpartyKeys {
  const hit = cache.get(ids.token);
  if (hit) return hit;
  const fixtures = fixtureKeys();
  const privateJwks = new Map<CounterpartyRole, Jwk>(COUNTERPARTY_ROLES.map((r) => [r, retokened(fixtures.get(ROLE_KIDS[r])!, ids)]));
  const signing = new Map<CounterpartyRole, SigningKey>();
  const keys: CounterpartyKeys = {
    ids,
    jwks: { keys: COUNTERPARTY_ROLES.map((r) => publicJwk(privateJwks.get(r)!)) },
    kid: (role) => ROLE_KIDS[role],
    signingKey(role) {
      let k = signing.get(role);
      if (!k) {
        k = signingKeyFromJwk(privateJwks.get(role)!);
        signing.set(role, k);
      }
      return k;
    },
    revokedKids: [ROLE_KIDS.revoked],
    perKeyidCap: TEST_COUNTERPARTY_PER_KEYID_CAP,
  };
  cache.set(ids.token, keys);
  return keys;
}

/**
 * A second test counterparty holding only one key of an impossible parameter combination
 * (digest 1.4, vector 025 shape): `alg: "EdDSA"` on an EC P-256 key (the ES256 fixture's
 * public half, under its own kid). Kept out of the main JWKS, so a strict loader that refuses
 * a whole set with such a key breaks no other probe. Probes under it declare `alg="ed25519"`
 * (the JWK's claim); their bytes are an ECDSA signature, never reached by step 10.
 */
export const IMPOSSIBLE_JWK_KID = 'own-impossible-2026';

/** The kid of a counterparty key, or of the separate impossible-key counterparty's. */
export type ProbeKey = CounterpartyRole | 'impossible-jwk';
export const probeKid = (key: ProbeKey): string => (key === 'impossible-jwk' ? IMPOSSIBLE_JWK_KID : ROLE_KIDS[key]);

export function impossibleJwkCounterparty(ids: ProtocolIds): { jwks: { keys: Jwk[] }; signingKey: SigningKey } {
  const keys = counterpartyKeys(ids);
  const es256 = keys.jwks.keys.find((k) => k.kid === ROLE_KIDS.es256)!;
  return {
    jwks: { keys: [{ ...es256, kid: IMPOSSIBLE_JWK_KID, alg: 'EdDSA' }] },
    signingKey: { ...keys.signingKey('es256'), kid: IMPOSSIBLE_JWK_KID },
  };
}

/** The agent-side configuration the `signatures` suite assumes, as a JSON document. */
export function agentConfiguration(ids: ProtocolIds): Record<string, unknown> {
  const keys = counterpartyKeys(ids);
  return {
    $comment: 'TEST-ONLY: configure these for the proto-comply test counterparty only (sandbox or staging), never in production trust stores.',
    trusted_jwks: keys.jwks,
    key_roles: Object.fromEntries(COUNTERPARTY_ROLES.map((r) => [keys.kid(r), ROLE_DESCRIPTIONS[r]])),
    pre_revoked_kids: keys.revokedKids,
    per_keyid_cap: { requests: keys.perKeyidCap, applies_to: 'each keyid of this counterparty' },
    min_replay_ttl_seconds: TEST_COUNTERPARTY_MIN_REPLAY_TTL_SECONDS,
    signature_encoding: 'base64url, unpadded (3.1 black-box contract)',
    tag: ids.requestSigningTag,
    impossible_key_counterparty: {
      $comment:
        'TEST-ONLY: a second counterparty (its own trust entry, apart from trusted_jwks) whose only key is impossible (alg EdDSA on an EC P-256 key, digest 1.4): requests under it must be refused key_purpose_invalid',
      trusted_jwks: impossibleJwkCounterparty(ids).jwks,
    },
  };
}
