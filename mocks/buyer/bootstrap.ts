/**
 * Discovering a seller's webhook keys from its agent URL A (digest 1.11, "bootstrap from an agent
 * URL", steps 1-8), for endpoints registered for one seller agent (`senderAgent`):
 *   1. get_<token>_capabilities on A over MCP (initialize, tools/call), SSRF-safe, no redirects,
 *      5 s connect / 10 s total / 64 KiB, else capabilities_unreachable;
 *   2. identity.brand_json_url present and https, else brand_json_url_missing;
 *   3. A and brand_json_url under one eTLD+1 (tldts, its bundled Public Suffix List with the
 *      PRIVATE section), else brand_origin_mismatch (authorized_operators[] is not read: such a
 *      brand.json is refused too);
 *   4-8. brand.json (256 KiB, strict parse, no redirects), the agents[] entry byte-equal to A,
 *      the declared key origin of webhook_signing against the jwks_uri host (7), the JWKS (64 KiB),
 *      a kid miss refetching at once with a 30 s cooldown (BrandJwksResolver).
 * Discovery results are cached like brand.json: successes for the trust TTL, failures 60 s.
 * The fault switches, each breaking one step, are marked `faults.has`.
 */
import { domainToASCII } from 'node:url';
import { getDomain } from 'tldts';
import { request } from 'undici';
import type { ProtocolIds } from '../../harness/core/token.js';
import type { FailureReason } from '../../harness/core/signing/codes.js';
import { BrandJwksResolver, FAILURE_CACHE_SECONDS, JWKS_MAX_BYTES } from '../../harness/core/signing/keys/jwks-resolver.js';
import type { KeyLookup, KeyResolver } from '../../harness/core/signing/keys/key-resolver.js';
import { AddressPolicy, type ResolvedAddress } from '../../harness/core/net/address-policy.js';
import { policyAgent } from '../../harness/core/net/pinned-connector.js';
import { createSafeFetcher, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_TOTAL_TIMEOUT_MS, type DocumentFetcher } from '../../harness/core/net/safe-fetch.js';
import { scanDuplicateKeys } from '../../harness/core/signing/parse/duplicate-keys.js';
import type { BuyerFaultSet } from './faults.js';

export const CAPABILITIES_MAX_BYTES = 64 * 1024;

export interface BootstrapTrust {
  /** PEM of extra CAs to trust (a test sender's own CA), read at each discovery (a file may appear later). */
  caPem?: () => string | undefined;
  /** TEST ONLY: host names answered with these addresses instead of the system resolver. */
  hosts?: Record<string, string>;
}

type Discovery = { ok: true; resolver: BrandJwksResolver; at: number } | { ok: false; reason: FailureReason; detail: string; at: number };

