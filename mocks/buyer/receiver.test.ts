/**
 * The mock buyer as a webhook receiver: real HTTP on loopback, real RFC 9421 signatures from the
 * harness's sender identity (brand.json + JWKS served on loopback), a real SQLite file.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { protocolIds } from '../../harness/core/token.js';
import { signHmacWebhook } from '../../harness/core/signing/legacy/legacy-hmac.js';
import { encodeEvent, envelopeOf, tamperBody } from '../../harness/core/webhooks/receiver-probe/events.js';
import { signWebhook } from '../../harness/core/webhooks/receiver-probe/sender.js';
import { event, post, startRig, type Rig } from './testing/buyer-rig.js';

const ids = protocolIds('proto');
const code = (r: { headers: Record<string, unknown> }) => String(r.headers['www-authenticate'] ?? '');

describe('mock buyer receiver', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ dedupBoundPerSender: 1000 });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('acknowledges a valid signed MCP-envelope webhook and processes it under the verified sender identity', async () => {
    const e = event({ status: 'working' });
    const r = await rig.sendEvent(e);
    expect(r.status).toBe(200);
    await rig.buyer.whenIdle();
    const back = rig.buyer.task(e.taskId);
    expect(back.task).toMatchObject({ task_id: e.taskId, status: 'working', format: 'mcp', sender: rig.identity.agentUrls.main });
    expect(back.events.map((x) => x.idempotency_key)).toEqual([e.idempotencyKey]);
  });

  it('detects the A2A envelope by shape and normalizes its state', async () => {
    const e = event({ format: 'a2a', status: 'completed' });
    const doc = envelopeOf(e) as { status: { state: string } };
    doc.status.state = 'TASK_STATE_COMPLETED';
    expect((await rig.send(Buffer.from(JSON.stringify(doc)))).status).toBe(200);
    await rig.buyer.whenIdle();
    expect(rig.buyer.task(e.taskId).task).toMatchObject({ status: 'completed', format: 'a2a' });
  });

  it('answers a duplicate with 200 (never 409) and processes it once; the first copy wins', async () => {
    const e = event({ status: 'working' });
    expect((await rig.sendEvent(e)).status).toBe(200);
    const second = await rig.sendEvent({ ...e, status: 'failed' }); // same key, other payload
    expect(second.status).toBe(200);
    expect(JSON.parse(second.body)).toMatchObject({ status: 'duplicate' });
    await rig.buyer.whenIdle();
    const back = rig.buyer.task(e.taskId);
    expect(back.events).toHaveLength(1);
    expect(back.task?.status).toBe('working');
  });

  it('never applies an older status over a newer one (task_id + timestamp)', async () => {
    const t = Date.now();
    const taskId = `task-${randomUUID()}`;
    expect((await rig.sendEvent(event({ taskId, status: 'input-required', timestamp: new Date(t).toISOString() }))).status).toBe(200);
    expect((await rig.sendEvent(event({ taskId, status: 'working', timestamp: new Date(t - 60_000).toISOString() }))).status).toBe(200);
    await rig.buyer.whenIdle();
    const back = rig.buyer.task(taskId);
    expect(back.task?.status).toBe('input-required');
    expect(back.events.map((x) => [x.status, x.applied])).toEqual([
      ['input-required', 1],
      ['working', 0],
    ]);
  });

  it('rejects a non-JSON content type with 415 before verifying (even unsigned)', async () => {
    const r = await post(rig.buyer.url, { 'content-type': 'text/plain' }, Buffer.from('{}'));
    expect(r.status).toBe(415);
    const signed = await rig.send(encodeEvent(event()), { contentType: 'text/plain' });
    expect(signed.status).toBe(415);
  });

  it('answers 413 above 1 MB before verifying, declared or streamed', async () => {
    const big = encodeEvent(event({ padBytes: 1024 * 1024 }));
    const declared = await post(rig.buyer.url, { 'content-type': 'application/json' }, big);
    expect(declared.status).toBe(413);
    const res = await request(rig.buyer.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Readable.from(
        (function* () {
          for (let i = 0; i < 40; i++) yield Buffer.alloc(64 * 1024, 0x20);
        })(),
      ),
    });
    expect(res.statusCode).toBe(413);
    await res.body.text();
    expect((await rig.sendEvent(event())).status).toBe(200);
  });

  it.each([
    ['tampered body', 'webhook_signature_digest_mismatch'],
    ['wrong tag', 'webhook_signature_tag_invalid'],
    ['expired window', 'webhook_signature_window_invalid'],
    ['unsigned', 'webhook_signature_required'],
  ])('answers 401 with WWW-Authenticate for a %s', async (what, expected) => {
    const body = encodeEvent(event());
    const url = rig.buyer.url;
    let r;
    if (what === 'tampered body') {
      const s = signWebhook(rig.identity, url, body);
      r = await post(url, s.headers, tamperBody(body));
    } else if (what === 'unsigned') {
      r = await post(url, { 'content-type': 'application/json' }, body);
    } else {
      r = await rig.send(body, { defects: [what === 'wrong tag' ? 'wrong-tag' : 'expired'] });
    }
    expect(r.status).toBe(401);
    expect(code(r)).toBe(`Signature error="${expected}"`);
  });

  it('rejects a replayed nonce, and keeps it across endpoints', async () => {
    const body = encodeEvent(event());
    const s = signWebhook(rig.identity, rig.buyer.url, body);
    expect((await post(rig.buyer.url, s.headers, s.body)).status).toBe(200);
    const again = await post(rig.buyer.url, s.headers, s.body);
    expect(again.status).toBe(401);
    expect(code(again)).toContain('webhook_signature_replayed');
  });

  it('shares dedup state across endpoints', async () => {
    const other = rig.buyer.registerEndpoint({ id: `ep-${randomUUID().slice(0, 8)}` });
    const e = event();
    expect((await rig.sendEvent(e)).status).toBe(200);
    const r = await rig.sendEvent(e, { url: `${rig.buyer.baseUrl}${other.path}` });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).status).toBe('duplicate');
    await rig.buyer.whenIdle();
    expect(rig.buyer.task(e.taskId).events).toHaveLength(1);
  });

  it('tells a notification_id re-emission apart from a transport retry', async () => {
    const taskId = `task-${randomUUID()}`;
    const mk = (key: string) => Buffer.from(JSON.stringify({ ...envelopeOf(event({ taskId, idempotencyKey: key })), notification_id: 'notif-1' }));
    const k1 = randomUUID();
    const k2 = randomUUID();
    expect(JSON.parse((await rig.send(mk(k1))).body)).toMatchObject({ status: 'accepted', delivery: 'first' });
    expect(JSON.parse((await rig.send(mk(k1))).body)).toMatchObject({ status: 'duplicate' });
    expect(JSON.parse((await rig.send(mk(k2))).body)).toMatchObject({ status: 'accepted', delivery: 're-emission' });
    await rig.buyer.whenIdle();
    expect(rig.buyer.task(taskId).events.map((x) => x.delivery_kind)).toEqual(['first', 're-emission']);
  });

  it('refuses a malformed envelope with 400 after verifying', async () => {
    const r = await rig.send(Buffer.from(JSON.stringify({ task_id: 't', status: 'working' })));
    expect(r.status).toBe(400);
  });

  it('routes: unknown path 404, GET on an endpoint 405, admin read-back and registration', async () => {
    expect(
      await request(`${rig.buyer.baseUrl}/nope`, { method: 'POST', body: '{}' }).then(async (r) => {
        await r.body.text();
        return r.statusCode;
      }),
    ).toBe(404);
    expect(
      await request(rig.buyer.url).then(async (r) => {
        await r.body.text();
        return r.statusCode;
      }),
    ).toBe(405);
    const created = await request(`${rig.buyer.adminUrl}/endpoints`, {
      method: 'POST',
      body: JSON.stringify({ id: 'hmac-1', authentication: { schemes: ['HMAC-SHA256'], credentials: 'x'.repeat(40) } }),
    });
    expect(created.statusCode).toBe(201);
    const info = (await created.body.json()) as { url: string; mode: string };
    expect(info.mode).toBe('hmac-sha256');
    expect(JSON.stringify(info)).not.toContain('x'.repeat(40));
    const bad = await request(`${rig.buyer.adminUrl}/endpoints`, {
      method: 'POST',
      body: JSON.stringify({ authentication: { schemes: ['Bearer'], credentials: 'short' } }),
    });
    expect(bad.statusCode).toBe(400);
    await bad.body.text();
    const state = await request(rig.buyer.stateUrl);
    expect(((await state.body.json()) as { dedup: { shared_across_endpoints: boolean } }).dedup.shared_across_endpoints).toBe(true);
  });
});

describe('mock buyer registrations: legacy schemes are a switch, never a fallback', () => {
  let rig: Rig;
  const secret = 'legacy-secret-0123456789-abcdefghij';
  beforeAll(async () => {
    rig = await startRig({
      endpoints: [
        { id: 'hmac', authentication: { schemes: ['HMAC-SHA256'], credentials: secret } },
        { id: 'bearer', authentication: { schemes: ['Bearer'], credentials: secret } },
      ],
    });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('verifies legacy HMAC-SHA256 and dedups under the credential identity', async () => {
    const url = `${rig.buyer.baseUrl}/webhooks/hmac`;
    const body = encodeEvent(event());
    const h = signHmacWebhook(ids, secret, body, Math.floor(Date.now() / 1000));
    expect((await post(url, { 'content-type': 'application/json', ...h }, body)).status).toBe(200);
    expect(JSON.parse((await post(url, { 'content-type': 'application/json', ...h }, body)).body).status).toBe('duplicate');
    const wrong = signHmacWebhook(ids, `${secret}-other`, body, Math.floor(Date.now() / 1000));
    expect((await post(url, { 'content-type': 'application/json', ...wrong }, body)).status).toBe(401);
    const nineFour = await rig.send(body, { url });
    expect(nineFour.status).toBe(401);
    expect(code(nineFour)).toContain('webhook_mode_mismatch');
  });

  it('verifies legacy Bearer', async () => {
    const url = `${rig.buyer.baseUrl}/webhooks/bearer`;
    const body = encodeEvent(event());
    expect((await post(url, { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body)).status).toBe(200);
    expect((await post(url, { 'content-type': 'application/json', authorization: 'Bearer nope-nope-nope-nope-nope-nope-nope-nope' }, body)).status).toBe(401);
  });

  it('refuses a Bearer credential on an RFC 9421 endpoint', async () => {
    const r = await post(rig.buyer.url, { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, encodeEvent(event()));
    expect(r.status).toBe(401);
    expect(code(r)).toContain('webhook_mode_mismatch');
  });
});

describe('mock buyer acknowledgement, durability and retention', () => {
  let rig: Rig;
  let clock = Date.now();
  beforeAll(async () => {
    rig = await startRig({ pauseProcessing: true, now: () => clock });
  });
  afterAll(async () => {
    await rig?.close();
  });
  const at = () => ({ now: () => Math.floor(clock / 1000) });

  it('acknowledges before processing: the 200 leaves a durable queue entry', async () => {
    const e = event();
    expect((await rig.sendEvent(e, at())).status).toBe(200);
    expect(rig.buyer.pending()).toBe(1);
    expect(rig.buyer.task(e.taskId).events).toHaveLength(0);
    rig.buyer.resumeProcessing();
    await rig.buyer.whenIdle();
    expect(rig.buyer.task(e.taskId).events).toHaveLength(1);
  });

  it('keeps dedup rows, queued deliveries and live nonces across a restart', async () => {
    await rig.restart({ pauseProcessing: true, now: () => clock });
    const e = event();
    const s = signWebhook(rig.identity, rig.buyer.url, encodeEvent(e), at());
    expect((await post(rig.buyer.url, s.headers, s.body)).status).toBe(200);
    const url = rig.buyer.url;
    // Same port, so the very same signed bytes still verify against the target URI.
    await rig.restart({ now: () => clock, port: Number(new URL(url).port), pauseProcessing: false });
    expect(rig.buyer.url).toBe(url);
    await rig.buyer.whenIdle();
    expect(rig.buyer.task(e.taskId).events).toHaveLength(1);
    expect(JSON.parse((await rig.sendEvent(e, at())).body).status).toBe('duplicate');
    const replay = await post(rig.buyer.url, s.headers, s.body);
    expect(replay.status).toBe(401);
    expect(code(replay)).toContain('webhook_signature_replayed');
    await rig.buyer.whenIdle();
    expect(rig.buyer.task(e.taskId).events).toHaveLength(1);
  });

  it('retains dedup rows for at least 24 hours, then prunes them', async () => {
    const e = event({ timestamp: new Date(clock).toISOString() });
    expect((await rig.sendEvent(e, at())).status).toBe(200);
    clock += 23 * 3600 * 1000;
    await rig.restart({ now: () => clock, pauseProcessing: false });
    expect(JSON.parse((await rig.sendEvent(e, at())).body).status).toBe('duplicate');
    clock += 2 * 3600 * 1000;
    await rig.restart({ now: () => clock, pauseProcessing: false });
    expect(JSON.parse((await rig.sendEvent(e, at())).body).status).toBe('accepted');
  });
});
