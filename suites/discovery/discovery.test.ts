/**
 * The `discovery` suite against the mock registry's discovery files (naming a real mock seller and
 * its own keys): every check passes; each discovery fault of the mock makes exactly its targeted
 * check fail; bad files served from loopback (truncated JSON, wrong types, 10 MB, a redirect to a
 * private address, a key set with `d`) each fail a check with evidence, never a crash or a hang.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendHugeBody } from '../../harness/testing/huge-body.js';
import { certify } from '../../harness/certify/index.js';
import type { RunResult } from '../../harness/core/engine/result.js';
import { fetchDiscoveryJson } from '../../harness/core/discovery/fetch.js';
import { baseUrlOf, listen } from '../../harness/core/net/listen.js';
import { DISCOVERY_FAULTS } from '../../mocks/registry/faults.js';
import { startMockRegistry } from '../../mocks/registry/index.js';
import { type RunningMockSeller, startMockSeller } from '../../mocks/seller/index.js';
import { renderAgentComplianceJson, validateAgentCompliance } from '../../reports/json.js';

let seller: RunningMockSeller;
let keys: Array<Record<string, unknown>>;
beforeAll(async () => {
  seller = await startMockSeller({ dbPath: ':memory:' });
  const jwks = await fetchDiscoveryJson(seller.jwksUrl, { allowInsecureLoopback: true });
  keys = jwks.ok ? (jwks.value as { keys: Array<Record<string, unknown>> }).keys : [];
});
afterAll(() => seller.close());

async function discoveryRun(faults: string[] = []): Promise<RunResult> {
  const r = await startMockRegistry({ agents: [{ url: seller.mcpUrl, protocol: 'mcp', capabilities: ['get_products'] }], agentKeys: keys, faults });
  try {
    return await certify({ registry: { adagentsUrl: r.adagentsUrl, brandUrl: r.brandUrl }, suites: ['discovery'], seed: 'discovery-suite' });
  } finally {
    await r.close();
  }
}

const outcomes = (run: RunResult) => Object.fromEntries(run.checks.map((c) => [c.check_id, c.outcome]));

describe('the discovery suite', () => {
  it("passes every check on the mock registry's files, which name the mock seller and its keys", async () => {
    expect(keys.length).toBeGreaterThan(0);
    const run = await discoveryRun();
    expect(outcomes(run)).toEqual({
      'discovery.adagents.schema': 'pass',
      'discovery.adagents.capabilities-declared': 'pass',
      'discovery.brand.schema': 'pass',
      'discovery.brand.jwks-valid': 'pass',
      'discovery.brand.identity-agent-answers': 'pass',
      'discovery.adagents.pin-consistent': 'pass',
      'discovery.cross-file.sales-agents-authorized': 'pass',
    });
    expect(run.transports).toEqual(['rest']);
  });

  it('catches each discovery fault of the mock by exactly its targeted check', async () => {
    for (const fault of DISCOVERY_FAULTS) {
      const run = await discoveryRun([fault.name]);
      const failing = run.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'warn').map((c) => c.check_id);
      expect(failing, fault.name).toEqual([...fault.targets]);
      // A check that needs what the fault broke is blocked by the target, never failed.
      for (const c of run.checks.filter((x) => !['pass', 'fail', 'warn'].includes(x.outcome)))
        expect(`${c.check_id} ${c.outcome} by ${c.blocked_by}`, fault.name).toMatch(new RegExp(` blocked by (${fault.targets.join('|')})$`));
      expect(validateAgentCompliance(JSON.parse(renderAgentComplianceJson(run))), fault.name).toEqual({ valid: true, errors: [] });
    }
    console.log(`mutation score (mock registry, discovery files): ${DISCOVERY_FAULTS.length}/${DISCOVERY_FAULTS.length} faults caught by exactly their check`);
  });
});

describe('the agents adagents.json names', () => {
  it("get the run's bearer only on the origins named for the agent: another agent that needs it is a gap", async () => {
    const token = 'discovery-test-bearer-0123456789';
    const guarded = await startMockSeller({ dbPath: ':memory:', authToken: token, host: '127.0.0.2' });
    const r = await startMockRegistry({ agents: [{ url: guarded.mcpUrl, protocol: 'mcp', capabilities: ['get_products'] }], agentKeys: keys });
    try {
      const run = await certify({
        agentUrl: seller.baseUrl,
        transports: ['mcp'],
        authToken: token,
        registry: { adagentsUrl: r.adagentsUrl },
        suites: ['discovery'],
        checkGlob: 'discovery.adagents.capabilities-declared',
      });
      const c = run.checks.find((x) => x.check_id === 'discovery.adagents.capabilities-declared')!;
      expect(c.outcome).toBe('gap');
      expect(c.message).toMatch(/refused the harness without credentials for its origin \(HTTP 401\)/);
      const toGuarded = c.evidence!.exchanges.filter((x) => x.request.url.startsWith(guarded.baseUrl));
      expect(toGuarded.length).toBeGreaterThan(0);
      for (const x of toGuarded) expect(x.request.headers.authorization).toBeUndefined();
    } finally {
      await Promise.all([r.close(), guarded.close()]);
    }
  });
});

describe('bad discovery files', () => {
  let server: Server;
  let base: string;
  const { x, d } = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, string>;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const json = (v: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (req.url === '/truncated.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"version": "1.0", "agents": [');
      if (req.url === '/types.json') return void json({ version: 1, publisher: 'acme', agents: {} });
      // 10 MB, chunked (no content-length), the way a hostile host streams it.
      if (req.url === '/huge.json') return sendHugeBody(res, 10 * 1024 * 1024);
      if (req.url === '/redirect.json') return void res.writeHead(302, { location: 'http://10.0.0.1/.well-known/adagents.json' }).end();
      if (req.url === '/brand.json')
        return void json({ house: { domain: 'b.test', name: 'B' }, agents: [{ url: 'https://a.test/mcp', jwks_uri: `${base}/jwks.json` }] });
      if (req.url === '/brand-a2a.json')
        return void json({
          house: { domain: 'b.test', name: 'B' },
          brands: [{ id: 'b', names: [{ en: 'B' }], identity_agent: { url: `${seller.baseUrl}/a2a`, id: 'b' } }],
        });
      if (req.url === '/brand-noref.json') return void json({ brands: [{ names: [{ en: 'B' }], identity_agent: { url: seller.baseUrl } }] });
      if (req.url === '/brand-noref-a2a.json') return void json({ brands: [{ names: [{ en: 'B' }], identity_agent: { url: `${seller.baseUrl}/a2a` } }] });
      if (req.url === '/adagents-other.json')
        return void json({
          version: '1.0',
          publisher: { name: 'P', domain: 'p.test' },
          agents: [{ url: 'https://other.test/mcp', protocol: 'mcp', capabilities: [] }],
        });
      if (req.url === '/jwks.json') return void json({ keys: [{ kty: 'OKP', crv: 'Ed25519', x, d, kid: 'k1', alg: 'EdDSA', use: 'sig' }] });
      res.writeHead(404).end();
    });
    base = baseUrlOf(await listen(server, 0, '127.0.0.1'));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const check = async (registry: { adagentsUrl?: string; brandUrl?: string }, id: string) => {
    const run = await certify({ registry, suites: ['discovery'], checkGlob: id, budgetS: 60 });
    return run.checks.find((c) => c.check_id === id)!;
  };

  it.each([
    ['/truncated.json', /adagents\.json \(.*truncated\.json\): not JSON/],
    ['/types.json', /adagents\.json at \/version: must be string \(and 2 more: \/publisher, \/agents\)/],
    ['/huge.json', /adagents\.json \(.*huge\.json\): not fetched \(body_too_large/],
    ['/redirect.json', /adagents\.json \(.*redirect\.json\): not fetched \(redirect: HTTP 302 redirect to http:\/\/10\.0\.0\.1/],
  ])('adagents.json at %s fails discovery.adagents.schema with evidence', async (path, message) => {
    const r = await check({ adagentsUrl: `${base}${path}` }, 'discovery.adagents.schema');
    expect(r.outcome).toBe('fail');
    expect(r.message).toMatch(message);
    expect(r.evidence?.exchanges.length).toBeGreaterThan(0);
  });

  it('an identity agent given as an A2A endpoint is asked over A2A, with the brand reference of the file', async () => {
    const r = await check({ brandUrl: `${base}/brand-a2a.json` }, 'discovery.brand.identity-agent-answers');
    expect(r.outcome, r.message).toBe('pass');
  });

  it.each([
    ['/brand-noref.json', 'mcp'],
    ['/brand-noref-a2a.json', 'a2a'],
  ])('an identity agent (%s) that answers get_brand_identity with an error fails the check, naming the protocol and the code', async (path, kind) => {
    const r = await check({ brandUrl: `${base}${path}` }, 'discovery.brand.identity-agent-answers');
    expect(r.outcome).toBe('fail');
    expect(r.message).toMatch(new RegExp(`identity agent .* \\(${kind}\\) get_brand_identity \\{\\}: error INVALID_REQUEST`));
    const asked = r.evidence!.exchanges.filter((x) => x.request.body.includes('get_brand_identity'));
    expect(asked.length).toBe(1);
    expect(asked[0]!.request.headers.authorization).toBeUndefined();
  });

  it("a publisher that authorizes none of the brand's sales agents is a warning naming both lists", async () => {
    const r = await check({ brandUrl: `${base}/brand.json`, adagentsUrl: `${base}/adagents-other.json` }, 'discovery.cross-file.sales-agents-authorized');
    expect(r.outcome).toBe('warn');
    expect(r.message).toBe(
      `the publisher authorizes none of the brand's 1 sales agent(s): brand.json names "https://a.test/mcp"; adagents.json authorizes "https://other.test/mcp"`,
    );
  });

  it('a key set with a private member fails discovery.brand.jwks-valid at its pointer', async () => {
    const r = await check({ brandUrl: `${base}/brand.json` }, 'discovery.brand.jwks-valid');
    expect(r.outcome).toBe('fail');
    expect(r.message).toMatch(/key set .*jwks\.json at \/keys\/0\/d: private member "d" published/);
    expect(JSON.stringify(r)).not.toContain(d);
  });
});