class Refusal extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
  ) {
    super(message);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON read member by member
type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface AgentBootstrapOptions {
  agentUrl: string;
  ids: ProtocolIds;
  trust: BootstrapTrust;
  allowInsecureLoopback: boolean;
  cacheTtlSeconds: number;
  faults: BuyerFaultSet;
  now: () => number;
}

/** The keys of one seller agent, found from its URL. */
export class AgentBootstrapResolver implements KeyResolver {
  private discovery?: Discovery;

  constructor(private readonly o: AgentBootstrapOptions) {}

  async resolve(keyid: string): Promise<KeyLookup> {
    const d = await this.discover();
    if (!d.ok) return { ok: false, reason: d.reason, detail: d.detail };
    return d.resolver.resolve(keyid);
  }

  private policy(): AddressPolicy {
    const hosts = this.o.trust.hosts;
    const lookup = hosts
      ? async (h: string): Promise<readonly ResolvedAddress[]> => {
          const a = hosts[h.toLowerCase()];
          if (a === undefined) throw new Error(`${h} is not a configured test host`);
          return [{ address: a, family: a.includes(':') ? 6 : 4 }];
        }
      : undefined;
    return new AddressPolicy(lookup ? { lookup } : {});
  }

  private async discover(): Promise<Discovery> {
    const ttl = this.discovery?.ok ? this.o.cacheTtlSeconds : FAILURE_CACHE_SECONDS;
    if (this.discovery && this.o.now() - this.discovery.at < ttl) return this.discovery;
    const at = this.o.now();
    try {
      this.discovery = { ok: true, resolver: await this.run(), at };
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.discovery = { ok: false, reason: err.reason, detail: err.message, at };
    }
    return this.discovery;
  }

  private async run(): Promise<BrandJwksResolver> {
    const { agentUrl, faults } = this.o;
    const ca = this.o.trust.caPem?.();
    const policy = this.policy();
    // 1. Capabilities over MCP.
    let caps: Obj;
    try {
      caps = await this.capabilities(policy, ca);
    } catch (err) {
      if (!faults.has('bootstrap-capabilities-ignored'))
        throw new Refusal('capabilities_unreachable', `capabilities of ${agentUrl}: ${(err as Error).message}`);
      caps = {};
    }
    // 2. brand_json_url, https.
    const identity = isObj(caps.identity) ? caps.identity : {};
    let brandJsonUrl: string | undefined = typeof identity.brand_json_url === 'string' ? identity.brand_json_url : undefined;
    if (brandJsonUrl === undefined || !brandJsonUrl.startsWith('https://') || !URL.canParse(brandJsonUrl)) {
      if (!faults.has('bootstrap-brand-url-fallback')) throw new Refusal('brand_json_url_missing', 'identity.brand_json_url is missing or not https');
      brandJsonUrl = new URL('/.well-known/brand.json', agentUrl).href;
    }
    // 3. One registrable domain.
    const agentHost = new URL(agentUrl).hostname;
    const brandHost = new URL(brandJsonUrl).hostname;
    if (!faults.has('bootstrap-origin-unchecked')) {
      const site = (h: string) => (faults.has('bootstrap-hostname-origin') ? h : getDomain(h, { allowPrivateDomains: true }));
      const a = site(agentHost);
      if (a === null || a !== site(brandHost)) throw new Refusal('brand_origin_mismatch', `${agentHost} and ${brandHost} are not under one registrable domain`);
    }
    // 4-8.
    const declared = keyOrigins(caps);
    const fetchDocument = this.fetcher(policy, ca);
    return new BrandJwksResolver({
      brandJsonUrl,
      agentUrl,
      fetchDocument,
      now: this.o.now,
      cacheTtlSeconds: this.o.cacheTtlSeconds,
      ...(faults.has('jwks-refetch-no-cooldown') ? { refetchCooldownSeconds: 0 } : {}),
      ...(faults.has('bootstrap-jwks-uncapped') ? { jwksMaxBytes: 16 * JWKS_MAX_BYTES } : {}),
      ...(faults.has('bootstrap-key-origins-unchecked') ? {} : { checkJwksUri: (uri: string) => checkKeyOrigin(declared, uri) }),
    });
  }

  /** The SSRF-safe fetcher, with the fault switches that loosen brand.json reading. */
  private fetcher(policy: AddressPolicy, ca: string | undefined): DocumentFetcher {
    const base = createSafeFetcher({ allowInsecureLoopback: this.o.allowInsecureLoopback, policy, ...(ca ? { ca } : {}) });
    const { faults } = this.o;
    if (!faults.has('bootstrap-brand-lax-parse') && !faults.has('bootstrap-agent-url-canonicalized')) return base;
    return async (url, opts) => {
      const doc = await base(url, opts);
      if (!url.endsWith('brand.json')) return doc;
      // Only the lax parser collapses duplicate members; canonicalizing alone leaves such a document as sent.
      if (!faults.has('bootstrap-brand-lax-parse') && scanDuplicateKeys(doc.body).kind !== 'ok') return doc;
      let parsed: Obj;
      try {
        // Lax: duplicate members silently collapse (the last wins).
        parsed = JSON.parse(doc.body.toString('utf8'));
      } catch {
        return doc;
      }
      if (faults.has('bootstrap-agent-url-canonicalized') && Array.isArray(parsed.agents)) {
        for (const a of parsed.agents) if (isObj(a) && typeof a.url === 'string') a.url = a.url.replace(/\/+$/, '');
      }
      return { ...doc, body: Buffer.from(JSON.stringify(parsed)) };
    };
  }

  /** Step 1: initialize, then tools/call get_<token>_capabilities; the declaration object. */
  private async capabilities(policy: AddressPolicy, ca: string | undefined): Promise<Obj> {
    const url = new URL(this.o.agentUrl);
    if (url.protocol !== 'https:' && !(this.o.allowInsecureLoopback && url.protocol === 'http:')) throw new Error('the agent URL is not https');
    const documents = policy.forDocuments({ loopback: this.o.allowInsecureLoopback });
    const agent = policyAgent(documents, { connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS, ...(ca ? { ca } : {}) });
    const signal = AbortSignal.timeout(DEFAULT_TOTAL_TIMEOUT_MS);
    let session: string | undefined;
    const rpc = async (id: number | undefined, method: string, params: unknown): Promise<unknown> => {
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), method, params }),
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of res.body) {
        size += (c as Buffer).length;
        if (size > CAPABILITIES_MAX_BYTES) throw new Error(`answer exceeds ${CAPABILITIES_MAX_BYTES} bytes`);
        chunks.push(c as Buffer);
      }
      if (id === undefined) return undefined;
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
      const sid = res.headers['mcp-session-id'];
      if (typeof sid === 'string') session = sid;
      const text = Buffer.concat(chunks).toString('utf8');
      const body = String(res.headers['content-type'] ?? '').includes('text/event-stream')
        ? (text
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .pop() ?? '')
        : text;
      const msg = JSON.parse(body) as Obj;
      if (!isObj(msg) || msg.error !== undefined || !('result' in msg)) throw new Error(`${method} failed`);
      return msg.result;
    };
    try {
      await rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'proto-comply mock buyer', version: '1' } });
      await rpc(undefined, 'notifications/initialized', {});
      const result = (await rpc(2, 'tools/call', { name: this.o.ids.capabilitiesTask, arguments: {} })) as Obj;
      if (!isObj(result) || result.isError === true) throw new Error('the capability task failed');
      if (isObj(result.structuredContent)) return result.structuredContent;
      const text = Array.isArray(result.content) ? result.content.find((c: unknown) => isObj(c) && c.type === 'text')?.text : undefined;
      const doc = typeof text === 'string' ? JSON.parse(text) : undefined;
      if (!isObj(doc)) throw new Error('no capability declaration in the answer');
      return doc;
    } finally {
      await agent.destroy().catch(() => undefined);
    }
  }
}

