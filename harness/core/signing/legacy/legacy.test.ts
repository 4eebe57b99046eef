import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bearerHeaders, constantTimeEqual, verifyBearerWebhook } from './legacy-bearer.js';
import { DuplicateKeyInputError, hmacSignature, LegacyConfigError, signHmacWebhook, verifyHmacWebhook } from './legacy-hmac.js';
import { signRequest } from '../sign/signer.js';
import { context, freshKey, ids, NOW, SETUPS, signingKey } from '../testing/verifier-setup.js';
import { verifyWebhook, webhookMode } from '../verify/webhook-mode.js';

const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMy'; // 40 characters
const BODY = '{"idempotency_key":"abcdefghijklmnop","status":"completed","task_id":"t"}';
const sigH = ids.hmacSignatureHeader;
const tsH = ids.hmacTimestampHeader;

describe('HMAC-SHA256', () => {
  it('signs <timestamp>.<raw body> with the UTF-8 bytes of the secret', () => {
    // RFC 4231 test case 2 (key "Jefe"), with the message split at its '?' as `<ts>.<body>` would be.
    const jefe = createHmac('sha256', 'Jefe').update('what do ya want for nothing.?').digest('hex');
    expect(hmacSignature('Jefe', 'what do ya want for nothing', '?')).toBe(`sha256=${jefe}`);
    expect(createHmac('sha256', 'Jefe').update('what do ya want for nothing?').digest('hex')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    // A hex-looking secret is used as its UTF-8 bytes, never hex-decoded.
    const hexSecret = 'ab'.repeat(32);
    expect(hmacSignature(hexSecret, 1, 'x')).toBe(`sha256=${createHmac('sha256', Buffer.from(hexSecret, 'utf8')).update('1.x').digest('hex')}`);
    expect(hmacSignature(hexSecret, 1, 'x')).not.toBe(`sha256=${createHmac('sha256', Buffer.from(hexSecret, 'hex')).update('1.x').digest('hex')}`);
    const h = signHmacWebhook(ids, SECRET, BODY, NOW);
    expect(h[tsH]).toBe(String(NOW));
    expect(h[sigH]).toMatch(/^sha256=[0-9a-f]{64}$/);
    const utf8Secret = 'ünïcödé-sëcrët-ünïcödé-sëcrët-ünïcödé!!';
    expect(hmacSignature(utf8Secret, 1, 'x')).toBe(hmacSignature(Buffer.from(utf8Secret, 'utf8').toString('utf8'), '1', Buffer.from('x')));
  });

  it('verifies, and rejects in the digest order', () => {
    const h = signHmacWebhook(ids, SECRET, BODY, NOW);
    const v = (headers: Record<string, string>, body = BODY, now = NOW) => verifyHmacWebhook({ headers, body }, { ids, secret: SECRET, now: () => now });
    expect(v(h)).toEqual({ ok: true });
    expect(v({ [sigH.toLowerCase()]: h[sigH]!, [tsH.toUpperCase()]: h[tsH]! })).toEqual({ ok: true });
    expect(v({ [sigH]: h[sigH]! })).toMatchObject({ kind: 'missing_header' });
    expect(v({ ...h, [tsH]: 'abc' })).toMatchObject({ kind: 'timestamp_invalid' });
    expect(v(h, BODY, NOW + 301)).toMatchObject({ kind: 'timestamp_skew', code: 'webhook_signature_window_invalid' });
    expect(v(h, BODY, NOW - 300)).toEqual({ ok: true });
    expect(v(h, `${BODY} `)).toMatchObject({ kind: 'signature_mismatch', code: 'webhook_signature_invalid' });
    for (const bad of ['', 'sha256=', `sha256=sha256=${h[sigH]!.slice(7)}`, h[sigH]!.slice(0, -1), h[sigH]!.replace('sha256=', 'sha1=')]) {
      expect(v({ ...h, [sigH]: bad })).toMatchObject({ kind: 'signature_mismatch' });
    }
    expect(v({ ...h, [sigH]: h[sigH]!.toUpperCase().replace('SHA256=', 'sha256=') })).toEqual({ ok: true });
  });

  it('checks duplicate keys only after the HMAC passes', () => {
    const dup = '{"a":1,"a":2}';
    const ts = String(NOW);
    const good = { [sigH]: hmacSignature(SECRET, ts, dup), [tsH]: ts };
    expect(verifyHmacWebhook({ headers: good, body: dup }, { ids, secret: SECRET, now: () => NOW })).toMatchObject({
      kind: 'body_malformed',
      code: 'webhook_body_malformed',
    });
    expect(verifyHmacWebhook({ headers: { ...good, [sigH]: `sha256=${'0'.repeat(64)}` }, body: dup }, { ids, secret: SECRET, now: () => NOW })).toMatchObject({
      kind: 'signature_mismatch',
    });
    expect(() => signHmacWebhook(ids, SECRET, dup, NOW)).toThrow(DuplicateKeyInputError);
  });

  it('accepts the previous secret only within its rotation window', () => {
    const old = 'o'.repeat(32);
    const h = signHmacWebhook(ids, old, BODY, NOW);
    const opts = { ids, secret: SECRET, now: () => NOW, previous: { secret: old, until: NOW + 10 } };
    expect(verifyHmacWebhook({ headers: h, body: BODY }, opts)).toEqual({ ok: true });
    expect(verifyHmacWebhook({ headers: h, body: BODY }, { ...opts, now: () => NOW + 11 })).toMatchObject({ kind: 'signature_mismatch' });
  });

  it('refuses secrets shorter than 32 characters', () => {
    expect(() => signHmacWebhook(ids, 'x'.repeat(31), BODY, NOW)).toThrow(LegacyConfigError);
    expect(() => verifyHmacWebhook({ headers: {}, body: BODY }, { ids, secret: 'é'.repeat(31), now: () => NOW })).toThrow(LegacyConfigError);
    expect(() => signHmacWebhook(ids, 'é'.repeat(32), BODY, NOW)).not.toThrow();
  });
});

describe('Bearer', () => {
  it('compares credentials in constant time', () => {
    expect(verifyBearerWebhook(bearerHeaders(SECRET), SECRET)).toEqual({ ok: true });
    expect(verifyBearerWebhook({ authorization: `bearer ${SECRET}` }, SECRET)).toEqual({ ok: true });
    expect(verifyBearerWebhook({ Authorization: `Bearer ${SECRET}x` }, SECRET)).toMatchObject({ kind: 'signature_mismatch' });
    expect(verifyBearerWebhook({}, SECRET)).toMatchObject({ kind: 'missing_header' });
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
  });
});

describe('mode switch', () => {
  const jwk = freshKey('ed25519', 'wh', 'request-signing');
  const URL = 'https://buyer.example.com/hook';
  const signed = signRequest({ method: 'POST', url: URL, body: BODY }, { profile: 'webhook', ids, key: signingKey(jwk), created: NOW });
  const hmacReq = { method: 'POST', url: URL, headers: { 'Content-Type': 'application/json', ...signHmacWebhook(ids, SECRET, BODY, NOW) }, body: BODY };
  const opts = () => ({ ids, now: () => NOW, signature: context(SETUPS[2]!, [jwk]) });
  const hmac = { schemes: ['HMAC-SHA256'], credentials: SECRET };

  it('selects the mode from the registration', () => {
    expect(webhookMode(undefined)).toBe('rfc9421');
    expect(webhookMode(hmac)).toBe('hmac-sha256');
    expect(webhookMode({ scheme: 'Bearer', credentials: SECRET })).toBe('bearer');
    expect(() => webhookMode({ schemes: ['Basic'] })).toThrow();
  });

  it('verifies each mode and never falls back to the other', async () => {
    expect(await verifyWebhook(signed, undefined, opts())).toMatchObject({ ok: true, mode: 'rfc9421', sender: { identity: 'https://agent.example.com/mcp' } });
    expect(await verifyWebhook(hmacReq, hmac, opts())).toMatchObject({ ok: true, mode: 'hmac-sha256', sender: { kind: 'credential' } });
    expect(await verifyWebhook(hmacReq, undefined, opts())).toMatchObject({ ok: false, status: 401, code: 'webhook_mode_mismatch' });
    expect(await verifyWebhook(signed, hmac, opts())).toMatchObject({
      ok: false,
      code: 'webhook_mode_mismatch',
      wwwAuthenticate: 'Signature error="webhook_mode_mismatch"',
    });
    const both = { ...signed, headers: { ...signed.headers, ...hmacReq.headers } };
    expect(await verifyWebhook(both, undefined, opts())).toMatchObject({ code: 'webhook_mode_mismatch' });
    const bearer = { method: 'POST', url: URL, headers: { 'Content-Type': 'application/json', ...bearerHeaders(SECRET) }, body: BODY };
    expect(await verifyWebhook(bearer, { schemes: ['Bearer'], credentials: SECRET }, opts())).toMatchObject({ ok: true, mode: 'bearer' });
    expect(await verifyWebhook(bearer, undefined, opts())).toMatchObject({ code: 'webhook_mode_mismatch' });
  });

  it('rejects non-JSON content types before verification', async () => {
    const r = await verifyWebhook({ ...signed, headers: { ...signed.headers, 'Content-Type': 'text/plain' } }, undefined, opts());
    expect(r).toMatchObject({ ok: false, status: 415 });
  });
});
