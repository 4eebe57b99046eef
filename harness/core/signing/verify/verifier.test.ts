import { describe, expect, it } from 'vitest';
import { decideAuthentication } from './auth-decision.js';
import type { DuplicateKeyLog } from './body-log.js';
import type { ReplayCache } from './replay-cache.js';
import { StaticKeyResolver } from '../keys/key-resolver.js';
import { InMemoryReplayCache } from './replay-cache.js';
import { signRequest } from '../sign/signer.js';
import { context, freshKey, ids, NOW, SETUPS, signingKey } from '../testing/verifier-setup.js';
import { verifyRequestSignature } from './verifier.js';
import { parseWwwAuthenticate, wwwAuthenticate } from '../parse/www-authenticate.js';

const jwk = freshKey('ed25519');
const URL = 'https://seller.example.com/proto/create_media_buy';
const req31 = SETUPS[0]!;
const sign = (body = '{"a":1}', extra: Parameters<typeof signRequest>[1] extends infer O ? Partial<O> : never = {}) =>
  signRequest({ method: 'POST', url: URL, body }, { profile: 'request', ids, key: signingKey(jwk), created: NOW, ...extra });

describe('pre-checks', () => {
  const unsigned = (body: string, url = URL, headers: Record<string, string> = { 'Content-Type': 'application/json' }) => ({
    method: 'POST',
    url,
    headers,
    body,
  });

  it('ignores signatures when the capability is absent or unsupported', async () => {
    const garbage = { ...unsigned('{}'), headers: { 'Signature-Input': 'garbage' } };
    expect(await verifyRequestSignature(garbage, context(req31, [jwk], { capability: { supported: false } }))).toEqual({ ok: true, signer: null });
    expect(await verifyRequestSignature(garbage, context(req31, [jwk], { capability: undefined }))).toEqual({ ok: true, signer: null });
  });

  it('lets unsigned requests through unless required (and no fallback) or registering legacy webhook auth', async () => {
    const ctx = (extra = {}) => context(req31, [jwk], extra);
    expect(await verifyRequestSignature(unsigned('{}'), ctx({ operation: 'get_products' }))).toEqual({ ok: true, signer: null });
    expect(await verifyRequestSignature(unsigned('{}'), ctx({ fallbackAuthenticated: true }))).toEqual({ ok: true, signer: null });
    expect(await verifyRequestSignature(unsigned('{}'), ctx())).toMatchObject({ ok: false, code: 'request_signature_required', step: 0 });
    const envelope = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'sync_accounts',
        arguments: { accounts: [{ notification_configs: [{ url: 'https://b.example/h', authentication: { schemes: ['Bearer'] } }] }] },
      },
    });
    expect(await verifyRequestSignature(unsigned(envelope), ctx({ operation: 'sync_accounts', fallbackAuthenticated: true }))).toMatchObject({
      ok: false,
      code: 'request_signature_required',
    });
  });

  it('applies operation lists to tools/call only', async () => {
    const ctx = context(req31, [jwk], { operation: 'create_media_buy', jsonRpcMethod: 'tasks/get' });
    expect(await verifyRequestSignature(unsigned('{}'), ctx)).toEqual({ ok: true, signer: null });
  });
});

