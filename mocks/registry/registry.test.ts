/**
 * The mock registry on loopback: its REST face (public reads, protected writes, JSON errors,
 * CORS, body cap), its discovery files, and what each fault profile changes (the `registry` and
 * `discovery` suites will judge the same rules by check id).
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { UNDECLARED_CAPABILITY } from './discovery.js';
import { REGISTRY_FAULTS, UnknownRegistryFaultError } from './faults.js';
import { type MockRegistryOptions, type RunningMockRegistry, startMockRegistry } from './index.js';

const AGENT = { url: 'http://127.0.0.1:9/mcp', protocol: 'mcp' as const, capabilities: ['get_products', 'create_media_buy'] };
const KEY = (() => {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) as Record<string, string>;
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: 'agent-key-1', alg: 'EdDSA', use: 'sig' };
})();
const SEED = [
  { domain: 'seller.example', agent_url: 'https://seller.example/mcp', capabilities: ['get_products', 'create_media_buy'], channels: ['display', 'olv'] },
  { domain: 'signals.example', agent_url: 'https://signals.example/mcp', capabilities: ['get_signals', 'activate_signal'], channels: ['ctv'] },
];

let running: RunningMockRegistry[] = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

async function start(o: MockRegistryOptions = {}): Promise<RunningMockRegistry> {
  const r = await startMockRegistry({ agents: [AGENT], agentKeys: [KEY], seed: SEED, ...o });
  running.push(r);
  return r;
}

async function call(r: RunningMockRegistry, path: string, init: RequestInit & { key?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.key !== undefined) headers.set('authorization', `Bearer ${init.key}`);
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  const res = await fetch(`${r.baseUrl}${path}`, { ...init, headers });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', cors: res.headers.get('access-control-allow-origin'), json: json as any, text };
}

const register = (r: RunningMockRegistry, body: unknown, key?: string) => call(r, '/api/me/agents', { method: 'POST', body: JSON.stringify(body), key });

describe('the mock registry', () => {
  it('serves public statistics and a filtered agent search, with CORS', async () => {
    const r = await start();
    const stats = await call(r, '/api/registry/stats');
    expect(stats).toMatchObject({ status: 200, cors: '*' });
    expect(stats.type).toMatch(/^application\/json/);
    expect(stats.json).toMatchObject({ agents: 2, capabilities: { get_products: 1, get_signals: 1 } });
    const all = await call(r, '/api/registry/agents');
    expect(all.json.agents).toEqual(SEED);
    expect((await call(r, '/api/registry/agents?capability=get_signals')).json.agents).toEqual([SEED[1]]);
    expect((await call(r, '/api/registry/agents?channel=olv')).json.agents).toEqual([SEED[0]]);
    expect((await call(r, '/api/registry/agents?capability=get_products&channel=ctv')).json.agents).toEqual([]);
    const preflight = await fetch(`${r.baseUrl}/api/me/agents`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
  });

  it('registers an agent only with a known API key, and then finds it by its capabilities', async () => {
    const r = await start();
    const agent = { agent_url: 'https://new.example/mcp', capabilities: ['get_brand_identity'], channels: ['audio'] };
    expect(await register(r, agent)).toMatchObject({ status: 401, json: { error: { code: 'unauthorized' } } });
    expect(await register(r, agent, 'not-a-key-0123456789')).toMatchObject({ status: 401, json: { error: { code: 'unauthorized' } } });
    expect((await call(r, '/api/registry/agents?capability=get_brand_identity')).json.agents).toEqual([]);
    const created = await register(r, agent, r.apiKeys[0]);
    expect(created).toMatchObject({ status: 201, json: { agent: { domain: 'new.example', ...agent } } });
    expect((await register(r, agent, r.apiKeys[0])).status).toBe(200);
    expect((await call(r, '/api/registry/agents?capability=get_brand_identity')).json.agents).toEqual([{ domain: 'new.example', ...agent }]);
    expect((await call(r, '/api/registry/stats')).json.organizations).toBe(1);
  });

  it('creates organizations behind the API key', async () => {
    const r = await start();
    const org = { name: 'Acme Media', company_type: 'publisher' };
    expect((await call(r, '/api/organizations', { method: 'POST', body: JSON.stringify(org) })).status).toBe(401);
    expect(await call(r, '/api/organizations', { method: 'POST', body: JSON.stringify(org), key: r.apiKeys[0] })).toMatchObject({
      status: 201,
      json: { organization: { name: 'Acme Media', company_type: 'publisher' } },
    });
    expect((await call(r, '/api/organizations', { method: 'POST', body: '{"name": 3}', key: r.apiKeys[0] })).json.error.code).toBe('invalid_body');
  });

  it('answers bad input with a 4xx JSON error, never a 5xx', async () => {
    const r = await start();
    const key = r.apiKeys[0];
    const cases = [
      await register(r, { agent_url: 'not a url' }, key),
      await register(r, { agent_url: 'ftp://x.example/' }, key),
      await register(r, { agent_url: 'https://x.example/', capabilities: ['no_such_task'] }, key),
      await register(r, { agent_url: 'https://x.example/', channels: 'display' }, key),
      await call(r, '/api/me/agents', { method: 'POST', body: '{"agent_url":', key }),
      await call(r, '/api/me/agents', { method: 'POST', body: JSON.stringify({ agent_url: 'https://x.example/', pad: 'x'.repeat(70_000) }), key }),
      await call(r, '/api/registry/agents?capability=no_such_task'),
      await call(r, '/api/registry/agents?channel=hologram'),
      await call(r, '/api/registry/stats', { method: 'DELETE' }),
    ];
    expect(cases.map((c) => c.status)).toEqual([400, 400, 400, 400, 400, 413, 400, 400, 405]);
    for (const c of cases) {
      expect(c.type).toMatch(/^application\/json/);
      expect(typeof c.json.error.message).toBe('string');
    }
  });

  it('hosts the discovery files of its test domains', async () => {
    const r = await start();
    const adagents = await call(r, '/domains/publisher.test/.well-known/adagents.json');
    expect(adagents.json).toMatchObject({ publisher: { domain: 'publisher.test' }, agents: [AGENT], signing_keys: [KEY] });
    const brand = await fetch(r.brandUrl).then((res) => res.json() as Promise<any>);
    expect(brand.brands[0].identity_agent).toEqual({ url: AGENT.url, id: 'test-brand' });
    const jwks = await call(r, new URL(brand.agents[0].jwks_uri).pathname);
    expect(jwks.type).toMatch(/^application\/jwk-set\+json/);
    expect(jwks.json).toEqual({ keys: [KEY] });
    expect((await call(r, '/domains/other.test/.well-known/adagents.json')).status).toBe(404);
  });

  it('refuses an unknown fault and a short API key', async () => {
    await expect(startMockRegistry({ faults: ['nope'] })).rejects.toThrow(UnknownRegistryFaultError);
    await expect(startMockRegistry({ apiKeys: ['short'] })).rejects.toThrow(/16 to 512/);
  });
});

/** A throwaway agent registered with the first key, and a PUT/POST of a JSON body to one of its operations with that key. */
async function owned(r: RunningMockRegistry) {
  const url = 'https://owned.example/mcp';
  await register(r, { agent_url: url, capabilities: ['get_products'] }, r.apiKeys[0]);
  const path = `/api/registry/agents/${encodeURIComponent(url)}`;
  /** `key: null` sends none. */
  const write = (method: 'PUT' | 'POST', op: string, body: unknown, key: string | null = r.apiKeys[0]!) =>
    call(r, `${path}/${op}`, { method, body: JSON.stringify(body), ...(key === null ? {} : { key }) });
  return { url, path, write };
}

