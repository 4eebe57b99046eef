import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BrandJwksResolver, JWKS_MAX_BYTES } from './jwks-resolver.js';
import { publicJwk, type Jwk } from './keys.js';
import { isLoopbackAddress, isReservedAddress } from '../../net/address-ranges.js';
import { createSafeFetcher, type SafeFetchError } from '../../net/safe-fetch.js';
import { signRequest } from '../sign/signer.js';
import { context, freshKey, ids, NOW, SETUPS, signingKey } from '../testing/verifier-setup.js';
import { verifyRequestSignature } from '../verify/verifier.js';

const AGENT = 'https://agent.example.com/mcp';
const OTHER = 'https://other.example.com/mcp';
const keyA = freshKey('ed25519', 'kid-a');
const keyB = freshKey('ecdsa-p256-sha256', 'kid-b');
const keyLate = freshKey('ed25519', 'kid-late');

let server: Server;
let base = '';
let jwks: Jwk[] = [];
let adagents: unknown = {};
const hits = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const json = (v: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(typeof v === 'string' ? v : JSON.stringify(v));
    };
    if (path === '/brand.json') {
      return json({
        agents: [
          { url: AGENT, jwks_uri: `${base}/jwks.json` },
          { url: OTHER, jwks_uri: `${base}/jwks-other.json` },
        ],
      });
    }
    if (path === '/brand-redirect.json') return json({ agents: [{ url: AGENT, jwks_uri: `${base}/redirect` }] });
    if (path === '/brand-big.json') return json({ agents: [{ url: AGENT, jwks_uri: `${base}/big` }] });
    if (path === '/brand-dup.json') return json('{"agents":[],"agents":[]}');
    if (path === '/jwks.json') return json({ keys: jwks.map(publicJwk) });
    if (path === '/jwks-other.json') return json({ keys: [] });
    if (path === '/adagents.json') return json(adagents);
    if (path === '/redirect') {
      res.writeHead(302, { location: `${base}/jwks.json` });
      return res.end();
    }
    if (path === '/big') {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Streamed without content-length: the cap must hold while reading.
      res.write(`{"keys":[],"pad":"${'x'.repeat(JWKS_MAX_BYTES)}`);
      return res.end('"}');
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  hits.clear();
  jwks = [keyA, keyB];
  adagents = {};
});

function resolver(extra: Partial<ConstructorParameters<typeof BrandJwksResolver>[0]> = {}) {
  let now = NOW;
  const r = new BrandJwksResolver({ brandJsonUrl: `${base}/brand.json`, now: () => now, allowInsecureLoopback: true, ...extra });
  return { r, advance: (s: number) => void (now += s) };
}

