/**
 * The harness acting as a seller towards a buyer's webhook receiver (webhook-receiver suite).
 * It signs webhooks with its own TEST-ONLY keys (fixtures/signing/keys.json) and publishes them
 * the way a seller must (interface spec 5.1, digest 1.11): a brand declaration whose `agents[]`
 * entries carry a `jwks_uri`, plus a publisher declaration pinning the kids in `signing_keys[]`.
 *
 * Three sender identities are published, one per `agents[]` entry, so the flood probe (dedup bound,
 * 429) never eats into the dedup budget of the others:
 *   main    <base>/senders/main     key own-ed25519-2026
 *   flood   <base>/senders/flood    key own-es256-2026
 *   second  <base>/senders/second   key own-revoked-2026 (another sender, for per-sender dedup; a
 *           request-signing key the harness revokes nowhere, its name comes from the vector set)
 * More keys sign as the main sender, each in its JWKS:
 *   unpinned          own-webhook-request-purpose-2026   left out of the publisher's pin: a receiver
 *                     applying the pin refuses what it signs (digest 1.11 step 6)
 *   webhook-usage     own-webhook-ed25519-2026           pinned, the deprecated `webhook-signing` usage,
 *                     still accepted (interface spec 5.1, digest 1.16 step 8)
 *   response-purpose  own-webhook-response-purpose-2026  pinned, `response-signing`: key_purpose_invalid
 *   no-purpose        own-webhook-no-purpose-2026        pinned, no key-purpose member: key_purpose_invalid
 *
 * A receiver under test must trust `<base>/.well-known/brand.json` (a loopback http URL: the
 * receiver needs a test-only "insecure loopback" trust setting).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { DEFAULT_TOKEN, protocolIds, type ProtocolIds } from '../../token.js';
import { publicJwk, signingKeyFromJwk, type Jwk, type SigningKey } from '../../signing/keys/keys.js';
import { signRequest, type SignedRequest } from '../../signing/sign/signer.js';
import type { DefectName } from '../../signing/sign/defects.js';
import { baseUrlOf, listen } from '../../net/listen.js';

/** A signing key of the harness sender; the roles other than `main` and `flood` sign as the main sender. */
export type SenderRole = 'main' | 'flood' | 'second' | 'unpinned' | 'webhook-usage' | 'response-purpose' | 'no-purpose';
/** The roles with an `agents[]` entry (a sender identity) of their own. */
type AgentRole = 'main' | 'flood' | 'second';
const AGENT_ROLES: readonly AgentRole[] = ['main', 'flood', 'second'];
export const SENDER_ROLES: readonly SenderRole[] = [...AGENT_ROLES, 'unpinned', 'webhook-usage', 'response-purpose', 'no-purpose'];
/** The identity each key signs as. */
const AGENT_OF: Record<SenderRole, AgentRole> = {
  main: 'main',
  flood: 'flood',
  second: 'second',
  unpinned: 'main',
  'webhook-usage': 'main',
  'response-purpose': 'main',
  'no-purpose': 'main',
};
/** Keys the publisher's `signing_keys[]` pin lists: all but `unpinned`. */
const PINNED: readonly SenderRole[] = SENDER_ROLES.filter((r) => r !== 'unpinned');

const KEY_IDS: Record<SenderRole, string> = {
  main: 'own-ed25519-2026',
  flood: 'own-es256-2026',
  second: 'own-revoked-2026',
  unpinned: 'own-webhook-request-purpose-2026',
  'webhook-usage': 'own-webhook-ed25519-2026',
  'response-purpose': 'own-webhook-response-purpose-2026',
  'no-purpose': 'own-webhook-no-purpose-2026',
};
const KEYS_FILE = new URL('../../../../fixtures/signing/keys.json', import.meta.url);
/** The fixture file spells the key-purpose member with the default token. */
const FIXTURE_KEY_USE = protocolIds(DEFAULT_TOKEN).keyUseMember;

export const BRAND_PATH = '/.well-known/brand.json';
export const PUBLISHER_PATH = '/.well-known/adagents.json';

export interface SenderIdentity {
  readonly ids: ProtocolIds;
  /** What the receiver under test must trust. */
  readonly brandJsonUrl: string;
  /** Publisher declaration pinning the sender kids (`signing_keys[]`). */
  readonly publisherDeclarationUrl: string;
  /** `agents[].url` each key signs as: the sender identity a receiver dedups under. */
  readonly agentUrls: Readonly<Record<SenderRole, string>>;
  readonly keys: Readonly<Record<SenderRole, SigningKey>>;
  /** Public JWK of each role, with `<token>_use` spelled for the run's token. */
  readonly publicKeys: Readonly<Record<SenderRole, Jwk>>;
  close(): Promise<void>;
}

let fixtureKeys: Jwk[] | undefined;

function loadFixtureKey(kid: string, ids: ProtocolIds): Jwk {
  fixtureKeys ??= (JSON.parse(readFileSync(KEYS_FILE, 'utf8')) as { keys: Jwk[] }).keys;
  const jwk = fixtureKeys.find((k) => k.kid === kid);
  if (!jwk) throw new Error(`fixtures/signing/keys.json has no key ${kid}`);
  const out: Jwk = { ...jwk };
  if (FIXTURE_KEY_USE !== ids.keyUseMember && FIXTURE_KEY_USE in out) {
    out[ids.keyUseMember] = out[FIXTURE_KEY_USE];
    delete out[FIXTURE_KEY_USE];
  }
  return out;
}

