/**
 * The seller's published webhook keys, as a buyer finds them (interface spec 5.1 rule 3, digest
 * 1.11): the brand declaration (`identity.brand_json_url` from the capabilities, else
 * `/.well-known/brand.json` at the agent's origin), its `agents[]` entry for the endpoint the
 * harness talks to, and that entry's `jwks_uri`. When no entry byte-equals the endpoint URL the
 * kid may be found in any single entry (the harness may know the agent by another URL).
 * Fetches are SSRF-safe; http and loopback are allowed only when the agent itself is on
 * loopback (a local agent under test) and the run does not deny private addresses; the run's
 * allow-list applies. A loopback agent declaring an https brand_json_url on its own host and port
 * (the scheme it is deployed under: the https the declaration must carry, digest 1.11 step 2) is
 * read over http there, since one port cannot serve both and a loopback agent holds no certificate.
 */
import type { CheckContext } from '../../engine/kinds/types.js';
import { createSafeFetcher } from '../../net/safe-fetch.js';
import { BrandJwksResolver } from '../../signing/keys/jwks-resolver.js';
import type { KeyLookup, KeyResolver } from '../../signing/keys/key-resolver.js';
import { InMemoryReplayCache, WEBHOOK_PER_KEYID_CAP, type ReplayCache } from '../../signing/verify/replay-cache.js';
import { isLoopbackHost } from './config.js';
import type { AddressPolicy } from '../../net/address-policy.js';

export class AgentKeyResolver implements KeyResolver {
  constructor(
    private readonly exact: KeyResolver,
    private readonly any: KeyResolver,
  ) {}

  async resolve(keyid: string): Promise<KeyLookup> {
    const first = await this.exact.resolve(keyid);
    if (first.ok || first.reason !== 'agent_not_in_brand_json') return first;
    return this.any.resolve(keyid);
  }
}

export interface SellerKeys {
  brandJsonUrl: string;
  resolver: KeyResolver;
}

export function brandJsonUrlFor(endpoint: string, capabilities: Record<string, unknown> | undefined): string {
  const identity = capabilities?.identity as Record<string, unknown> | undefined;
  const declared = identity?.brand_json_url;
  if (typeof declared === 'string' && URL.canParse(declared)) return declared;
  return new URL('/.well-known/brand.json', endpoint).href;
}

/**
 * The keys an agent publishes in `brandJsonUrl`, looked up for `endpoint` (or, without one, in any
 * single agents[] entry holding the kid). Fetched SSRF-safe under `policy`; http and loopback only
 * when the agent (`agentUrl`) and its brand.json are both on loopback.
 */
export function publishedKeyResolver(o: { agentUrl: string; brandJsonUrl: string; endpoint?: string; policy?: AddressPolicy }): KeyResolver {
  const local = isLoopbackHost(new URL(o.agentUrl).hostname) && isLoopbackHost(new URL(o.brandJsonUrl).hostname);
  const fetchDocument = createSafeFetcher({ allowInsecureLoopback: local, policy: o.policy });
  const brandJsonUrl = local ? loopbackBrandUrl(o.agentUrl, o.brandJsonUrl) : o.brandJsonUrl;
  const make = (agentUrl?: string) => new BrandJwksResolver({ brandJsonUrl, agentUrl, fetchDocument, cacheTtlSeconds: 300 });
  return o.endpoint ? new AgentKeyResolver(make(o.endpoint), make()) : make();
}

/**
 * An https brand.json on a loopback host, declared by a plain-http loopback agent, read over http
 * there (a local agent names the https URL it would have in production; behind a local reverse
 * proxy the port is the proxy's, not the agent's); any other URL as given.
 */
export function loopbackBrandUrl(agentUrl: string, brandJsonUrl: string): string {
  const agent = new URL(agentUrl);
  const brand = new URL(brandJsonUrl);
  if (agent.protocol !== 'http:' || brand.protocol !== 'https:' || !isLoopbackHost(agent.hostname) || !isLoopbackHost(brand.hostname)) return brandJsonUrl;
  brand.protocol = 'http:';
  return brand.href;
}

/** One resolver per (brand.json, endpoint) for the whole run, so keys are fetched once. */
export function sellerKeys(ctx: CheckContext): Promise<SellerKeys> {
  const endpoint = ctx.transport.endpoint;
  const brandJsonUrl = brandJsonUrlFor(endpoint, ctx.profile.capabilities);
  return ctx.resources.get(`webhooks.emission.keys\u0000${brandJsonUrl}\u0000${endpoint}`, async () => ({
    value: { brandJsonUrl, resolver: publishedKeyResolver({ agentUrl: endpoint, brandJsonUrl, endpoint, policy: ctx.run.addressPolicy }) },
    close: async () => {},
  }));
}

/** One (keyid, nonce) store per run, shared by every delivery and retry (digest 2.7). */
export function runReplayCache(ctx: CheckContext): Promise<ReplayCache> {
  return ctx.resources.get('webhooks.emission.replay', async () => ({
    value: new InMemoryReplayCache({ perKeyidCap: WEBHOOK_PER_KEYID_CAP }),
    close: async () => {},
  }));
}
