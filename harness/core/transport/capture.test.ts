/** Redaction and wire capture: nothing secret is ever stored. */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { protocolIds } from '../token.js';
import { createRecorder } from './capture.js';
import { Redactor, redact, redactAuthorization, redactCookie, redactionMarker } from './redact.js';
import type { WireExchange } from './types.js';

const prefix = (s: string): string => redactionMarker(s).slice('<redacted:'.length, -1);

function exchange(over: Partial<Omit<WireExchange, 'seq'>> = {}): Omit<WireExchange, 'seq'> {
  return {
    transport: 'mcp',
    purpose: 'tools/call get_products',
    started_at: '2026-01-01T00:00:00.000Z',
    duration_ms: 3,
    request: { method: 'POST', url: 'http://127.0.0.1:1/mcp', headers: {}, body: '' },
    ...over,
  };
}

describe('redact', () => {
  it('replaces raw, JSON-escaped and percent-encoded spellings with a hash-prefix marker', () => {
    const secret = 'se"cret\\value/1234';
    const json = JSON.stringify({ token: secret });
    const text = `raw=${secret} json=${json} url=?t=${encodeURIComponent(secret)}`;
    const out = redact(text, [secret]);
    expect(out).not.toContain(secret);
    expect(out).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(out).not.toContain(encodeURIComponent(secret));
    expect(out.split(`<redacted:${prefix(secret)}>`)).toHaveLength(4);
  });

  it('marks with a per-run key: the marker is not a plain hash of the secret, so a guess cannot be confirmed', () => {
    const secret = 'guessable-secret-1234';
    expect(redactionMarker(secret)).toBe(redactionMarker(secret));
    expect(redactionMarker(secret)).not.toContain(createHash('sha256').update(secret).digest('hex').slice(0, 8));
    expect(redactionMarker(secret, Buffer.alloc(32, 1))).not.toBe(redactionMarker(secret, Buffer.alloc(32, 2)));
  });

  it('redacts base64 (std and url) spellings, also inside a longer base64 text, and url-encoded forms', () => {
    const secret = 'tok+en/with?odd&chars~1234';
    for (const prefixText of ['', 'u', 'us', 'user:']) {
      const blob = Buffer.from(`${prefixText}${secret}:tail`);
      const text = `std ${blob.toString('base64')} url ${blob.toString('base64url')} enc ${encodeURIComponent(secret)} form ${encodeURIComponent(secret).replaceAll('%20', '+')}`;
      const out = redact(text, [secret]);
      expect(out).not.toContain(Buffer.from(secret).toString('base64').slice(4, -4));
      expect(out).toContain('<redacted:');
      expect(out).not.toContain(encodeURIComponent(secret));
    }
  });

  it('ignores secrets too short to redact safely and replaces longer secrets first', () => {
    expect(redact('a b c', ['a'])).toBe('a b c');
    const out = redact('token-ABCDEFGH-long', ['ABCDEFGH', 'token-ABCDEFGH-long']);
    expect(out).toBe(redactionMarker('token-ABCDEFGH-long'));
  });

  it('never lets a secret through (property)', () => {
    const secretArb = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), minLength: 12, maxLength: 40 });
    fc.assert(
      fc.property(secretArb, fc.string(), fc.string(), (secret, before, after) => {
        const text = `${before}${secret}${after}${JSON.stringify({ s: secret })}`;
        expect(redact(text, [secret])).not.toContain(secret);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps the auth scheme and cookie names readable', () => {
    expect(redactAuthorization('Bearer abc.def')).toBe(`Bearer <redacted:${prefix('abc.def')}>`);
    expect(redactAuthorization('Signature keyid="k"')).toBe(`Signature <redacted:${prefix('keyid="k"')}>`);
    expect(redactCookie('sid=abc123; theme=dark')).toBe(`sid=<redacted:${prefix('abc123')}>; theme=<redacted:${prefix('dark')}>`);
    expect(redactCookie('sid=abc123; Path=/; HttpOnly')).toBe(`sid=<redacted:${prefix('abc123')}>; Path=/; HttpOnly`);
    // two Set-Cookie headers joined by the HTTP client, one with an Expires date holding a comma
    expect(redactCookie('a=v1; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=v2; Path=/')).toBe(
      `a=<redacted:${prefix('v1')}>; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=<redacted:${prefix('v2')}>; Path=/`,
    );
  });
});

