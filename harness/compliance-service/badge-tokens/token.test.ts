/** Badge tokens: issue and verify, every rejection reason, and verification by an independent JOSE path (createRemoteJWKSet over loopback HTTP). */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BadgeStatement } from './claims.js';
import { BadgeKeySet } from './key-set.js';
import { issueBadgeToken, MAX_BADGE_TOKEN_LENGTH, verifyBadgeToken } from './token.js';

const HOUR = 3600;
const T0 = new Date('2026-03-01T00:00:00Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);
const STATEMENT: BadgeStatement = {
  iss: 'https://registry.example',
  sub: 'https://agent.example/mcp',
  role: 'media-buy',
  verified_specialisms: ['sales-guaranteed', 'sales-non-guaranteed'],
  verification_modes: ['spec', 'live'],
  proto_version: '3.0',
  verified_protocol_version: '3.0.6',
};

let dir: string;
let keys: BadgeKeySet;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'badge-tokens-'));
  keys = await BadgeKeySet.open(join(dir, 'badge-keys.json'), { maxTokenLifetimeSeconds: 24 * HOUR, now: () => T0 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

describe('badge tokens', () => {
  it('round trip: header alg EdDSA, typ badge+jwt, kid; every claim; times from now and lifetime', async () => {
    const token = await issueBadgeToken(keys, STATEMENT, { now: T0, lifetimeSeconds: 12 * HOUR });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'EdDSA', typ: 'badge+jwt', kid: keys.currentKid });
    const r = await verifyBadgeToken(token, keys.jwks(), {
      now: at(HOUR),
      issuer: STATEMENT.iss,
      agentUrl: 'HTTPS://agent.example:443/mcp/',
      role: 'media-buy',
    });
    expect(r).toEqual({
      ok: true,
      kid: keys.currentKid,
      claims: { ...STATEMENT, iat: T0.getTime() / 1000, nbf: T0.getTime() / 1000, exp: T0.getTime() / 1000 + 12 * HOUR, jti: expect.any(String) },
    });
  });

  it('determinism: equal claims (same jti and time) give equal tokens; a fresh jti by default makes them differ', async () => {
    const a = await issueBadgeToken(keys, { ...STATEMENT, jti: 'j-1' }, { now: T0, lifetimeSeconds: HOUR });
    const b = await issueBadgeToken(keys, { ...STATEMENT, jti: 'j-1' }, { now: T0, lifetimeSeconds: HOUR });
    expect(a).toBe(b);
    const c = await issueBadgeToken(keys, STATEMENT, { now: T0, lifetimeSeconds: HOUR });
    const d = await issueBadgeToken(keys, STATEMENT, { now: T0, lifetimeSeconds: HOUR });
    expect(c).not.toBe(d);
  });

  it('refuses to issue a malformed statement or a lifetime beyond the key set (a retired key would vanish before its tokens expire)', async () => {
    await expect(issueBadgeToken(keys, { ...STATEMENT, verification_modes: [] }, { lifetimeSeconds: HOUR })).rejects.toThrow(/verification_modes/);
    await expect(issueBadgeToken(keys, { ...STATEMENT, role: 'seller' as never }, { lifetimeSeconds: HOUR })).rejects.toThrow(/role/);
    await expect(issueBadgeToken(keys, { ...STATEMENT, sub: 'ftp://x' }, { lifetimeSeconds: HOUR })).rejects.toThrow(/sub/);
    await expect(issueBadgeToken(keys, { ...STATEMENT, verified_protocol_version: '3.1.0' }, { lifetimeSeconds: HOUR })).rejects.toThrow(/line/);
    await expect(issueBadgeToken(keys, { ...STATEMENT, verified_protocol_version: '3.0.x' }, { lifetimeSeconds: HOUR })).rejects.toThrow(
      /verified_protocol_version/,
    );
    await expect(issueBadgeToken(keys, STATEMENT, { lifetimeSeconds: 24 * HOUR + 1 })).rejects.toThrow(/maxTokenLifetimeSeconds/);
    await expect(issueBadgeToken(keys, STATEMENT, { lifetimeSeconds: 0 })).rejects.toThrow(/positive/);
  });

  it('verified_protocol_version: a concrete version or pre-release of the line, or the line itself when no concrete bundle is known', async () => {
    for (const v of ['3.0', '3.0.12', '3.0.0-beta.5']) {
      const t = await issueBadgeToken(keys, { ...STATEMENT, verified_protocol_version: v }, { now: T0, lifetimeSeconds: HOUR });
      expect(await verifyBadgeToken(t, keys.jwks(), { now: T0 }), v).toMatchObject({ ok: true, claims: { verified_protocol_version: v } });
    }
    await expect(issueBadgeToken(keys, { ...STATEMENT, verified_protocol_version: '3.01' }, { lifetimeSeconds: HOUR })).rejects.toThrow(/line/);
  });

  it('a tampered payload fails: bad signature', async () => {
    const token = await issueBadgeToken(keys, STATEMENT, { now: T0, lifetimeSeconds: HOUR });
    const [h, , s] = token.split('.');
    const forged = `${h}.${b64({ ...payloadOf(token), role: 'governance' })}.${s}`;
    expect(await verifyBadgeToken(forged, keys.jwks(), { now: T0 })).toMatchObject({ ok: false, reason: 'bad_signature' });
    const flipped = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BA' : 'AA'}`;
    expect(await verifyBadgeToken(flipped, keys.jwks(), { now: T0 })).toMatchObject({ ok: false, reason: expect.stringMatching(/bad_signature|malformed/) });
  });

  it('expiry and not-before: exp is exclusive, nbf inclusive, the tolerance widens both', async () => {
    const token = await issueBadgeToken(keys, STATEMENT, { now: T0, lifetimeSeconds: HOUR });
    expect(await verifyBadgeToken(token, keys.jwks(), { now: at(HOUR - 1) })).toMatchObject({ ok: true });
    expect(await verifyBadgeToken(token, keys.jwks(), { now: at(HOUR) })).toEqual({
      ok: false,
      reason: 'expired',
      message: 'expired at 2026-03-01T01:00:00.000Z',
    });
    expect(await verifyBadgeToken(token, keys.jwks(), { now: at(HOUR), clockToleranceSeconds: 30 })).toMatchObject({ ok: true });
    expect(await verifyBadgeToken(token, keys.jwks(), { now: at(-1) })).toMatchObject({ ok: false, reason: 'not_yet_valid' });
  });

  it('wrong issuer, agent or role', async () => {
    const token = await issueBadgeToken(keys, STATEMENT, { now: T0, lifetimeSeconds: HOUR });
    const j = keys.jwks();
    expect(await verifyBadgeToken(token, j, { now: T0, issuer: 'https://other.example' })).toMatchObject({ ok: false, reason: 'wrong_issuer' });
    expect(await verifyBadgeToken(token, j, { now: T0, agentUrl: 'https://agent.example/a2a' })).toMatchObject({ ok: false, reason: 'wrong_agent' });
    expect(await verifyBadgeToken(token, j, { now: T0, role: 'creative' })).toMatchObject({ ok: false, reason: 'wrong_role' });
  });

  it('alg none, HS256 keyed with the public key, and any other alg are refused before any key is used', async () => {
    const token = await issueBadgeToken(keys, STATEMENT, { now: T0, lifetimeSeconds: HOUR });
    const j = keys.jwks();
    const payload = token.split('.')[1];
    const none = `${b64({ alg: 'none', typ: 'badge+jwt', kid: keys.currentKid })}.${payload}.`;
    expect(await verifyBadgeToken(none, j, { now: T0 })).toMatchObject({ ok: false, reason: 'alg_not_allowed' });
    const secret = Buffer.from(j.keys[0]!.x, 'base64url');
    const hs = await new SignJWT(payloadOf(token)).setProtectedHeader({ alg: 'HS256', typ: 'badge+jwt', kid: keys.currentKid }).sign(secret);
    expect(await verifyBadgeToken(hs, j, { now: T0 })).toMatchObject({
      ok: false,
      reason: 'alg_not_allowed',
      message: 'alg "HS256" is not allowed (only EdDSA)',
    });
    const hsWithJwk = await new SignJWT(payloadOf(token))
      .setProtectedHeader({ alg: 'HS256', typ: 'badge+jwt', kid: keys.currentKid })
      .sign(Buffer.from(JSON.stringify(j.keys[0])));
    expect(await verifyBadgeToken(hsWithJwk, j, { now: T0 })).toMatchObject({ ok: false, reason: 'alg_not_allowed' });
    const [, , sig] = token.split('.');
    for (const alg of ['ES256', 'RS256', 'Ed25519', 'eddsa', '']) {
      const t = `${b64({ alg, typ: 'badge+jwt', kid: keys.currentKid })}.${payload}.${sig}`;
      expect(await verifyBadgeToken(t, j, { now: T0 }), alg).toMatchObject({ ok: false, reason: 'alg_not_allowed' });
    }
  });

  it('malformed, too long, wrong typ, unknown kid, unusable key', async () => {
    const token = await issueBadgeToken(keys, STATEMENT, { now: T0, lifetimeSeconds: HOUR });
    const j = keys.jwks();
    const [h, p, s] = token.split('.');
    expect(await verifyBadgeToken('not a token', j)).toMatchObject({ reason: 'malformed' });
    expect(await verifyBadgeToken(`${h}.${p}`, j)).toMatchObject({ reason: 'malformed' });
    expect(await verifyBadgeToken(`${token}.x.y`, j)).toMatchObject({ reason: 'malformed' });
    expect(await verifyBadgeToken(`${b64('x')}x.${p}.${s}`, j)).toMatchObject({ reason: 'malformed' });
    expect(await verifyBadgeToken(42, j)).toMatchObject({ reason: 'malformed' });
    expect(await verifyBadgeToken(`${token}${'A'.repeat(MAX_BADGE_TOKEN_LENGTH)}`, j)).toMatchObject({ reason: 'too_long' });
    expect(await verifyBadgeToken(`${b64({ alg: 'EdDSA', typ: 'JWT', kid: keys.currentKid })}.${p}.${s}`, j)).toMatchObject({ reason: 'wrong_type' });
    expect(await verifyBadgeToken(`${b64({ alg: 'EdDSA', typ: 'badge+jwt' })}.${p}.${s}`, j)).toMatchObject({ reason: 'unknown_kid' });
    expect(await verifyBadgeToken(token, { keys: [] }, { now: T0 })).toMatchObject({ reason: 'unknown_kid' });
    expect(await verifyBadgeToken(token, { nope: 1 }, { now: T0 })).toMatchObject({ reason: 'unknown_kid' });
    expect(await verifyBadgeToken(token, { keys: [{ ...j.keys[0], crv: 'X25519' }] }, { now: T0 })).toMatchObject({ reason: 'unusable_key' });
    expect(await verifyBadgeToken(token, { keys: [{ ...j.keys[0], use: 'enc' }] }, { now: T0 })).toMatchObject({ reason: 'unusable_key' });
    expect(await verifyBadgeToken(token, { keys: [j.keys[0], j.keys[0]] }, { now: T0 })).toMatchObject({ reason: 'unusable_key' });
  });

  it('a well-signed token with malformed claims is still refused', async () => {
    const { kid, key } = await keys.signingKey();
    const bad = await new SignJWT({ ...payloadOf(await issueBadgeToken(keys, STATEMENT, { now: T0, lifetimeSeconds: HOUR })), verification_modes: [] })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'badge+jwt', kid })
      .sign(key);
    expect(await verifyBadgeToken(bad, keys.jwks(), { now: T0 })).toMatchObject({ ok: false, reason: 'malformed_claims' });
  });

  it('rotation: tokens of the retired key verify until they expire; once the key is dropped they fail as unknown kid', async () => {
    const path = join(dir, 'rotating.json');
    const set = await BadgeKeySet.open(path, { maxTokenLifetimeSeconds: HOUR, now: () => T0 });
    const old = await issueBadgeToken(set, STATEMENT, { now: T0, lifetimeSeconds: HOUR });
    await set.rotate(at(60));
    const fresh = await issueBadgeToken(set, STATEMENT, { now: at(60), lifetimeSeconds: HOUR });
    expect(decodeProtectedHeader(fresh).kid).toBe(set.currentKid);
    expect(decodeProtectedHeader(old).kid).not.toBe(set.currentKid);
    expect(await verifyBadgeToken(old, set.jwks(at(HOUR - 1)), { now: at(HOUR - 1) })).toMatchObject({ ok: true });
    await set.prune(at(HOUR + 60));
    const later = set.jwks(at(HOUR + 60));
    expect(later.keys).toHaveLength(1);
    // Even a verifier with a wrong clock cannot accept it: the key is gone.
    expect(await verifyBadgeToken(old, later, { now: T0 })).toMatchObject({ ok: false, reason: 'unknown_kid' });
    expect(await verifyBadgeToken(fresh, later, { now: at(HOUR) })).toMatchObject({ ok: true });
  });
});

describe('verifiable with any JOSE library: createRemoteJWKSet + jwtVerify against a loopback JWKS', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url !== '/api/.well-known/jwks.json') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(keys.jwks()));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/.well-known/jwks.json`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('verifies a token by the standard path, with issuer, subject, typ and alg pinned', async () => {
    const now = new Date();
    const token = await issueBadgeToken(keys, STATEMENT, { now, lifetimeSeconds: HOUR });
    const { payload, protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(url)), {
      algorithms: ['EdDSA'],
      issuer: STATEMENT.iss,
      subject: STATEMENT.sub,
      typ: 'badge+jwt',
      currentDate: now,
    });
    expect(protectedHeader.kid).toBe(keys.currentKid);
    expect(payload).toMatchObject({ role: 'media-buy', verification_modes: ['spec', 'live'], verified_protocol_version: '3.0.6' });
  });
});
