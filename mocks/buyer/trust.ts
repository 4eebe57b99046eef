/**
 * Which sellers the buyer trusts for RFC 9421 webhooks, and how their keys are found (interface
 * spec 5.1 rule 3, digest 1.11): through each seller operator's brand declaration
 * `agents[].jwks_uri`, applying the publisher's `signing_keys[]` pin when one is configured. The
 * verified sender identity is the `agents[].url` whose JWKS held the key.
 *
 * Fetches are SSRF-safe (https only, no reserved addresses). `allowInsecureLoopback` is the
 * explicit test-only setting that also admits http on loopback (digest 5.9 forbids it otherwise).
 */
import { BrandJwksResolver } from '../../harness/core/signing/keys/jwks-resolver.js';
import type { KeyLookup, KeyResolver } from '../../harness/core/signing/keys/key-resolver.js';
import type { DocumentFetcher } from '../../harness/core/net/safe-fetch.js';
import type { ProtocolIds } from '../../harness/core/token.js';
import { AgentBootstrapResolver, type BootstrapTrust } from './bootstrap.js';
import type { BuyerFaultSet } from './faults.js';

export interface TrustedSender {
  /** The seller operator's brand declaration (`/.well-known/brand.json`). */
  brandJsonUrl: string;
  /** Restrict to the `agents[]` entry with this exact `url`. */
  agentUrl?: string;
  /** Publisher declaration whose `signing_keys[]` pins the acceptable kids (sell-side delivery). */
  publisherDeclarationUrl?: string;
}

export interface TrustConfig {
  senders: TrustedSender[];
  /** TEST ONLY: accept http:// and loopback addresses for the documents above. */
  allowInsecureLoopback?: boolean;
  /** JWKS / brand.json cache TTL in seconds (default 300). */
  cacheTtlSeconds?: number;
  fetchDocument?: DocumentFetcher;
  /** Endpoints registered for one seller agent find its keys from its URL (bootstrap.ts): the CA and host names of a test sender. */
  bootstrap?: BootstrapTrust;
}

export class TrustConfigError extends Error {
  override name = 'TrustConfigError';
}

function checkUrl(what: string, url: string, insecure: boolean): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TrustConfigError(`${what} ${JSON.stringify(url)} is not a URL`);
  }
  if (u.protocol !== 'https:' && !(insecure && u.protocol === 'http:')) {
    throw new TrustConfigError(`${what} ${JSON.stringify(url)} must be https (http is accepted for loopback only with the insecure-loopback test setting)`);
  }
}

/** Resolves a keyid across every trusted sender; a kid published by two senders is refused. */
export class TrustResolver implements KeyResolver {
  private readonly byBrand = new Map<string, BrandJwksResolver[]>();
  private readonly byAgent = new Map<string, AgentBootstrapResolver>();

  constructor(
    private readonly config: TrustConfig,
    private readonly nowSeconds: () => number,
    private readonly agentDeps?: { ids: ProtocolIds; faults: BuyerFaultSet },
  ) {
    const insecure = config.allowInsecureLoopback === true;
    for (const s of config.senders) {
      checkUrl('trusted brand declaration', s.brandJsonUrl, insecure);
      if (s.publisherDeclarationUrl) checkUrl('publisher declaration', s.publisherDeclarationUrl, insecure);
      const resolver = new BrandJwksResolver({
        brandJsonUrl: s.brandJsonUrl,
        agentUrl: s.agentUrl,
        publisherDeclarationUrl: s.publisherDeclarationUrl,
        fetchDocument: config.fetchDocument,
        allowInsecureLoopback: insecure,
        cacheTtlSeconds: config.cacheTtlSeconds,
        now: nowSeconds,
      });
      const list = this.byBrand.get(s.brandJsonUrl) ?? [];
      list.push(resolver);
      this.byBrand.set(s.brandJsonUrl, list);
    }
  }

  get size(): number {
    return this.byBrand.size;
  }

  /** A resolver for one endpoint: every trusted sender, or only `brandJsonUrl`'s. */
  forEndpoint(brandJsonUrl?: string): KeyResolver {
    if (brandJsonUrl === undefined) return this;
    const only = this.byBrand.get(brandJsonUrl) ?? [];
    return { resolve: (keyid) => resolveAcross(only, keyid) };
  }

  /** The resolver of an endpoint registered for one seller agent: its keys found from its agent URL (digest 1.11 bootstrap). */
  forAgent(agentUrl: string): KeyResolver {
    let r = this.byAgent.get(agentUrl);
    if (!r) {
      if (!this.agentDeps) throw new TrustConfigError('agent-URL discovery needs the buyer ids and faults');
      r = new AgentBootstrapResolver({
        agentUrl,
        ...this.agentDeps,
        trust: this.config.bootstrap ?? {},
        allowInsecureLoopback: this.config.allowInsecureLoopback === true,
        cacheTtlSeconds: this.config.cacheTtlSeconds ?? 300,
        now: this.nowSeconds,
      });
      this.byAgent.set(agentUrl, r);
    }
    return r;
  }

  resolve(keyid: string): Promise<KeyLookup> {
    return resolveAcross([...this.byBrand.values()].flat(), keyid);
  }
}

async function resolveAcross(resolvers: BrandJwksResolver[], keyid: string): Promise<KeyLookup> {
  if (resolvers.length === 0) return { ok: false, reason: 'key_unknown', detail: 'no trusted sender for this endpoint' };
  const results = await Promise.all(resolvers.map((r) => r.resolve(keyid)));
  const found = results.filter((r): r is Extract<KeyLookup, { ok: true }> => r.ok);
  const agents = new Set(found.map((r) => r.key.agentUrl));
  if (agents.size > 1) return { ok: false, reason: 'brand_json_ambiguous', detail: `kid ${keyid} is published by several trusted senders` };
  if (found.length > 0) return found[0]!;
  const failures = results.filter((r): r is Extract<KeyLookup, { ok: false }> => !r.ok);
  // A single trusted sender: its own reason (unreachable brand.json, unknown kid...).
  if (failures.length === 1) return failures[0]!;
  const other = failures.find((f) => f.reason !== 'key_unknown');
  if (failures.every((f) => f.reason !== 'key_unknown') && other) return other;
  return { ok: false, reason: 'key_unknown', detail: `no trusted sender publishes kid ${JSON.stringify(keyid)}` };
}
