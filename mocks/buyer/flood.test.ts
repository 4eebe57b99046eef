/**
 * Flood behaviour of the mock buyer on loopback: it never hangs and never grows without bound.
 * Dedup rows per sender stop at the bound (429), the replay cache stops at its per-keyid cap
 * (401 rate_abuse, never a silent eviction), bodies stop being read at the cap (413 and the
 * connection closed), slow clients are cut off by the header/request timeouts, and a burst of
 * concurrent deliveries is answered in full.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { encodeEvent } from '../../harness/core/webhooks/receiver-probe/events.js';
import { signWebhook } from '../../harness/core/webhooks/receiver-probe/sender.js';
import { event, post, startRig, type Rig } from './testing/buyer-rig.js';

const BOUND = 25;
const NONCE_CAP = 60;

function closedWithin(socket: Socket, ms: number): Promise<{ closed: boolean; data: string }> {
  return new Promise((resolve) => {
    let data = '';
    socket.on('data', (d: Buffer) => void (data += d.toString()));
    socket.on('error', () => undefined);
    const timer = setTimeout(() => resolve({ closed: false, data }), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, data });
    });
  });
}

function open(url: string): Promise<Socket> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => resolve(s));
    s.once('error', reject);
  });
}

describe('mock buyer under a flood', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ dedupBoundPerSender: BOUND, replayCapPerKeyid: NONCE_CAP, timeouts: { headersMs: 500, requestMs: 1000, keepAliveMs: 500 } });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('stops admitting new keys at the per-sender bound (429) while duplicates stay 200', async () => {
    const events = Array.from({ length: BOUND + 15 }, () => event());
    const statuses = await Promise.all(events.map((e) => rig.sendEvent(e).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(BOUND);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    const acceptedOne = events[statuses.indexOf(200)]!;
    expect((await rig.sendEvent(acceptedOne)).status).toBe(200);
    await rig.buyer.whenIdle();
    expect(rig.buyer.snapshot()).toMatchObject({ dedup_entries: BOUND, processed: BOUND, pending: 0 });
  });

  it('caps the replay cache per keyid and refuses beyond it instead of evicting', async () => {
    // Earlier tests used some nonces of the same keyid; fill the rest, then one more.
    const statuses: number[] = [];
    for (let i = 0; i < NONCE_CAP + 5; i++) statuses.push((await rig.sendEvent(event())).status);
    const abuse = await rig.sendEvent(event());
    expect(abuse.status).toBe(401);
    expect(String(abuse.headers['www-authenticate'])).toContain('webhook_signature_rate_abuse');
    expect(statuses.every((s) => s === 429 || s === 401)).toBe(true);
  });

  it('stops reading an endless body at 1 MB: 413, then the connection is closed', async () => {
    const s = await open(rig.buyer.url);
    const u = new URL(rig.buyer.url);
    s.write(`POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const outcome = closedWithin(s, 15_000);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let written = 0;
    const LIMIT = 64 * 1024 * 1024;
    while (written < LIMIT && !s.destroyed && s.writable) {
      const ok = s.write(`${chunk.length.toString(16)}\r\n`) && s.write(chunk) && s.write('\r\n');
      written += chunk.length;
      if (!ok) {
        const drained = await Promise.race([
          new Promise((r) => s.once('drain', () => r(true))),
          new Promise((r) => s.once('close', () => r(false))),
          new Promise((r) => setTimeout(() => r(false), 5000)),
        ]);
        if (!drained) break;
      }
    }
    const { closed, data } = await outcome;
    expect(data).toMatch(/^HTTP\/1\.1 413/);
    expect(closed).toBe(true);
    expect(written).toBeLessThan(LIMIT);
    s.destroy();
  });

  it('cuts off a client that never finishes its headers (slowloris)', async () => {
    const s = await open(rig.buyer.url);
    s.write('POST /webhooks/default HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const { closed } = await closedWithin(s, 10_000);
    expect(closed).toBe(true);
  });

  it('cuts off a client that trickles its body', async () => {
    const s = await open(rig.buyer.url);
    s.write('POST /webhooks/default HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    const timer = setInterval(() => s.writable && s.write(' '), 100);
    const { closed } = await closedWithin(s, 10_000);
    clearInterval(timer);
    expect(closed).toBe(true);
    s.destroy();
  });

  it('answers every request of a concurrent burst and stays responsive', async () => {
    const agent = new Agent({ connections: 64 });
    try {
      const bodies = Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? encodeEvent(event()) : Buffer.from('{"not":"signed"}')));
      const answers = await Promise.all(
        bodies.map(async (b, i) => {
          const signed = i % 2 === 0 ? signWebhook(rig.identity, rig.buyer.url, b) : { headers: { 'content-type': 'application/json' }, body: b };
          const res = await request(rig.buyer.url, {
            method: 'POST',
            headers: signed.headers,
            body: Buffer.from(signed.body),
            dispatcher: agent,
            headersTimeout: 20_000,
            bodyTimeout: 20_000,
          });
          await res.body.text();
          return res.statusCode;
        }),
      );
      expect(answers).toHaveLength(300);
      expect(answers.every((s) => s === 401 || s === 429)).toBe(true);
    } finally {
      await agent.close();
    }
    const health = await post(`${rig.buyer.adminUrl}/health`, {}, Buffer.alloc(0)).catch(() => undefined);
    expect(health?.status).toBe(404); // POST on a GET route: still answering
    expect(rig.buyer.snapshot().dedup_entries).toBe(BOUND);
  });
});
