/**
 * Key and discovery fetches (brand.json, JWKS) on loopback: no redirect is followed, no
 * credential is sent, and under --deny-private a jwks_uri on a private address is never contacted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BrandJwksResolver } from '../signing/keys/jwks-resolver.js';
import { AddressPolicy } from './address-policy.js';
import { createSafeFetcher, type SafeFetchError } from './safe-fetch.js';
import { startTestServer, startTrap } from './testing/trap-server.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const kind = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: SafeFetchError) => e.kind,
  );

describe('safe fetch', () => {
  it('refuses a redirect and never follows it to the trap', async () => {
    const trap = await startTrap();
    const redirecting = await startTestServer('127.0.0.1', 0, (_req, res) => res.writeHead(302, { location: `${trap.origin}/jwks.json` }).end());
    closers.push(
      () => trap.close(),
      () => redirecting.close(),
    );
    const fetcher = createSafeFetcher({ allowInsecureLoopback: true });
    await expect(fetcher(`${redirecting.origin}/.well-known/brand.json`, { maxBytes: 1000 })).rejects.toMatchObject({ kind: 'redirect' });
    expect(redirecting.requests).toHaveLength(1);
    expect(redirecting.requests[0]!.headers.authorization).toBeUndefined();
    expect(trap.connections).toBe(0);
  });

  it('under --deny-private, a brand.json whose jwks_uri is on a private address: the JWKS is never fetched', async () => {
    const trap = await startTrap('127.0.0.2');
    const brand = await startTestServer('127.0.0.1', 0, (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ agents: [{ url: 'https://agent.example/mcp', jwks_uri: `${trap.origin}/jwks.json` }] })),
    );
    closers.push(
      () => trap.close(),
      () => brand.close(),
    );
    // The agent (and its brand.json) on 127.0.0.1 is let through; nothing else private is.
    const policy = new AddressPolicy({ denyPrivate: true, allowHosts: ['127.0.0.1'] });
    const resolver = new BrandJwksResolver({ brandJsonUrl: `${brand.origin}/brand.json`, allowInsecureLoopback: true, addressPolicy: policy });
    const out = await resolver.resolve('any-kid');
    expect(out).toMatchObject({ ok: false, reason: 'jwks_untrusted' });
    expect(out.ok ? '' : out.detail).toMatch(/refused: 127\.0\.0\.2 is a reserved address \(loopback\)/);
    expect(brand.requests).toHaveLength(1);
    expect(trap.connections).toBe(0);
  });

  it('under --deny-private loopback is refused for documents too unless allow-listed', async () => {
    const server = await startTestServer();
    closers.push(() => server.close());
    const url = `${server.origin}/jwks.json`;
    expect(await kind(createSafeFetcher({ allowInsecureLoopback: true })(url, { maxBytes: 100 }))).toBe('ok');
    expect(await kind(createSafeFetcher({ allowInsecureLoopback: true, policy: new AddressPolicy({ denyPrivate: true }) })(url, { maxBytes: 100 }))).toBe(
      'address',
    );
    const allowed = new AddressPolicy({ denyPrivate: true, allowHosts: ['127.0.0.1'] });
    expect(await kind(createSafeFetcher({ allowInsecureLoopback: true, policy: allowed })(url, { maxBytes: 100 }))).toBe('ok');
    expect(server.requests).toHaveLength(2);
  });

  it('resolves names through the policy: a public-looking name on a private address is refused before any connection', async () => {
    const trap = await startTrap();
    closers.push(() => trap.close());
    const policy = new AddressPolicy({ lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    const fetcher = createSafeFetcher({ policy });
    expect(await kind(fetcher(`https://keys.example.com:${trap.port}/jwks.json`, { maxBytes: 100 }))).toBe('address');
    expect(trap.connections).toBe(0);
  });
});