describe("the owner's Agent Compliance operations (digest 6.3)", () => {
  it('keep what the owner sets, refuse anyone else and out-of-range values', async () => {
    const r = await start({ apiKeys: ['owner-key-0123456789abcdef', 'other-key-0123456789abcdef'] });
    const { path, write } = await owned(r);
    expect((await write('PUT', 'lifecycle', { lifecycle_stage: 'testing' }, null)).status).toBe(401);
    expect((await write('PUT', 'lifecycle', { lifecycle_stage: 'testing' }, r.apiKeys[1])).status).toBe(403);
    expect((await write('PUT', 'lifecycle', { lifecycle_stage: 'beta' })).status).toBe(400);
    expect((await write('PUT', 'lifecycle', { lifecycle_stage: 'testing' })).json).toMatchObject({ lifecycle_stage: 'testing', compliance_opt_out: false });
    expect((await call(r, `${path}/compliance`)).json).toMatchObject({ status: 'unknown', lifecycle_stage: 'testing' });
    for (const h of [5, 169, 6.5, '24']) expect((await write('PUT', 'monitoring/interval', { interval_hours: h })).status).toBe(400);
    expect((await write('PUT', 'monitoring/interval', { interval_hours: 48 })).status).toBe(200);
    expect((await write('POST', 'monitoring/requeue', {})).json).toEqual({ requeued: true });
    expect((await write('POST', 'refresh', {})).status).toBe(200);
    expect((await write('PUT', 'monitoring/pause', { paused: true })).status).toBe(200);
    const settings = await call(r, `${path}/monitoring/settings`, { key: r.apiKeys[0] });
    expect(settings.json).toMatchObject({ monitoring_paused: true, check_interval_hours: 48 });
    expect(typeof settings.json.monitoring_paused_at).toBe('string');
    expect((await write('POST', 'refresh', {})).status).toBe(409);
    expect((await write('PUT', 'compliance/opt-out', { opt_out: true })).json).toMatchObject({ compliance_opt_out: true });
    expect((await call(r, `${path}/compliance`)).json).toEqual({
      agent_url: 'https://owned.example/mcp',
      status: 'opted_out',
      lifecycle_stage: 'testing',
      compliance_opt_out: true,
    });
  });

  it('answers the bulk storyboard status for members, at most 100 URLs, and the 500 of applicable-storyboards', async () => {
    const r = await start();
    const { url, path } = await owned(r);
    const bulk = (urls: unknown, key?: string) =>
      call(r, '/api/registry/agents/storyboard-status', { method: 'POST', body: JSON.stringify({ agent_urls: urls }), key });
    expect((await bulk([url])).status).toBe(403);
    expect((await bulk([url, 'https://nobody.example/'], r.apiKeys[0])).json).toEqual({ agents: { [url]: [] }, invalid_urls: ['https://nobody.example/'] });
    expect(
      (
        await bulk(
          Array.from({ length: 101 }, (_, i) => `https://n${i}.example/`),
          r.apiKeys[0],
        )
      ).status,
    ).toBe(400);
    expect((await bulk([], r.apiKeys[0])).status).toBe(400);
    const applicable = await call(r, `${path}/applicable-storyboards`);
    expect([applicable.status, applicable.json.reason]).toEqual([500, 'unknown']);
  });
});

