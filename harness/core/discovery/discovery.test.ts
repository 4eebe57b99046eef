/**
 * The discovery-file rules as library functions: key sets and pins judged with JSON pointers
 * (on the mock registry's files, clean and under its key faults), and bad files fetched from a
 * loopback server (truncated, too large, too deep, redirected, silent) each give one clear
 * failure, never a crash or a hang.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendHugeBody } from '../../testing/huge-body.js';
import { startMockRegistry } from '../../../mocks/registry/index.js';
import { baseUrlOf, listen } from '../net/listen.js';
import { fetchDiscoveryJson } from './fetch.js';
import { jwksProblems, pinProblems, publicKeyProblems } from './jwks-audit.js';

const ed = (kid: string) => {
  const { x, d } = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return { pub: { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' }, d };
};
const A = ed('a');
const B = ed('b');
const ecKey = () => {
  const { x, y } = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as Record<string, string>;
  return { kty: 'EC', crv: 'P-256', x, y, kid: 'ec' };
};

describe('key sets', () => {
  it('accepts public signing keys with unique kids', () => {
    expect(jwksProblems({ keys: [A.pub, B.pub, { ...ecKey(), alg: 'ES256', key_ops: ['verify'] }] })).toEqual([]);
  });

  it('names each problem with its pointer', () => {
    const p = (doc: unknown) => jwksProblems(doc).map((x) => x.pointer);
    expect(p({ keys: [{ ...A.pub, d: A.d }] })).toEqual(['/keys/0/d']);
    expect(p({ keys: [A.pub, { ...B.pub, kid: 'a' }] })).toEqual(['/keys/1/kid']);
    expect(p({ keys: [{ ...ecKey(), alg: 'EdDSA' }] })).toEqual(['/keys/0/alg']);
    expect(p({ keys: [{ ...A.pub, use: 'enc' }] })).toEqual(['/keys/0/use']);
    expect(p({ keys: [{ ...A.pub, key_ops: ['sign'] }] })).toEqual(['/keys/0/key_ops']);
    expect(p({ keys: [{ ...A.pub, kid: undefined }] })).toEqual(['/keys/0/kid']);
    expect(p({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: '!!', kid: 'bad' }] })).toEqual(['/keys/0']);
    expect(p({ keys: [] })).toEqual(['/keys']);
    expect(p([A.pub])).toEqual(['']);
    expect(publicKeyProblems('key', '/k')).toEqual([{ pointer: '/k', message: 'a key must be a JSON object' }]);
  });

  it('judges a pin against the published keys', () => {
    expect(pinProblems([A.pub], [A.pub, B.pub])).toEqual([]);
    // The same key under another kid is still the same key.
    expect(pinProblems([{ ...A.pub, kid: 'renamed' }], [A.pub])).toEqual([]);
    expect(pinProblems([B.pub], [A.pub]).map((x) => x.pointer)).toEqual(['/signing_keys/0']);
    expect(pinProblems([{ ...A.pub, d: A.d }], [A.pub]).map((x) => x.pointer)).toEqual(['/signing_keys/0/d']);
    expect(pinProblems({}, [A.pub]).map((x) => x.pointer)).toEqual(['/signing_keys']);
  });

  it("flags exactly the mock registry's key faults", async () => {
    const files = async (faults: string[]) => {
      const r = await startMockRegistry({
        agents: [{ url: 'http://127.0.0.1:9/mcp', protocol: 'mcp', capabilities: ['get_products'] }],
        agentKeys: [A.pub],
        faults,
      });
      try {
        const brand = (await fetchDiscoveryJson(r.brandUrl, { allowInsecureLoopback: true })) as { ok: true; value: { agents: Array<{ jwks_uri: string }> } };
        const jwks = await fetchDiscoveryJson(brand.value.agents[0]!.jwks_uri, { allowInsecureLoopback: true });
        const adagents = await fetchDiscoveryJson(r.adagentsUrl, { allowInsecureLoopback: true });
        if (!jwks.ok || !adagents.ok) throw new Error('fetch failed');
        const keys = (jwks.value as { keys: Array<Record<string, unknown>> }).keys;
        return {
          jwks: jwksProblems(jwks.value).map((x) => x.pointer),
          pin: pinProblems((adagents.value as { signing_keys: unknown }).signing_keys, keys).map((x) => x.pointer),
        };
      } finally {
        await r.close();
      }
    };
    expect(await files([])).toEqual({ jwks: [], pin: [] });
    expect(await files(['jwks-private-member'])).toEqual({ jwks: ['/keys/1/d'], pin: [] });
    expect(await files(['jwks-duplicate-kid'])).toEqual({ jwks: ['/keys/1/kid'], pin: [] });
    expect(await files(['pin-mismatch'])).toEqual({ jwks: [], pin: ['/signing_keys/0'] });
  });
});

describe('fetching a discovery file', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"version":"1.0"}');
      if (req.url === '/truncated') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"agents": [{"url": "https://a');
      if (req.url === '/deep') return void res.writeHead(200).end(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
      // 10 MB, chunked (no content-length), the way a hostile host streams it.
      if (req.url === '/huge') return sendHugeBody(res, 10 * 1024 * 1024);
      if (req.url === '/redirect') return void res.writeHead(302, { location: 'http://10.0.0.1/.well-known/adagents.json' }).end();
      if (req.url === '/silent') return; // never answers
      res.writeHead(404).end();
    });
    base = baseUrlOf(await listen(server, 0, '127.0.0.1'));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const get = (path: string) => fetchDiscoveryJson(`${base}${path}`, { allowInsecureLoopback: true, totalTimeoutMs: 1_500 });

  it('reads a JSON file with its content type and size', async () => {
    expect(await get('/ok')).toMatchObject({ ok: true, status: 200, contentType: 'application/json', bytes: 17, value: { version: '1.0' } });
  });

  it('gives each bad file one clear failure', async () => {
    const outcomes = await Promise.all(['/truncated', '/deep', '/huge', '/redirect', '/silent', '/missing'].map(get));
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.kind))).toEqual(['json', 'too_deep', 'too_large', 'redirect', 'timeout', 'status']);
    const messages = outcomes.map((o) => (o.ok ? '' : o.message));
    expect(messages[0]).toMatch(/truncated: not JSON \(.*30.*\); 30 bytes read$/);
    expect(messages[2]).toMatch(/exceeds 1048576 bytes/);
    expect(messages[5]).toMatch(/HTTP 404/);
  });

  it('refuses plain http off loopback and private addresses under a deny-private policy', async () => {
    const { AddressPolicy } = await import('../net/address-policy.js');
    expect(await fetchDiscoveryJson('http://publisher.example/.well-known/adagents.json')).toMatchObject({ ok: false, kind: 'scheme' });
    expect(await fetchDiscoveryJson(`${base}/ok`, { policy: new AddressPolicy({ denyPrivate: true }) })).toMatchObject({ ok: false });
  });
});