/**
 * The declared key origin of webhook_signing: the origin string when given, `null` when the agent
 * declares the webhook signing posture without one, undefined when it declares neither.
 */
function keyOrigins(caps: Obj): string | null | undefined {
  const origins = isObj(caps.identity) && isObj(caps.identity.key_origins) ? caps.identity.key_origins : {};
  const origin = origins.webhook_signing;
  if (typeof origin === 'string' && origin.length > 0) return origin;
  const posture = isObj(caps.webhook_signing) && caps.webhook_signing.supported === true;
  return posture || 'webhook_signing' in origins ? null : undefined;
}

/** Step 7 for the webhook_signing purpose: the jwks_uri host equals the declared origin's (lower-cased A-labels). */
function checkKeyOrigin(declared: string | null | undefined, jwksUri: string): { reason: FailureReason; detail: string } | undefined {
  if (declared === undefined) return undefined;
  if (declared === null) return { reason: 'key_origin_missing', detail: 'webhook_signing is declared without identity.key_origins.webhook_signing' };
  const host = (v: string) => domainToASCII((URL.canParse(v) ? new URL(v).hostname : v).toLowerCase());
  const expected = host(declared);
  const actual = host(jwksUri);
  if (expected === actual) return undefined;
  return { reason: 'key_origin_mismatch', detail: `webhook_signing: expected origin ${expected}, jwks_uri host ${actual}` };
}