describe('checklist details', () => {
  it('rejects a replay of an accepted request, per replay scope', async () => {
    const signed = sign();
    const cache = new InMemoryReplayCache({ perKeyidCap: 10 });
    expect((await verifyRequestSignature(signed, context(req31, [jwk], { replayCache: cache }))).ok).toBe(true);
    expect(await verifyRequestSignature(signed, context(req31, [jwk], { replayCache: cache }))).toMatchObject({ code: 'request_signature_replayed', step: 12 });
    expect((await verifyRequestSignature(signed, context(req31, [jwk], { replayCache: cache, replayScope: 'https://other.example/' }))).ok).toBe(true);
  });

  it('works with an asynchronous replay store and reports a lost insert race', async () => {
    const store: ReplayCache = {
      capReached: async () => false,
      has: async () => false,
      insert: async () => 'replayed' as const,
    };
    expect(await verifyRequestSignature(sign(), context(req31, [jwk], { replayCache: store }))).toMatchObject({ code: 'request_signature_replayed', step: 12 });
    const full: ReplayCache = { ...store, insert: async () => 'cap_reached' as const };
    expect(await verifyRequestSignature(sign(), context(req31, [jwk], { replayCache: full }))).toMatchObject({
      code: 'request_signature_rate_abuse',
      step: 13,
    });
  });

  it('runs every step the same way when each store answers with a promise', async () => {
    const ctx = context(req31, [jwk]);
    const later = <T>(v: T) => new Promise<T>((resolve) => setImmediate(() => resolve(v)));
    const cache = new InMemoryReplayCache({ perKeyidCap: 10 });
    const resolver = new StaticKeyResolver([jwk], 'https://agent.example.com/mcp');
    const asyncCtx = {
      ...ctx,
      keys: { resolve: (kid: string) => later(resolver.resolve(kid)) },
      revocation: { check: () => later('ok' as const) },
      replayCache: {
        capReached: (k: string, now: number) => later(cache.capReached(k, now)),
        has: (k: string, n: string, now: number) => later(cache.has(k, n, now)),
        insert: (k: string, n: string, ttl: number, now: number) => later(cache.insert(k, n, ttl, now)),
      },
    };
    const signed = sign();
    const sync = await verifyRequestSignature(signed, context(req31, [jwk]));
    const viaPromises = await verifyRequestSignature(signed, asyncCtx);
    expect(viaPromises).toEqual(sync);
    expect(await verifyRequestSignature(signed, asyncCtx)).toMatchObject({ code: 'request_signature_replayed', step: 12 });
    const revoked = { ...asyncCtx, revocation: { check: () => later('revoked' as const) } };
    expect(await verifyRequestSignature(sign(), revoked)).toMatchObject({ code: 'request_signature_key_revoked', step: 9 });
    const unknown = { ...asyncCtx, keys: { resolve: (kid: string) => later(new StaticKeyResolver([]).resolve(kid)) } };
    expect(await verifyRequestSignature(sign(), unknown)).toMatchObject({ code: 'request_signature_key_unknown', step: 7 });
    const failing = { ...asyncCtx, keys: { resolve: () => Promise.reject(new Error('resolver down')) } };
    await expect(verifyRequestSignature(sign(), failing)).rejects.toThrow('resolver down');
  });

  it('turns a throwing store into a rejected promise, never a synchronous throw', async () => {
    const ctx = context(req31, [jwk], {
      keys: {
        resolve: () => {
          throw new Error('boom');
        },
      },
    });
    const pending = verifyRequestSignature(sign(), ctx);
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toThrow('boom');
  });

  it('verifies mixed-case, repeated and array header fields like lower-case ones', async () => {
    const signed = sign();
    const lower = Object.fromEntries(Object.entries(signed.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const cache = () => ({ replayCache: new InMemoryReplayCache({ perKeyidCap: 10 }) });
    expect((await verifyRequestSignature({ ...signed, headers: lower }, context(req31, [jwk], cache()))).ok).toBe(true);
    expect((await verifyRequestSignature(signed, context(req31, [jwk], cache()))).ok).toBe(true);
    const split = { ...lower, 'content-type': ['application/json'] };
    expect((await verifyRequestSignature({ ...signed, headers: split }, context(req31, [jwk], cache()))).ok).toBe(true);
    const twoLines = { ...lower, 'Content-Type': 'text/plain' };
    expect(await verifyRequestSignature({ ...signed, headers: twoLines }, context(req31, [jwk], cache()))).toMatchObject({
      code: 'request_signature_header_malformed',
      step: 1,
    });
  });

  it('does not insert the nonce when crypto fails', async () => {
    const cache = new InMemoryReplayCache({ perKeyidCap: 10 });
    await verifyRequestSignature(sign('{"a":1}', { defects: ['bad-signature'] }), context(req31, [jwk], { replayCache: cache }));
    expect(cache.size()).toBe(0);
  });

  it('inserts the nonce before step 14 and logs only sanitized key names', async () => {
    const cache = new InMemoryReplayCache({ perKeyidCap: 10 });
    const logs: DuplicateKeyLog[] = [];
    const signed = sign('{"x\\u0000y":1,"x\\u0000y":2,"b":1,"b":2}');
    const r = await verifyRequestSignature(signed, context(req31, [jwk], { replayCache: cache, onDuplicateKeys: (l) => logs.push(l) }));
    expect(r).toMatchObject({ code: 'request_body_malformed', step: 14 });
    expect(cache.size()).toBe(1);
    expect(logs).toEqual([
      { event: 'body_duplicate_keys', keyid: jwk.kid, nonce: signed.params.nonce, body_bytes: signed.body.length, keys: ['x<sanitized:2>', 'b'] },
    ]);
    expect(await verifyRequestSignature(signed, context(req31, [jwk], { replayCache: cache }))).toMatchObject({ code: 'request_signature_replayed' });
  });

  it('checks :authority and Host against each other and the URL', async () => {
    const signed = sign();
    const ok = await verifyRequestSignature(
      { ...signed, headers: { ...signed.headers, Host: 'SELLER.example.com:443' }, authority: 'seller.example.com' },
      context(req31, [jwk]),
    );
    expect(ok.ok).toBe(true);
    const bad = await verifyRequestSignature({ ...signed, authority: 'evil.example' }, context(req31, [jwk]));
    expect(bad).toMatchObject({ code: 'request_target_uri_malformed', step: 10 });
  });

  it('accepts repeated Signature field lines as one dictionary', async () => {
    const signed = sign();
    const headers = { ...signed.headers, Signature: [signed.headers.Signature!, 'sig2=:AAAA:'] };
    expect((await verifyRequestSignature({ ...signed, headers }, context(req31, [jwk]))).ok).toBe(true);
  });

  it('answers with WWW-Authenticate carrying exactly the code', async () => {
    const r = await verifyRequestSignature(sign('{"a":1}', { defects: ['bad-signature'] }), context(req31, [jwk]));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.wwwAuthenticate).toBe('Signature error="request_signature_invalid"');
      expect(parseWwwAuthenticate(r.wwwAuthenticate)).toBe('request_signature_invalid');
    }
    expect(parseWwwAuthenticate('Signature error=webhook_signature_replayed, realm="x"')).toBe('webhook_signature_replayed');
    expect(parseWwwAuthenticate('Bearer realm="x"')).toBeUndefined();
    expect(() => wwwAuthenticate('bad code"')).toThrow();
  });
});

describe('decideAuthentication', () => {
  const cap = { supported: true, supported_for: ['op'], warn_for: ['op'] };
  it('under warn_for records failures and leans on the fallback, except malformed pairs', async () => {
    const bad = await verifyRequestSignature(sign('{"a":1}', { defects: ['bad-signature'] }), context(req31, [jwk]));
    expect(decideAuthentication(cap, { operation: 'op' }, bad, true)).toMatchObject({
      action: 'accept_with_warning',
      warning_code: 'request_signature_invalid',
    });
    expect(decideAuthentication(cap, { operation: 'op' }, bad, false)).toMatchObject({ action: 'reject_unauthenticated' });
    const malformed = await verifyRequestSignature(sign('{"a":1}', { defects: ['input-without-signature'] }), context(req31, [jwk]));
    expect(decideAuthentication(cap, { operation: 'op' }, malformed, true)).toMatchObject({
      action: 'reject',
      error_code: 'request_signature_header_malformed',
    });
    expect(decideAuthentication({ supported: true, supported_for: ['op'] }, { operation: 'op' }, bad, true)).toMatchObject({ action: 'reject' });
  });
});