function trimBase(base: string): string {
  return base.replace(/\/+$/, '');
}

/** The documents the identity serves under `base` (scheme://host:port). */
export function identityDocuments(base: string, ids: ProtocolIds): Map<string, unknown> {
  const b = trimBase(base);
  const docs = new Map<string, unknown>();
  const agents = AGENT_ROLES.map((role) => ({ type: 'sales', url: `${b}/senders/${role}`, jwks_uri: `${b}/senders/${role}/jwks.json` }));
  docs.set(BRAND_PATH, {
    house: { domain: 'proto-comply.invalid', name: 'proto-comply harness test sender (TEST-ONLY keys)' },
    brands: [],
    agents,
  });
  const pub = (role: SenderRole) => publicJwk(loadFixtureKey(KEY_IDS[role], ids));
  for (const role of AGENT_ROLES) {
    const others = SENDER_ROLES.filter((r) => r !== role && AGENT_OF[r] === role).map(pub);
    docs.set(`/senders/${role}/jwks.json`, { keys: [pub(role), ...others] });
  }
  const pinned = PINNED.map(pub);
  docs.set(PUBLISHER_PATH, {
    version: '1.0',
    publisher: { name: 'proto-comply test publisher', domain: 'proto-comply.invalid' },
    agents: agents.map((a) => ({ url: a.url, protocol: 'mcp', capabilities: [] })),
    signing_keys: pinned,
  });
  return docs;
}

/**
 * The identity published at `brandJsonUrl` by someone else (a server started earlier with
 * `startSenderIdentity`): keys and agent URLs only, nothing to close.
 */
export function senderIdentityAt(brandJsonUrl: string, token: string = DEFAULT_TOKEN): SenderIdentity {
  const ids = protocolIds(token);
  const url = new URL(brandJsonUrl);
  if (url.pathname !== BRAND_PATH) throw new Error(`sender brand URL must end in ${BRAND_PATH}, got ${JSON.stringify(brandJsonUrl)}`);
  const base = url.origin;
  const keys = {} as Record<SenderRole, SigningKey>;
  const publicKeys = {} as Record<SenderRole, Jwk>;
  const agentUrls = {} as Record<SenderRole, string>;
  for (const role of SENDER_ROLES) {
    const jwk = loadFixtureKey(KEY_IDS[role], ids);
    keys[role] = signingKeyFromJwk(jwk);
    publicKeys[role] = publicJwk(jwk);
    agentUrls[role] = `${base}/senders/${AGENT_OF[role]}`;
  }
  return {
    ids,
    brandJsonUrl: `${base}${BRAND_PATH}`,
    publisherDeclarationUrl: `${base}${PUBLISHER_PATH}`,
    agentUrls,
    keys,
    publicKeys,
    close: async () => {},
  };
}

export interface StartSenderIdentityOptions {
  token?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). A fixed port gives a stable brand URL to configure in the receiver. */
  port?: number;
}

/** Serve brand.json, the JWKS and the publisher pin on a small loopback HTTP server. */
export async function startSenderIdentity(opts: StartSenderIdentityOptions = {}): Promise<SenderIdentity> {
  const ids = protocolIds(opts.token ?? DEFAULT_TOKEN);
  const host = opts.host ?? '127.0.0.1';
  let docs = new Map<string, unknown>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const doc = req.method === 'GET' || req.method === 'HEAD' ? docs.get(path) : undefined;
    if (doc === undefined) {
      res.writeHead(req.method === 'GET' || req.method === 'HEAD' ? 404 : 405, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    const body = JSON.stringify(doc);
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300', 'content-length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  server.keepAliveTimeout = 2_000;
  const base = baseUrlOf(await listen(server, opts.port ?? 0, host));
  docs = identityDocuments(base, ids);
  const identity = senderIdentityAt(`${base}${BRAND_PATH}`, ids.token);
  return {
    ...identity,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface SignWebhookOptions {
  role?: SenderRole;
  /** Default `application/json`. The value is covered by the signature as sent. */
  contentType?: string;
  defects?: readonly DefectName[];
  /** Unix seconds. */
  now?: () => number;
  /**
   * Content-Digest value in padded standard base64 (`strict`) instead of unpadded base64url, as the
   * webhook vectors carry it (digest 2.3); the Signature stays base64url.
   */
  standardDigest?: boolean;
}

/** Sign one webhook POST with the RFC 9421 webhook profile (five components, webhook tag). */
export function signWebhook(identity: SenderIdentity, url: string, body: Uint8Array, opts: SignWebhookOptions = {}): SignedRequest {
  return signRequest(
    { method: 'POST', url, headers: { 'Content-Type': opts.contentType ?? 'application/json' }, body },
    {
      profile: 'webhook',
      ids: identity.ids,
      key: identity.keys[opts.role ?? 'main'],
      encoding: 'legacy',
      defects: opts.defects,
      now: opts.now,
      ...(opts.standardDigest ? { digestEncoding: 'strict' as const } : {}),
    },
  );
}
