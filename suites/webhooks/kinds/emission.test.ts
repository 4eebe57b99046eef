/**
 * The capture receiver, its settings, delivery verification and the grading rules of the
 * `webhooks` suite, on loopback with real signatures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { request } from 'undici';
import { protocolIds } from '../../../harness/core/token.js';
import { RunResources } from '../../../harness/core/engine/resources.js';
import { SuiteLoadError, validateSuite } from '../../../harness/core/engine/loader.js';
import { KindRegistry } from '../../../harness/core/engine/kinds/registry.js';
import webhooksPlugin from '../plugin.js';
import type { CheckContext } from '../../../harness/core/engine/kinds/types.js';
import { StaticKeyResolver } from '../../../harness/core/signing/keys/key-resolver.js';
import { publicJwk, signingKeyFromJwk, type Jwk } from '../../../harness/core/signing/keys/keys.js';
import { signHmacWebhook } from '../../../harness/core/signing/legacy/legacy-hmac.js';
import { InMemoryReplayCache } from '../../../harness/core/signing/verify/replay-cache.js';
import { signRequest } from '../../../harness/core/signing/sign/signer.js';
import { EmissionConfigError, emissionSettings, timing } from '../../../harness/core/webhooks/emission/config.js';
import { CaptureReceiver } from '../../../harness/core/webhooks/emission/receiver.js';
import { Redactor } from '../../../harness/core/transport/redact.js';
import { isCompactJson, RULES } from '../../../harness/core/webhooks/emission/rules.js';
import { snapshot, type CaptureSnapshot, type DeliveryView } from '../../../harness/core/webhooks/emission/snapshot.js';
import { webhookReceiver } from './steps.js';
import { verifyCapture } from '../../../harness/core/webhooks/emission/verify.js';

const ids = protocolIds('proto');
const KINDS = new KindRegistry([webhooksPlugin]);

function key(kid: string): Jwk {
  const priv = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return { kid, kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', key_ops: ['verify'], [ids.keyUseMember]: 'request-signing', x: priv.x, d: priv.d };
}

async function post(url: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await request(url, { method: 'POST', headers, body });
  await res.body.text();
  return res.statusCode;
}

describe('settings', () => {
  it('reads the public base URL, the listen address and the limits from the environment', () => {
    const s = emissionSettings(ids, {
      [ids.runnerWebhookEnv]: 'https://hooks.example.com/base/',
      PROTO_COMPLY_WEBHOOK_LISTEN: '127.0.0.1:8123',
      PROTO_COMPLY_WEBHOOK_WAIT_S: '45',
    });
    expect(s).toEqual({ publicBaseUrl: 'https://hooks.example.com/base', listenHost: '127.0.0.1', listenPort: 8123, waitMs: 45_000, quietMs: undefined });
    expect(timing(s, 'https://seller.example/mcp')).toEqual({ waitMs: 45_000, quietMs: 5_000 });
    expect(timing(emissionSettings(ids, {}), 'http://127.0.0.1:9/mcp')).toEqual({ waitMs: 10_000, quietMs: 750 });
    expect(ids.runnerWebhookEnv).toBe('PROTO_RUNNER_WEBHOOK_BASE_URL');
  });

  it('refuses a plain-http public URL off loopback and malformed values', () => {
    expect(() => emissionSettings(ids, { [ids.runnerWebhookEnv]: 'http://hooks.example.com' })).toThrow(EmissionConfigError);
    expect(() => emissionSettings(ids, { PROTO_COMPLY_WEBHOOK_LISTEN: 'nope' })).toThrow(/host:port/);
    expect(() => emissionSettings(ids, { PROTO_COMPLY_WEBHOOK_QUIET_S: '-1' })).toThrow(/seconds/);
  });
});

describe('the capture receiver', () => {
  let receiver: CaptureReceiver;
  const signer = key('seller-key-1');
  const env = () => ({
    ids,
    resolver: new StaticKeyResolver([publicJwk(signer)], 'http://seller.test/mcp'),
    replayCache: new InMemoryReplayCache({ perKeyidCap: 100 }),
    behindProxy: false,
  });

  beforeAll(async () => {
    receiver = await CaptureReceiver.open({ listenHost: '127.0.0.1', listenPort: 0 }, ids);
  });
  afterAll(() => receiver.close());

  it('answers from the script, records raw bytes, 404s unknown captures and 413s bodies above 1 MB', async () => {
    const capture = receiver.create({
      answers: [{ status: 503 }, { status: 401, www_authenticate: 'Signature error="webhook_signature_invalid"' }],
      mode: 'signature',
    });
    expect(capture.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/wh\/[0-9a-f]{16}\/[0-9a-f]{12}$/);
    expect(await post(capture.url, '{"a": 1}')).toBe(503);
    expect(await post(capture.url, '{"a":2}')).toBe(401);
    expect(await post(capture.url, '{"a":3}')).toBe(200);
    expect(await post(capture.url, Buffer.alloc(1024 * 1024 + 1, 0x20))).toBe(413);
    expect(await post(capture.url.replace(/\/wh\/[0-9a-f]+/, '/wh/0000000000000000'), '{}')).toBe(404);
    expect(capture.deliveries.map((d) => [d.answered.status, d.raw.toString(), d.tooLarge])).toEqual([
      [503, '{"a": 1}', false],
      [401, '{"a":2}', false],
      [200, '{"a":3}', false],
      [413, '', true],
    ]);
    expect(capture.deliveries[1]!.exchange.response?.headers['www-authenticate']).toContain('webhook_signature_invalid');
  });

  it("teaches the run's redactor the HMAC secret of a capture, and no other run's redactor", async () => {
    const runRedactor = new Redactor();
    const other = new Redactor();
    const own = await CaptureReceiver.open({ listenHost: '127.0.0.1', listenPort: 0 }, ids, runRedactor);
    try {
      const secret = 'capture-hmac-secret-0123456789abcdef';
      own.create({ answers: [], mode: 'hmac', secret });
      expect(runRedactor.text(`x ${secret} y`)).not.toContain(secret);
      expect(other.text(`x ${secret} y`)).toContain(secret);
    } finally {
      await own.close();
    }
  });

  it('waits until a condition holds, and gives up at the limit or on abort', async () => {
    const capture = receiver.create({ answers: [], mode: 'signature' });
    const waiting = capture.waitUntil(() => capture.deliveries.length >= 1, 5_000, new AbortController().signal);
    await post(capture.url, '{}');
    expect(await waiting).toBe(true);
    expect(await capture.waitUntil(() => capture.deliveries.length >= 2, 20, new AbortController().signal)).toBe(false);
    const abort = new AbortController();
    const aborted = capture.waitUntil(() => false, 5_000, abort.signal);
    abort.abort();
    expect(await aborted).toBe(false);
  });

  it('verifies RFC 9421 deliveries at arrival time and reports the failing code', async () => {
    const capture = receiver.create({ answers: [], mode: 'signature' });
    const body = JSON.stringify({ idempotency_key: 'k'.repeat(20), status: 'completed' });
    const signed = signRequest(
      { method: 'POST', url: capture.url, headers: { 'Content-Type': 'application/json' }, body },
      { profile: 'webhook', ids, key: signingKeyFromJwk(signer) },
    );
    expect(await post(capture.url, Buffer.from(signed.body), signed.headers)).toBe(200);
    // The same signature again: a replay; then a tampered body.
    expect(await post(capture.url, Buffer.from(signed.body), signed.headers)).toBe(200);
    expect(await post(capture.url, body.replace('completed', 'failed'), signed.headers)).toBe(200);
    await verifyCapture(capture, env());
    const snap = snapshot(capture);
    expect(snap.deliveries.map((d) => [d.verified, d.verify_code ?? null, d.key_published])).toEqual([
      [true, null, true],
      [false, 'webhook_signature_replayed', true],
      [false, 'webhook_signature_digest_mismatch', true],
    ]);
    expect(snap.deliveries[0]!.signature).toMatchObject({
      tag: ids.webhookSigningTag,
      keyid: 'seller-key-1',
      components: ['@method', '@target-uri', '@authority', 'content-type', 'content-digest'],
    });
    expect(snap.keys).toEqual(['k'.repeat(20)]);
  });

  it('verifies legacy HMAC deliveries with the registration secret', async () => {
    const secret = 's'.repeat(40);
    const capture = receiver.create({ answers: [], mode: 'hmac', secret });
    const body = '{"idempotency_key":"kkkkkkkkkkkkkkkkkkkk"}';
    const headers = { 'content-type': 'application/json', ...signHmacWebhook(ids, secret, body, Date.now() / 1000) };
    await post(capture.url, body, headers);
    await post(capture.url, body, { ...headers, ...signHmacWebhook(ids, 'x'.repeat(40), body, Date.now() / 1000) });
    await verifyCapture(capture, env());
    const snap = snapshot(capture);
    expect(snap.deliveries.map((d) => d.verified)).toEqual([true, false]);
    expect(RULES.hmac!(snap, {}, { ids } as CheckContext).message).toMatch(/delivery 2: HMAC-SHA256 does not verify/);
  });
});

describe('webhook_flow', () => {
  const suiteWith = (nested: unknown[]) => ({
    id: 'x',
    title: 'x',
    checks: [{ id: 'x.a.b', title: 't', level: 'MUST', spec: { doc: 'digest', section: '5' }, steps: [{ kind: 'webhook_flow', flow: 'f', steps: nested }] }],
  });

  it('has its nested steps validated at load time like top-level steps', () => {
    expect(() => validateSuite(suiteWith([{ kind: 'webhook_receiver', id: 'hook' }]), 't', KINDS)).not.toThrow();
    expect(() => validateSuite(suiteWith([{ kind: 'webhook_receiver', bogus: 1 }]), 't', KINDS)).toThrow(/steps\[0\].*bogus/);
    expect(() => validateSuite(suiteWith([{ kind: 'no_such_kind' }]), 't', KINDS)).toThrow(SuiteLoadError);
    expect(() => validateSuite(suiteWith([{ kind: 'webhook_wait', receiver: 'hook', expect: [{ kind: 'webhook_rule', rule: 'nope' }] }]), 't', KINDS)).toThrow(
      /rule/,
    );
  });
});

describe('the webhook_receiver step', () => {
  it('is a coverage gap, naming the variable to set, when a remote seller cannot reach the loopback receiver', async () => {
    const saved = process.env[ids.runnerWebhookEnv];
    delete process.env[ids.runnerWebhookEnv];
    try {
      const ctx = { ids, transport: { endpoint: 'https://seller.example.com/mcp' }, resources: new RunResources() } as unknown as CheckContext;
      const r = await webhookReceiver.run({ kind: 'webhook_receiver' }, ctx);
      expect(r.verdict).toMatchObject({ status: 'gap', gap: 'public webhook receiver URL', message: expect.stringContaining(ids.runnerWebhookEnv) });
    } finally {
      if (saved !== undefined) process.env[ids.runnerWebhookEnv] = saved;
    }
  });
});

function view(n: number, body: Record<string, unknown>, extra: Partial<DeliveryView> = {}): DeliveryView {
  return {
    n,
    received_at: '',
    answered: 200,
    body,
    raw: JSON.stringify(body),
    headers: {},
    verified: true,
    idempotency_key: body.idempotency_key as string,
    ...extra,
  };
}
function snap(deliveries: DeliveryView[]): CaptureSnapshot {
  const keys = [...new Set(deliveries.map((d) => d.idempotency_key).filter((k): k is string => !!k))];
  return { capture: 'c', url: 'u', mode: 'signature', count: deliveries.length, keys, deliveries, first: deliveries[0]?.body ?? null, last: null };
}
const ctx = { ids } as CheckContext;
const report = (key: string, seq: number, imp: number) => ({
  idempotency_key: key,
  result: { sequence_number: seq, media_buy_deliveries: [{ totals: { impressions: imp } }] },
});

describe('grading rules', () => {
  it('compact JSON: no whitespace outside strings', () => {
    expect(isCompactJson('{"a":"x y","b":[1,2]}')).toBe(true);
    expect(isCompactJson('{"a": 1}')).toBe(false);
    expect(isCompactJson('{"a":"\\" ","b":1}')).toBe(true);
  });

  it('retries: one key, the same payload, fresh nonces', () => {
    const sig = (nonce: string) => ({ signature: { components: [], nonce } });
    const a = view(1, { idempotency_key: 'k1', v: 1 }, sig('n1'));
    const b = view(2, { idempotency_key: 'k1', v: 1 }, sig('n2'));
    expect(RULES.one_key!(snap([a, b]), {}, ctx).ok).toBe(true);
    expect(RULES.one_key!(snap([a, view(2, { idempotency_key: 'k2', v: 1 })]), {}, ctx).ok).toBe(false);
    expect(RULES.same_payload!(snap([a, view(2, { idempotency_key: 'k2', v: 1 })]), {}, ctx).ok).toBe(true);
    expect(RULES.same_payload!(snap([a, view(2, { idempotency_key: 'k1', v: 2 })]), {}, ctx).ok).toBe(false);
    expect(RULES.fresh_nonce!(snap([a, b]), {}, ctx).ok).toBe(true);
    expect(RULES.fresh_nonce!(snap([a, view(2, { idempotency_key: 'k1' }, sig('n1'))]), {}, ctx).message).toMatch(/reuses the nonce/);
    expect(RULES.fresh_nonce!(snap([a]), {}, ctx).ok).toBe(false);
  });

  it('reports: increasing sequence numbers, keys never reused for another event', () => {
    expect(RULES.sequence_increasing!(snap([view(1, report('a', 1, 1000)), view(2, report('b', 2, 3000))]), {}, ctx).ok).toBe(true);
    expect(RULES.sequence_increasing!(snap([view(1, report('a', 2, 1000)), view(2, report('b', 1, 3000))]), {}, ctx).ok).toBe(false);
    expect(RULES.sequence_increasing!(snap([view(1, report('a', 1, 1000)), view(2, report('b', 1, 3000))]), {}, ctx).ok).toBe(false);
    expect(RULES.keys_unique_per_event!(snap([view(1, report('a', 1, 1000)), view(2, report('a', 1, 1000))]), {}, ctx).ok).toBe(true);
    expect(RULES.keys_unique_per_event!(snap([view(1, report('a', 1, 1000)), view(2, report('a', 2, 3000))]), {}, ctx).message).toMatch(
      /reuses idempotency_key a/,
    );
  });

  it('401 handling: transient without a code, terminal with a webhook_* code', () => {
    const by = { event_by: '/result/sequence_number' };
    const refused = view(1, report('a', 1, 10), { answered: 401 });
    const retried = view(2, report('a', 1, 10));
    const next = view(3, report('b', 2, 20));
    expect(RULES.transient_401!(snap([refused, retried, next]), by, ctx).ok).toBe(true);
    expect(RULES.transient_401!(snap([refused, next]), by, ctx).message).toMatch(/never retried/);
    expect(RULES.transient_401!(snap([refused, retried]), by, ctx).message).toMatch(/disabled/);
    expect(RULES.terminal_401!(snap([refused, next]), by, ctx).ok).toBe(true);
    expect(RULES.terminal_401!(snap([refused, retried, next]), by, ctx).message).toMatch(/retries the event/);
  });

  it('signature parameters: exactly five components, the webhook tag, a window of at most 300 s', () => {
    const good = {
      components: ['@method', '@target-uri', '@authority', 'content-type', 'content-digest'],
      tag: ids.webhookSigningTag,
      created: 100,
      expires: 400,
      keyid: 'k',
    };
    expect(RULES.components!(snap([view(1, {}, { signature: good })]), {}, ctx).ok).toBe(true);
    expect(RULES.components!(snap([view(1, {}, { signature: { ...good, components: good.components.slice(0, 4) } })]), {}, ctx).ok).toBe(false);
    expect(RULES.tag!(snap([view(1, {}, { signature: { ...good, tag: ids.requestSigningTag } })]), {}, ctx).ok).toBe(false);
    expect(RULES.window!(snap([view(1, {}, { signature: good })]), {}, ctx).ok).toBe(true);
    expect(RULES.window!(snap([view(1, {}, { signature: { ...good, expires: 401 } })]), {}, ctx).message).toMatch(/301 s/);
    expect(RULES.window!(snap([view(1, {})]), {}, ctx).message).toMatch(/no RFC 9421 signature/);
  });
});
