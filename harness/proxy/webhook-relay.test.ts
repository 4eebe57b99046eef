/**
 * The webhook relay: bytes, path and Host passed on as the sender sent them; duplicate, reorder
 * and corrupt-signature injected as the rules say and recorded; and the done-when test of issue 14:
 * the reference mock seller posting delivery reports through the proxy to the reference mock buyer
 * with duplicates and reordering injected, the buyer processing each event once and never applying
 * an older status (and a buyer that does apply older statuses caught by the same test).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockBuyer } from '../../mocks/buyer/index.js';
import { McpTestClient } from '../../mocks/seller/testing/wire-client.js';
import { createArgs, freshAccount, startTestSeller } from '../../mocks/seller/testing/seller-fixtures.js';
import { renderAgentComplianceJson, validateAgentCompliance } from '../../reports/json.js';
import type { ProxiedExchange } from './http-parts.js';
import { Injector, parseInjectRules } from './inject.js';
import { startAuditingProxy } from './session.js';
import { corruptSignature, startWebhookRelay } from './webhook-relay.js';

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver that records what reaches it and answers 200 (or the status its path asks for: /status/NNN). */
let receiver: Server;
let receiverUrl: string;
const hits: Hit[] = [];
beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      const status = /^\/status\/(\d{3})/.exec(req.url ?? '');
      res.writeHead(status ? Number(status[1]) : 200, { 'content-type': 'application/json' }).end(`{"got":${hits.length}}`);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

const post = async (url: string, body: string, headers: Record<string, string> = {}) => {
  const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.statusCode, body: await res.body.text() };
};