describe('createRecorder', () => {
  it('redacts auth, HMAC signature and cookie headers at record time', () => {
    const ids = protocolIds('acme');
    const rec = createRecorder({ token: 'acme' });
    const stored = rec.record(
      exchange({
        request: {
          method: 'POST',
          url: 'http://127.0.0.1:1/hook',
          headers: { Authorization: 'Bearer tok-1234567', [ids.hmacSignatureHeader]: 'sha256=deadbeef', Cookie: 'a=b1' },
          body: '{}',
        },
        response: { status: 200, headers: { 'Set-Cookie': 'sid=zz99; Path=/' }, body: 'ok' },
      }),
    );
    expect(stored.request.headers.authorization).toBe(`Bearer <redacted:${prefix('tok-1234567')}>`);
    expect(stored.request.headers[ids.hmacSignatureHeader.toLowerCase()]).toBe(`sha256=<redacted:${prefix('deadbeef')}>`);
    expect(stored.request.headers.cookie).toBe(`a=<redacted:${prefix('b1')}>`);
    expect(stored.response?.headers['set-cookie']).toBe(`sid=<redacted:${prefix('zz99')}>; Path=/`);
    expect(JSON.stringify(rec.all())).not.toMatch(/tok-1234567|deadbeef|zz99/);
  });

  it('redacts registered secrets everywhere, from the moment they are added', () => {
    const rec = createRecorder({ secrets: ['initial-secret'] });
    const s = 'webhook-credential-0123456789abcdef';
    rec.record(exchange({ request: { method: 'POST', url: 'http://x/?k=initial-secret', headers: {}, body: s } }));
    rec.addSecret(s);
    rec.record(
      exchange({
        purpose: `register ${s}`,
        request: { method: 'POST', url: 'http://x/', headers: { 'x-echo': s }, body: JSON.stringify({ credentials: s }) },
        response: { status: 500, headers: {}, body: `bad ${s}` },
        error: `failed with ${s}`,
      }),
    );
    const [first, second] = rec.all();
    expect(first.request.url).toBe(`http://x/?k=<redacted:${prefix('initial-secret')}>`);
    expect(first.request.body).toBe(s); // recorded before the secret was known
    expect(JSON.stringify(second)).not.toContain(s);
    expect(second.error).toBe(`failed with <redacted:${prefix(s)}>`);
    expect(rec.redactText(`x ${s}`)).toBe(`x <redacted:${prefix(s)}>`);
  });

  it('caps stored bodies and marks them truncated', () => {
    const rec = createRecorder({ maxBodyBytes: 1024 });
    const big = 'é'.repeat(1000); // 2000 bytes
    const x = rec.record(exchange({ response: { status: 200, headers: {}, body: big } }));
    expect(x.response?.body_truncated).toBe(true);
    expect(Buffer.byteLength(x.response!.body)).toBeLessThanOrEqual(1024);
    expect(x.response!.body).not.toContain('\uFFFD');
    expect(x.request.body_truncated).toBeUndefined();
  });

  it('numbers exchanges globally and reads them back by range', () => {
    const rec = createRecorder();
    expect(rec.lastSeq()).toBe(0);
    for (let i = 0; i < 5; i++) rec.record(exchange({ purpose: `p${i}` }));
    expect(rec.lastSeq()).toBe(5);
    expect(rec.range(2, 4).map((x) => x.seq)).toEqual([2, 3, 4]);
    expect(rec.range(4).map((x) => x.purpose)).toEqual(['p3', 'p4']);
    const copy = rec.all()[0];
    copy.purpose = 'mutated';
    expect(rec.all()[0].purpose).toBe('p0');
  });

  it('drops the oldest exchanges beyond the bound and says how many', () => {
    const rec = createRecorder({ maxExchanges: 3 });
    for (let i = 0; i < 5; i++) rec.record(exchange());
    expect(rec.all().map((x) => x.seq)).toEqual([3, 4, 5]);
    expect(rec.dropped()).toBe(2);
  });

  it('rejects nonsense options', () => {
    expect(() => createRecorder({ maxBodyBytes: -1 })).toThrow(RangeError);
    expect(() => createRecorder({ maxExchanges: 0 })).toThrow(RangeError);
    expect(() => createRecorder({ token: 'Not A Token' })).toThrow();
  });
});

describe('Redactor.value', () => {
  it('redacts every string and every key of a value, deeply', () => {
    const secret = 'value-secret-0123456789';
    const r = new Redactor([secret]);
    const out = r.value({ a: [`x ${secret}`], [secret]: { b: Buffer.from(secret).toString('base64url') } });
    expect(JSON.stringify(out)).not.toContain(secret);
    expect(JSON.stringify(out)).not.toContain(Buffer.from(secret).toString('base64url'));
    expect(Object.keys(out)).toContain(r.marker(secret));
  });

  it('redacts a secret cut short before an ellipsis, and leaves a text that merely ends like a secret begins', () => {
    const secret = 'cut-secret-0123456789abcdef';
    const r = new Redactor([secret]);
    const head = secret.slice(0, 15);
    const out = r.value({ a: `snippet ${head}…`, b: `x ${head}… more`, c: 'ends with cut-secret-0', d: 'short cut-sec…' });
    expect(out.a).toBe(`snippet ${r.marker(secret)}…`);
    expect(out.b).toBe(`x ${r.marker(secret)}… more`);
    expect(out.c).toBe('ends with cut-secret-0');
    expect(out.d).toBe('short cut-sec…');
  });

  it('at each of several cuts, redacts the secret whose longest prefix ends there', () => {
    const a = 'shared-prefix-AAAA-0123';
    const b = 'shared-prefix-BBBB-4567';
    const r = new Redactor([a, b]);
    const text = `one ${b.slice(0, 17)}… two ${a.slice(0, 20)}… three …`;
    expect(r.cutText(text)).toBe(`one ${r.marker(b)}… two ${r.marker(a)}… three …`);
  });
});
