/**
 * The reference mock registry (issue 16): what interface spec 4.1 shows of the registry REST API
 * (server.ts) and the Agent Compliance operations of digest 6.3 (compliance-ops.ts) over a SQLite
 * store (store.ts) with API keys, and the discovery files of two test domains (discovery.ts), each
 * rule breakable by one fault profile (faults.ts).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { baseUrlOf, listen } from '../../harness/core/net/listen.js';
import { DEFAULT_TOKEN } from '../../harness/core/token.js';
import { type DiscoveryAgent, DiscoveryFiles, domainFileUrl, WELL_KNOWN } from './discovery.js';
import { registryFaultSet } from './faults.js';
import { createMockRegistryHandler } from './server.js';
import { MockRegistryStore, type RegistryAgent } from './store.js';
import { capabilityNames } from './vocabulary.js';

/** Compliance runs recorded for each seed agent. */
export const SEEDED_RUNS = 120;

export interface MockRegistryOptions {
  host?: string;
  port?: number;
  token?: string;
  /** API keys accepted for the protected operations (default one random key, in `apiKeys`). */
  apiKeys?: string[];
  faults?: string[];
  /** SQLite file (default in memory). */
  dbPath?: string;
  /** Agents the publisher's adagents.json authorizes and the brand's brand.json names (default none). */
  agents?: DiscoveryAgent[];
  /** Public JWKs those agents publish (the brand's key set and the publisher's `signing_keys[]` pin). */
  agentKeys?: Array<Record<string, unknown>>;
  /** Agents registered at start (findable by search), e.g. the discovery agents with their channels. */
  seed?: RegistryAgent[];
  publisherDomain?: string;
  brandDomain?: string;
}

export interface RunningMockRegistry {
  baseUrl: string;
  apiKeys: string[];
  faults: string[];
  /** `<base>/domains/<publisher>/.well-known/adagents.json` */
  adagentsUrl: string;
  /** `<base>/domains/<brand>/.well-known/brand.json` */
  brandUrl: string;
  publisherDomain: string;
  brandDomain: string;
  close(): Promise<void>;
}

export async function startMockRegistry(o: MockRegistryOptions = {}): Promise<RunningMockRegistry> {
  const faults = registryFaultSet(o.faults);
  // Hex, so the key never starts with '-': as `--api-key KEY` a leading dash reads as another flag.
  const apiKeys = o.apiKeys ?? [randomBytes(24).toString('hex')];
  if (apiKeys.length === 0 || apiKeys.some((k) => !/^[\x21-\x7e]{16,512}$/.test(k))) throw new Error('API keys are 16 to 512 visible ASCII characters');
  const publisherDomain = o.publisherDomain ?? 'publisher.test';
  const brandDomain = o.brandDomain ?? 'brand.test';
  const capabilities = capabilityNames(o.token ?? DEFAULT_TOKEN);
  const store = new MockRegistryStore(o.dbPath);
  try {
    for (const k of apiKeys) store.addApiKey(k);
    for (const a of o.seed ?? []) {
      const unknown = a.capabilities.filter((c) => !capabilities.has(c));
      if (unknown.length) throw new Error(`seed agent ${a.agent_url}: unknown capabilities ${unknown.join(', ')}`);
      const t = Date.now();
      store.putAgent(a, null, t);
      // A daily history longer than the 100 runs a history answer may hold (digest 6.3), the newest passing.
      for (let i = SEEDED_RUNS; i >= 1; i--) store.addRun(a.agent_url, i === 1 || i % 7 !== 0 ? 'passing' : 'failing', t - i * 86_400_000);
    }
  } catch (e) {
    store.close();
    throw e;
  }
  let handler: ReturnType<typeof createMockRegistryHandler> | undefined;
  const server = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()));
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  let baseUrl: string;
  try {
    baseUrl = baseUrlOf(await listen(server, o.port ?? 0, o.host ?? '127.0.0.1'));
  } catch (e) {
    store.close();
    throw e;
  }
  const discovery = new DiscoveryFiles({ publisherDomain, brandDomain, agents: o.agents ?? [], agentKeys: o.agentKeys ?? [] }, faults, baseUrl);
  handler = createMockRegistryHandler({ store, discovery, faults, capabilities });
  return {
    baseUrl,
    apiKeys,
    faults: [...faults],
    adagentsUrl: domainFileUrl(baseUrl, publisherDomain, WELL_KNOWN.adagents),
    brandUrl: domainFileUrl(baseUrl, brandDomain, WELL_KNOWN.brand),
    publisherDomain,
    brandDomain,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      store.close();
    },
  };
}