describe('BrandJwksResolver', () => {
  it('resolves a kid through brand.json agents[].jwks_uri and caches', async () => {
    const { r } = resolver();
    expect(await r.resolve('kid-b')).toMatchObject({ ok: true, key: { agentUrl: AGENT, jwk: { kid: 'kid-b' } } });
    expect(await r.resolve('kid-a')).toMatchObject({ ok: true });
    expect(hits.get('/brand.json')).toBe(1);
    expect(hits.get('/jwks.json')).toBe(1);
  });

  it('refetches once on an unknown kid, then waits out the 30 s cooldown', async () => {
    const { r, advance } = resolver({ agentUrl: AGENT });
    expect(await r.resolve('kid-late')).toMatchObject({ ok: false, reason: 'key_unknown' });
    expect(hits.get('/jwks.json')).toBe(2);
    jwks = [keyA, keyB, keyLate];
    advance(29);
    expect(await r.resolve('kid-late')).toMatchObject({ ok: false, reason: 'key_unknown' });
    expect(hits.get('/jwks.json')).toBe(2);
    advance(1);
    expect(await r.resolve('kid-late')).toMatchObject({ ok: true, key: { agentUrl: AGENT } });
    expect(hits.get('/jwks.json')).toBe(3);
  });

  it('refuses redirects and oversize documents', async () => {
    const redirect = await resolver({ brandJsonUrl: `${base}/brand-redirect.json` }).r.resolve('kid-a');
    expect(redirect).toMatchObject({ ok: false, reason: 'jwks_unavailable' });
    expect(redirect.ok ? '' : redirect.detail).toMatch(/redirect/);
    expect(hits.get('/jwks.json')).toBeUndefined();
    const big = await resolver({ brandJsonUrl: `${base}/brand-big.json` }).r.resolve('kid-a');
    expect(big.ok ? '' : big.detail).toMatch(/exceeds/);
  });

  it('reports brand.json problems with their own reasons', async () => {
    expect(await resolver({ brandJsonUrl: `${base}/brand-dup.json` }).r.resolve('kid-a')).toMatchObject({ ok: false, reason: 'brand_json_malformed' });
    expect(await resolver({ brandJsonUrl: `${base}/missing.json` }).r.resolve('kid-a')).toMatchObject({ ok: false, reason: 'brand_json_unreachable' });
    expect(await resolver({ agentUrl: 'https://agent.example.com/mcp/' }).r.resolve('kid-a')).toMatchObject({ ok: false, reason: 'agent_not_in_brand_json' });
  });

  it('caches a brand.json failure for at most 60 s', async () => {
    const { r, advance } = resolver({ brandJsonUrl: `${base}/missing.json` });
    await r.resolve('kid-a');
    await r.resolve('kid-a');
    expect(hits.get('/missing.json')).toBe(1);
    advance(60);
    await r.resolve('kid-a');
    expect(hits.get('/missing.json')).toBe(2);
  });

  it('applies a publisher signing_keys pin', async () => {
    adagents = { authorized_agents: [{ url: AGENT, signing_keys: [{ kid: 'kid-a', x: keyA.x }] }] };
    const { r } = resolver({ agentUrl: AGENT, publisherDeclarationUrl: `${base}/adagents.json` });
    expect(await r.resolve('kid-a')).toMatchObject({ ok: true });
    expect(await r.resolve('kid-b')).toMatchObject({ ok: false, reason: 'key_unknown' });
    adagents = { signing_keys: [{ kid: 'kid-a', x: keyB.x }] };
    const mismatch = await resolver({ publisherDeclarationUrl: `${base}/adagents.json` }).r.resolve('kid-a');
    expect(mismatch).toMatchObject({ ok: false, reason: 'key_unknown' });
    adagents = { publisher: { domain: 'p.example' } };
    expect(await resolver({ publisherDeclarationUrl: `${base}/adagents.json` }).r.resolve('kid-b')).toMatchObject({ ok: true });
  });

  it('feeds the verifier: agent_url of the verified signer comes from brand.json', async () => {
    const signed = signRequest(
      { method: 'POST', url: 'https://buyer.example.com/hook', body: '{"a":1}' },
      { profile: 'webhook', ids, key: signingKey(keyA), created: NOW },
    );
    const { r } = resolver();
    const out = await verifyRequestSignature(signed, { ...context(SETUPS[2]!, []), keys: r });
    expect(out).toMatchObject({ ok: true, signer: { keyid: 'kid-a', agent_url: AGENT } });
    const unknown = signRequest(
      { method: 'POST', url: 'https://buyer.example.com/hook', body: '{"a":1}' },
      { profile: 'webhook', ids, key: signingKey(keyLate), created: NOW },
    );
    expect(await verifyRequestSignature(unknown, { ...context(SETUPS[2]!, []), keys: r })).toMatchObject({ code: 'webhook_signature_key_unknown', step: 7 });
  });
});

describe('safe fetch', () => {
  it('refuses http, loopback and private targets unless loopback is explicitly allowed', async () => {
    const strict = createSafeFetcher();
    const kind = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: SafeFetchError) => e.kind,
      );
    expect(await kind(strict(`${base}/jwks.json`, { maxBytes: 100 }))).toBe('scheme');
    expect(await kind(strict('https://127.0.0.1:1/x', { maxBytes: 100 }))).toBe('address');
    expect(await kind(strict('https://10.1.2.3/x', { maxBytes: 100 }))).toBe('address');
    expect(await kind(strict('https://[::ffff:169.254.169.254]/x', { maxBytes: 100 }))).toBe('address');
    const loose = createSafeFetcher({ allowInsecureLoopback: true });
    expect(await kind(loose('http://192.168.1.1/x', { maxBytes: 100 }))).toBe('address');
    expect(await kind(loose(`${base}/jwks.json`, { maxBytes: 100_000 }))).toBe('ok');
  });

  it('classifies reserved addresses', () => {
    for (const a of [
      '10.0.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '100.64.0.1',
      '127.0.0.1',
      '169.254.169.254',
      '0.1.2.3',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:8.8.8.8',
      'ff02::1',
    ]) {
      expect(isReservedAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '172.32.0.1', '2001:4860:4860::8888']) expect(isReservedAddress(a), a).toBe(false);
    expect(isLoopbackAddress('127.5.5.5')).toBe(true);
  });
});