describe('the webhook relay', () => {
  it('passes the body, path and Host on as sent, and the receiver answer back', async () => {
    const seen: ProxiedExchange[] = [];
    const relay = await startWebhookRelay({ to: receiverUrl, onExchange: (x) => seen.push(x) });
    try {
      hits.length = 0;
      const answer = await post(`${relay.url}/hooks/a?x=1`, '{"n":1}', { signature: 'sig=:AAAA:', 'content-digest': 'sha-256=:x:' });
      expect(answer).toEqual({ status: 200, body: '{"got":1}' });
      expect(hits[0]).toMatchObject({ path: '/hooks/a?x=1', body: '{"n":1}' });
      // The authority the sender addressed (and signed) reaches the receiver.
      expect(hits[0].headers.host).toBe(new URL(relay.url).host);
      expect(hits[0].headers).toMatchObject({ signature: 'sig=:AAAA:', 'content-digest': 'sha-256=:x:' });
      expect((await post(`${relay.url}/status/503`, '{}')).status).toBe(503);
      expect(seen.map((x) => [x.channel, x.request.path, x.response?.status])).toEqual([
        ['webhook', '/hooks/a?x=1', 200],
        ['webhook', '/status/503', 503],
      ]);
    } finally {
      await relay.close();
    }
  });

  it('refuses a body above its cap with 413 and answers 502 when the receiver is down', async () => {
    const seen: ProxiedExchange[] = [];
    const relay = await startWebhookRelay({ to: 'http://127.0.0.1:1', maxRequestBytes: 1024, onExchange: (x) => seen.push(x) });
    try {
      expect((await post(`${relay.url}/h`, 'x'.repeat(5000))).status).toBe(413);
      const down = await post(`${relay.url}/h`, '{}');
      expect(down.status).toBe(502);
      expect(seen.map((x) => x.error)).toEqual([expect.stringContaining('above 1024 bytes'), expect.stringContaining('not reached')]);
    } finally {
      await relay.close();
    }
  });

  it('swaps webhooks pairwise per path under webhook:reorder, answering the held one 200 at once', async () => {
    const inject = new Injector(parseInjectRules(['webhook:reorder']), '1');
    const seen: ProxiedExchange[] = [];
    const relay = await startWebhookRelay({ to: receiverUrl, inject, holdMs: 60_000, onExchange: (x) => seen.push(x) });
    try {
      hits.length = 0;
      for (const n of [1, 2, 3]) expect((await post(`${relay.url}/r`, `{"n":${n}}`)).status).toBe(200);
      await post(`${relay.url}/other`, '{"n":"other"}');
      // 1 was held until 2 went through; 3 is held (nothing after it on /r yet); /other is its own path (held too).
      expect(hits.map((h) => h.body)).toEqual(['{"n":2}', '{"n":1}']);
      await relay.close();
      expect(
        hits
          .map((h) => h.body)
          .slice(2)
          .sort(),
      ).toEqual(['{"n":"other"}', '{"n":3}']);
      expect(inject.summary().by_rule['webhook:reorder']).toBe(3);
      expect(inject.summary().faults[0].what).toMatch(/held webhook \/r .*delivered it after webhook #\d+, which arrived later; the receiver answered 200/);
      // The sender's exchange shows the relay's own answer; the late copy is marked as the relay's act.
      const held = seen.find((x) => x.request.body === '{"n":1}' && !x.injected_copy);
      expect(held?.injected_answer).toBe(true);
      expect(seen.filter((x) => x.injected_copy).map((x) => x.request.body)).toHaveLength(3);
    } finally {
      await relay.close();
    }
  });

  it('delivers a held webhook alone after the hold time when no later one comes', async () => {
    const inject = new Injector(parseInjectRules(['webhook:reorder']), '1');
    const relay = await startWebhookRelay({ to: receiverUrl, inject, holdMs: 50, onExchange: () => {} });
    try {
      hits.length = 0;
      await post(`${relay.url}/alone`, '{"n":1}');
      for (let i = 0; i < 100 && hits.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(hits.map((h) => h.body)).toEqual(['{"n":1}']);
      expect(inject.summary().faults[0].what).toContain('alone after 50 ms');
    } finally {
      await relay.close();
    }
  });

  it('delivers twice under webhook:duplicate and changes one character of the signature under webhook:corrupt-signature', async () => {
    const inject = new Injector(parseInjectRules(['webhook:duplicate', 'webhook:corrupt-signature']), '1');
    const relay = await startWebhookRelay({ to: receiverUrl, inject, onExchange: () => {} });
    try {
      hits.length = 0;
      const signature = 'sig1=:Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4:';
      expect((await post(`${relay.url}/d`, '{"n":1}', { signature })).status).toBe(200);
      expect(hits).toHaveLength(2);
      expect(hits[0].body).toBe(hits[1].body);
      const got = String(hits[0].headers.signature);
      expect(got).not.toBe(signature);
      expect([...got].filter((c, i) => c !== signature[i])).toHaveLength(1);
      expect(inject.summary().by_rule).toEqual({ 'webhook:duplicate': 1, 'webhook:corrupt-signature': 1 });
    } finally {
      await relay.close();
    }
  });

  it('corrupts only the signature value, keeping it well-formed', () => {
    expect(corruptSignature('sig=:QUJD:')).toBe('sig=:QUAD:');
    expect(corruptSignature('sig=:AAAA==:')).toBe('sig=:AABA==:');
    expect(corruptSignature('no value here')).toBeUndefined();
  });
});

/** The mock seller's delivery reports to the mock buyer, through the proxy with webhook faults injected. */
async function buyerThroughProxy(buyerFaults: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'relay-buyer-'));
  const seller = await startTestSeller();
  const buyer = await startMockBuyer({
    dbPath: join(dir, 'buyer.sqlite'),
    faults: buyerFaults,
    // The seller lists its MCP and A2A agents with one key: the buyer trusts one of them by URL.
    trust: { senders: [{ brandJsonUrl: seller.brandJsonUrl, agentUrl: seller.mcpUrl }], allowInsecureLoopback: true },
  });
  const inject = new Injector(parseInjectRules(['webhook:duplicate', 'webhook:reorder']), '14');
  const proxy = await startAuditingProxy({ upstream: seller.baseUrl, token: 'proto', webhooksTo: buyer.baseUrl, webhookHoldMs: 60_000, inject });
  try {
    const client = new McpTestClient(`${proxy.url}/mcp`);
    await client.initialize();
    const hookUrl = `${proxy.webhookUrl}${new URL(buyer.url).pathname}`;
    const buys: string[] = [];
    for (let b = 0; b < 2; b++) {
      const account = freshAccount();
      const sandbox = { ...account, sandbox: true };
      const control = (scenario: string, params: Record<string, unknown>) => client.ok('comply_test_controller', { scenario, params, account: sandbox });
      const buy = await client.ok('create_media_buy', createArgs({ account, reporting_webhook: { url: hookUrl, operation_id: `op-${b}` } }));
      const id = buy.media_buy_id as string;
      buys.push(id);
      // Four reports per buy, one at a time, each a second later on the seller's clock.
      for (const step of [1, 2, 3, 4]) {
        await control('advance_clock', { seconds: 1 });
        if (step < 4) await control('simulate_delivery', { media_buy_id: id, impressions: 100 * step });
        else await control('force_media_buy_status', { media_buy_id: id, status: 'canceled' });
        await seller.webhooksIdle();
      }
    }
    await proxy.close();
    await proxy.settle();
    await buyer.whenIdle(10_000);
    return { buys: buys.map((id) => ({ id, ...buyer.task(id) })), report: proxy.result(), summary: inject.summary(), stats: proxy.stats() };
  } finally {
    await proxy.close();
    await buyer.close();
    await seller.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type BuyerTask = Awaited<ReturnType<typeof buyerThroughProxy>>['buys'][number];

/** What a buyer did wrong with the events of one buy: an event processed twice, an older status applied last. */
function mishandled(buy: BuyerTask): string[] {
  const out: string[] = [];
  const keys = buy.events.map((e) => e.idempotency_key);
  if (new Set(keys).size !== keys.length) out.push(`${buy.id}: an event processed more than once`);
  const newest = buy.events
    .map((e) => e.timestamp ?? '')
    .sort()
    .at(-1);
  if (buy.task?.timestamp !== newest) out.push(`${buy.id}: an older status applied over a newer one`);
  return out;
}

describe('the mock buyer behind the proxy, with webhook:duplicate and webhook:reorder injected', () => {
  it('processes each event exactly once and never applies an older status; the report lists what was injected', async () => {
    const { buys, report, summary, stats } = await buyerThroughProxy([]);
    expect(stats.webhooks).toBe(8);
    // Pairs swapped per buy (1<->2, 3<->4), and each webhook that was not held delivered twice.
    expect(summary.by_rule).toEqual({ 'webhook:duplicate': 4, 'webhook:reorder': 4 });
    for (const buy of buys) {
      expect(buy.events).toHaveLength(4);
      expect(mishandled(buy)).toEqual([]);
      // The reordering reached the buyer: the two late ones came after a newer status and were not applied.
      expect(buy.events.filter((e) => e.applied === 0 && /not applied/.test(e.note ?? ''))).toHaveLength(2);
    }
    // A byte-for-byte copy repeats the signature's nonce: this buyer refuses it as a replay.
    expect(summary.faults.filter((f) => f.rule === 'webhook:duplicate').every((f) => f.what.endsWith('the receiver answered 401'))).toBe(true);
    expect(report.injected).toMatchObject({ seed: '14', total: 8, by_rule: { 'webhook:duplicate': 4, 'webhook:reorder': 4 } });
    expect(report.injected?.faults.map((f) => f.rule).sort()).toEqual([...Array(4).fill('webhook:duplicate'), ...Array(4).fill('webhook:reorder')]);
    expect(validateAgentCompliance(JSON.parse(renderAgentComplianceJson(report))).errors).toEqual([]);
    // The seller's own webhooks are audited (the relay's copies are not): the clean mock breaks nothing.
    expect(report.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'warn')).toEqual([]);
    expect(report.checks.find((c) => c.check_id === 'webhooks.signature.verifies' && c.transport === 'mcp')?.outcome).toBe('pass');
  }, 60_000);

  it('holds when the copies get past the replay cache: the durable dedup takes them', async () => {
    const { buys, summary } = await buyerThroughProxy(['accepts-replayed-nonce']);
    expect(summary.faults.filter((f) => f.rule === 'webhook:duplicate').every((f) => f.what.endsWith('the receiver answered 200'))).toBe(true);
    for (const buy of buys) expect(mishandled(buy)).toEqual([]);
  }, 60_000);

  it.each([
    [['older-status-applied'], 'an older status applied over a newer one'],
    [['accepts-replayed-nonce', 'no-dedup'], 'an event processed more than once'],
  ])(
    'catches a buyer with fault %j: %s',
    async (faults, problem) => {
      const { buys } = await buyerThroughProxy(faults);
      expect(buys.flatMap(mishandled)).toEqual(buys.map((b) => `${b.id}: ${problem}`));
    },
    60_000,
  );
});