/** The first seed agent's path under the registry API. */
const agentPath = (_r?: RunningMockRegistry) => `/api/registry/agents/${encodeURIComponent(SEED[0]!.agent_url)}`;

describe('each fault of the mock registry breaks its rule', () => {
  const probes: Record<string, (r: RunningMockRegistry) => Promise<boolean>> = {
    'stats-behind-auth': async (r) => (await call(r, '/api/registry/stats')).status === 401,
    'stats-not-json': async (r) => (await call(r, '/api/registry/stats')).type.startsWith('text/plain'),
    'capability-filter-ignored': async (r) => (await call(r, '/api/registry/agents?capability=get_signals')).json.agents.length === 2,
    'channel-filter-ignored': async (r) => (await call(r, '/api/registry/agents?channel=ctv')).json.agents.length === 2,
    'search-missing-fields': async (r) => (await call(r, '/api/registry/agents')).json.agents.every((a: object) => !('channels' in a)),
    'registration-without-auth': async (r) => (await register(r, { agent_url: 'https://a.example/' })).status === 201,
    'wrong-key-accepted': async (r) => (await register(r, { agent_url: 'https://a.example/' }, 'wrong-key-0123456789')).status === 201,
    'organizations-without-auth': async (r) => (await call(r, '/api/organizations', { method: 'POST', body: '{"name":"x"}' })).status === 201,
    'registered-not-findable': async (r) => {
      await register(r, { agent_url: 'https://a.example/', capabilities: ['get_brand_identity'] }, r.apiKeys[0]);
      return (await call(r, '/api/registry/agents?capability=get_brand_identity')).json.agents.length === 0;
    },
    'bad-url-500': async (r) => (await register(r, { agent_url: 'not a url' }, r.apiKeys[0])).status === 500,
    'oversized-body-500': async (r) =>
      (await call(r, '/api/me/agents', { method: 'POST', body: JSON.stringify({ pad: 'x'.repeat(70_000) }), key: r.apiKeys[0] })).status === 500,
    'unknown-capability-500': async (r) => (await call(r, '/api/registry/agents?capability=no_such_task')).status === 500,
    'no-cors': async (r) => (await call(r, '/api/registry/stats')).cors === null,
    'adagents-bad-types': async (r) => typeof (await call(r, '/domains/publisher.test/.well-known/adagents.json')).json.agents[0].capabilities === 'string',
    'adagents-undeclared-capability': async (r) =>
      (await call(r, '/domains/publisher.test/.well-known/adagents.json')).json.agents[0].capabilities.includes(UNDECLARED_CAPABILITY),
    'pin-mismatch': async (r) => (await call(r, '/domains/publisher.test/.well-known/adagents.json')).json.signing_keys[0].x !== KEY.x,
    'identity-agent-silent': async (r) => (await call(r, '/domains/brand.test/.well-known/brand.json')).json.brands[0].identity_agent.url !== AGENT.url,
    'brand-agent-respelled': async (r) => {
      const [brand, adagents] = await Promise.all([
        call(r, '/domains/brand.test/.well-known/brand.json'),
        call(r, '/domains/publisher.test/.well-known/adagents.json'),
      ]);
      return brand.json.agents[0].url !== adagents.json.agents[0].url;
    },
    'brand-bad-types': async (r) => typeof (await call(r, '/domains/brand.test/.well-known/brand.json')).json.brands[0].names === 'string',
    'jwks-private-member': async (r) => (await call(r, '/domains/brand.test/.well-known/jwks.json')).json.keys.some((k: object) => 'd' in k),
    'compliance-bad-status': async (r) => (await call(r, `${agentPath(r)}/compliance`)).json.status === 'ok',
    'unknown-agent-200': async (r) => (await call(r, `/api/registry/agents/${encodeURIComponent('https://nobody.example/')}/compliance`)).status === 200,
    'history-without-count': async (r) => !('count' in (await call(r, `${agentPath(r)}/compliance/history`)).json),
    'history-limit-unclamped': async (r) => (await call(r, `${agentPath(r)}/compliance/history?limit=101`)).json.runs.length === 101,
    'badge-without-modes': async (r) =>
      (await call(r, `${agentPath(r)}/verification`)).json.badges.some((b: { verification_modes: string[] }) => b.verification_modes.length === 0),
    'invalid-role-404': async (r) => (await call(r, `${agentPath(r)}/badge/nope/embed`)).status === 404,
    'badge-jwks-private-member': async (r) => (await call(r, '/api/.well-known/jwks.json')).json.keys.some((k: object) => 'd' in k),
    'storyboard-status-public': async (r) => (await call(r, `${agentPath(r)}/storyboard-status`)).status === 200,
    'monitoring-settings-public': async (r) => (await call(r, `${agentPath(r)}/monitoring/settings`)).status === 200,
    'monitoring-interval-unbounded': async (r) => (await (await owned(r)).write('PUT', 'monitoring/interval', { interval_hours: 5 })).status === 200,
    'refresh-while-paused': async (r) => {
      const { write } = await owned(r);
      await write('PUT', 'monitoring/pause', { paused: true });
      return (await write('POST', 'refresh', {})).status === 200;
    },
    'lifecycle-not-persisted': async (r) => {
      const { path, write } = await owned(r);
      await write('PUT', 'lifecycle', { lifecycle_stage: 'deprecated' });
      return (await call(r, `${path}/compliance`)).json.lifecycle_stage !== 'deprecated';
    },
    'opted-out-status-kept': async (r) => {
      const { path, write } = await owned(r);
      await write('PUT', 'compliance/opt-out', { opt_out: true });
      return (await call(r, `${path}/compliance`)).json.status !== 'opted_out';
    },
    'bulk-status-agents-array': async (r) => {
      const body = JSON.stringify({ agent_urls: [SEED[0]!.agent_url] });
      return Array.isArray((await call(r, '/api/registry/agents/storyboard-status', { method: 'POST', body, key: r.apiKeys[0] })).json.agents);
    },
    'bulk-status-uncapped': async (r) => {
      const body = JSON.stringify({ agent_urls: Array.from({ length: 101 }, (_, i) => `https://n${i}.example/`) });
      return (await call(r, '/api/registry/agents/storyboard-status', { method: 'POST', body, key: r.apiKeys[0] })).status === 200;
    },
    'badge-embed-without-markdown': async (r) => !('markdown' in (await call(r, `${agentPath(r)}/badge/media-buy/embed`)).json),
    'badge-svg-as-text': async (r) => !(await call(r, `${agentPath(r)}/badge/media-buy.svg`)).type.startsWith('image/svg+xml'),
    'applicable-storyboards-no-reason': async (r) => !('reason' in (await call(r, `${agentPath(r)}/applicable-storyboards`)).json),
    'jwks-duplicate-kid': async (r) => {
      const kids = (await call(r, '/domains/brand.test/.well-known/jwks.json')).json.keys.map((k: { kid: string }) => k.kid);
      return new Set(kids).size < kids.length;
    },
  };

  it('has a probe here for every fault', () => {
    expect(Object.keys(probes).sort()).toEqual(REGISTRY_FAULTS.map((f) => f.name).sort());
  });

  for (const fault of REGISTRY_FAULTS) {
    it(`${fault.name}: broken with the fault, intact without`, async () => {
      expect(await probes[fault.name]!(await start())).toBe(false);
      expect(await probes[fault.name]!(await start({ faults: [fault.name] }))).toBe(true);
    });
  }
});
