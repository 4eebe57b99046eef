/**
 * The discovery files the mock registry hosts for its test domains, as third parties host them
 * (interface spec 1, 2.2, 2.3): a publisher's `/.well-known/adagents.json` (authorized agents,
 * `signing_keys[]` pin) and a brand's `/.well-known/brand.json` (house, brands with an identity
 * agent, sales agents with a `jwks_uri`) plus that key set. Served under
 * `/domains/<domain>/.well-known/...`, since a test domain has no DNS of its own.
 */
import { generateKeyPairSync } from 'node:crypto';

export interface DiscoveryAgent {
  url: string;
  protocol: 'mcp' | 'a2a';
  /** Task names the file says the agent serves. */
  capabilities: string[];
}

export interface DiscoveryOptions {
  publisherDomain: string;
  brandDomain: string;
  agents: DiscoveryAgent[];
  /** Public JWKs the agents publish (their request and webhook signing keys): the brand's key set and the publisher's pin. */
  agentKeys: Array<Record<string, unknown>>;
}

export const WELL_KNOWN = {
  adagents: '/.well-known/adagents.json',
  brand: '/.well-known/brand.json',
  jwks: '/.well-known/jwks.json',
} as const;

/** `<base>/domains/<domain><path>`: where the mock serves a test domain's file. */
export function domainFileUrl(baseUrl: string, domain: string, path: string): string {
  return `${baseUrl}/domains/${encodeURIComponent(domain)}${path}`;
}

/** A capability no agent of the mock declares (fault adagents-undeclared-capability). */
export const UNDECLARED_CAPABILITY = 'sync_event_sources';

function freshPublicJwk(kid: string, withPrivate: boolean): Record<string, unknown> {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid, alg: 'EdDSA', use: 'sig', ...(withPrivate ? { d: jwk.d } : {}) };
}

/** The same address written differently: a trailing slash added (or removed). */
function respelled(url: string): string {
  return url.endsWith('/') ? url.replace(/\/+$/, '') : `${url}/`;
}

export class DiscoveryFiles {
  /** Made once per registry: a pin of a key nobody publishes (pin-mismatch) and a key with its private half (jwks-private-member). */
  private readonly strangerKey = freshPublicJwk('stranger-key', false);
  private readonly leakedKey = freshPublicJwk('leaked-key', true);
  private readonly twinKey = freshPublicJwk('twin-key', false);

  constructor(
    private readonly o: DiscoveryOptions,
    private readonly faults: ReadonlySet<string>,
    private readonly baseUrl: string,
  ) {}

  /** The body of `path` on `domain`, or undefined when the mock hosts no such file. */
  file(domain: string, path: string): Record<string, unknown> | undefined {
    if (domain === this.o.publisherDomain && path === WELL_KNOWN.adagents) return this.adagents();
    if (domain === this.o.brandDomain && path === WELL_KNOWN.brand) return this.brand();
    if (domain === this.o.brandDomain && path === WELL_KNOWN.jwks) return this.jwks();
    return undefined;
  }

  private adagents(): Record<string, unknown> {
    const agents = this.o.agents.map((a, i) => ({
      url: a.url,
      protocol: a.protocol,
      capabilities:
        this.faults.has('adagents-bad-types') && i === 0
          ? a.capabilities.join(',')
          : this.faults.has('adagents-undeclared-capability') && i === 0
            ? [...a.capabilities, UNDECLARED_CAPABILITY]
            : a.capabilities,
    }));
    const pin = this.faults.has('pin-mismatch') ? [this.strangerKey] : this.o.agentKeys;
    return {
      version: '1.0',
      publisher: { name: 'Proto Comply Test Publisher', domain: this.o.publisherDomain },
      agents,
      ...(pin.length ? { signing_keys: pin } : {}),
    };
  }

  private brand(): Record<string, unknown> {
    const identity = this.o.agents[0];
    const names = this.faults.has('brand-bad-types') ? 'Proto Comply Test Brand' : [{ en: 'Proto Comply Test Brand' }, { fr: 'Marque de test' }];
    return {
      $schema: 'https://schemas.example/brand.json',
      house: { domain: this.o.brandDomain, name: 'Proto Comply Test House' },
      brands: [{ id: 'test-brand', names, ...(identity ? { identity_agent: { url: this.identityUrl(identity.url), id: 'test-brand' } } : {}) }],
      agents: this.o.agents.map((a, i) => ({
        url: this.faults.has('brand-agent-respelled') && i === 0 ? respelled(a.url) : a.url,
        jwks_uri: domainFileUrl(this.baseUrl, this.o.brandDomain, WELL_KNOWN.jwks),
      })),
    };
  }

  /** The identity agent: the first agent, or (identity-agent-silent) a path of this mock where nothing answers. */
  private identityUrl(agentUrl: string): string {
    return this.faults.has('identity-agent-silent') ? domainFileUrl(this.baseUrl, this.o.brandDomain, '/identity/mcp') : agentUrl;
  }

  private jwks(): Record<string, unknown> {
    const keys = [...this.o.agentKeys];
    if (this.faults.has('jwks-private-member')) keys.push(this.leakedKey);
    if (this.faults.has('jwks-duplicate-kid') && keys.length > 0) keys.push({ ...this.twinKey, kid: keys[0]!.kid });
    return { keys };
  }
}
