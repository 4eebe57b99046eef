/**
 * The mock seller's webhook emission, observed by a plain loopback receiver: published keys,
 * signed task webhooks, registration rules, retries with the same key and fresh nonces, the
 * activity log, 401 handling, delivery reports up to the final one and silence afterwards,
 * impairment coalescing, and a clean close with retries still pending.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { protocolIds } from '../../../harness/core/token.js';
import { BrandJwksResolver } from '../../../harness/core/signing/keys/jwks-resolver.js';
import { InMemoryReplayCache } from '../../../harness/core/signing/verify/replay-cache.js';
import { parseSignatureHeaders } from '../../../harness/core/signing/parse/signature-headers.js';
import { verifyRequestSignature } from '../../../harness/core/signing/verify/verifier.js';
import type { RunningMockSeller } from '../options.js';
import { McpTestClient } from '../testing/wire-client.js';
import { HookReceiver } from '../testing/hook-receiver.js';
import { checkCoalescingWindows, ImpairmentCoalescer } from './impairments.js';
import { createArgs, freshAccount, key, startTestSeller } from '../testing/seller-fixtures.js';

const ids = protocolIds('proto');

let seller: RunningMockSeller;
let client: McpTestClient;
const receiver = new HookReceiver();
let n = 0;
const path = () => `/hooks/${++n}/route-token`;

async function control(scenario: string, params: Record<string, unknown>, account: Record<string, unknown> = {}) {
  return client.ok('comply_test_controller', { scenario, params, account: { ...account, sandbox: true } });
}

async function reportingBuy(hookPath: string) {
  const account = freshAccount();
  const buy = await client.ok(
    'create_media_buy',
    createArgs({ account, context: { trace: 'r1' }, reporting_webhook: { url: receiver.base + hookPath, operation_id: 'op-report' } }),
  );
  return { account, id: buy.media_buy_id as string };
}

beforeAll(async () => {
  await receiver.start();
  seller = await startTestSeller({ requestSigning: false, webhooks: { retryBaseDelayMs: 5, impairmentWindowMs: 200 } });
  client = new McpTestClient(seller.mcpUrl);
  await client.initialize();
});
afterAll(async () => {
  await seller?.close();
  await receiver.close();
});

describe('published keys', () => {
  it('serves brand.json with agents[].jwks_uri and a JWKS of public keys: request-signing, then governance-signing', async () => {
    const brand = (await (await fetch(seller.brandJsonUrl)).json()) as { agents: { url: string; jwks_uri: string }[] };
    expect(brand.agents.map((a) => a.url)).toEqual([seller.mcpUrl, seller.a2aUrl]);
    expect(new Set(brand.agents.map((a) => a.jwks_uri))).toEqual(new Set([seller.jwksUrl]));
    const jwks = (await (await fetch(seller.jwksUrl)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.map((k) => k[ids.keyUseMember])).toEqual(['request-signing', 'governance-signing']);
    for (const k of jwks.keys) {
      expect(k).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig', key_ops: ['verify'] });
      expect(k).not.toHaveProperty('d');
    }
  });
});

describe('task status webhooks', () => {
  it('fires once on completion of a submitted task, signed with the published key, with the envelope of spec 6.1', async () => {
    const p = path();
    const account = freshAccount();
    const taskId = `task-${key()}`;
    await control('force_create_media_buy_arm', { arm: 'submitted', task_id: taskId }, account);
    const created = await client.ok(
      'create_media_buy',
      createArgs({ account, context: { c: 1 }, push_notification_config: { url: receiver.base + p, operation_id: 'op-xyz' } }),
    );
    expect(created).toMatchObject({ status: 'submitted', task_id: taskId });
    await control('force_task_completion', { task_id: taskId, result: { media_buy_id: 'mb_1' } });
    await seller.webhooksIdle();
    const [hit, ...rest] = receiver.at(p);
    expect(rest).toEqual([]);
    expect(hit!.body).toMatchObject({
      task_id: taskId,
      operation_id: 'op-xyz',
      task_type: 'create_media_buy',
      domain: 'media-buy',
      status: 'completed',
      context: { c: 1 },
      result: { media_buy_id: 'mb_1' },
    });
    expect(hit!.body.idempotency_key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const resolver = new BrandJwksResolver({ brandJsonUrl: seller.brandJsonUrl, agentUrl: seller.mcpUrl, allowInsecureLoopback: true });
    const verdict = await verifyRequestSignature(
      { method: 'POST', url: receiver.base + p, headers: hit!.headers, body: new Uint8Array(hit!.raw) },
      {
        profile: 'webhook',
        ids,
        encoding: 'legacy',
        now: () => Math.floor(hit!.at / 1000),
        keys: resolver,
        replayCache: new InMemoryReplayCache({ perKeyidCap: 10 }),
      },
    );
    expect(verdict).toMatchObject({ ok: true, signer: { agent_url: seller.mcpUrl } });
  });

  it('sends nothing for a task answered inline', async () => {
    const p = path();
    await client.ok('create_media_buy', createArgs({ push_notification_config: { url: receiver.base + p, operation_id: 'op-inline' } }));
    await seller.webhooksIdle();
    expect(receiver.at(p)).toEqual([]);
  });

  it('refuses Bearer registrations, registrations without operation_id and short HMAC secrets', async () => {
    const url = receiver.base + path();
    const cases: [Record<string, unknown>, string][] = [
      [{ url, operation_id: 'op', authentication: { schemes: ['Bearer'], credentials: 'b'.repeat(40) } }, 'push_notification_config.authentication.schemes'],
      [{ url }, 'push_notification_config.operation_id'],
      [{ url, operation_id: 'op', authentication: { schemes: ['HMAC-SHA256'] } }, 'push_notification_config.authentication.credentials'],
    ];
    for (const [config, field] of cases) {
      expect(await client.err('create_media_buy', createArgs({ push_notification_config: config }))).toMatchObject({ code: 'INVALID_REQUEST', field });
    }
    expect(await client.err('create_media_buy', createArgs({ reporting_webhook: { url } }))).toMatchObject({
      code: 'INVALID_REQUEST',
      field: 'reporting_webhook.operation_id',
    });
  });
});

describe('delivery reports', () => {
  it('retries a 503 with the same key and bytes and a fresh nonce, and records each attempt', async () => {
    const p = path();
    receiver.scripts.set(p, [{ status: 503 }, { status: 503 }]);
    const { account, id } = await reportingBuy(p);
    await control('simulate_delivery', { media_buy_id: id, impressions: 1000 }, account);
    await seller.webhooksIdle();
    const hits = receiver.at(p);
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => h.raw.toString())).size).toBe(1);
    const nonces = hits.map((h) => parseSignatureHeaders(String(h.headers['signature-input']), String(h.headers.signature), 'legacy').params.nonce);
    expect(new Set(nonces).size).toBe(3);
    expect(hits[0]!.body).toMatchObject({
      task_type: 'media_buy_delivery',
      operation_id: 'op-report',
      status: 'completed',
      context: { trace: 'r1' },
      result: { notification_type: 'scheduled', sequence_number: 1 },
    });
    expect(hits[0]!.body.result).not.toHaveProperty('aggregated_totals');
    const read = await client.ok('get_media_buys', { media_buy_ids: [id], include_webhook_activity: true });
    const activity = (read.media_buys as { webhook_activity: Record<string, unknown>[] }[])[0]!.webhook_activity;
    expect(activity.map((a) => [a.idempotency_key, a.status, a.http_status_code, a.attempt])).toEqual([
      [hits[0]!.body.idempotency_key, 'failed', 503, 1],
      [hits[0]!.body.idempotency_key, 'failed', 503, 2],
      [hits[0]!.body.idempotency_key, 'success', 200, 3],
    ]);
  });

  it('retries a plain 401 but stops after a 401 carrying a webhook_* signature error', async () => {
    const plain = path();
    const coded = path();
    receiver.scripts.set(plain, [{ status: 401 }]);
    receiver.scripts.set(coded, [{ status: 401, www: 'Signature error="webhook_signature_invalid"' }]);
    for (const p of [plain, coded]) {
      const { account, id } = await reportingBuy(p);
      await control('simulate_delivery', { media_buy_id: id, impressions: 10 }, account);
    }
    await seller.webhooksIdle();
    expect(receiver.at(plain).map((h) => h.body.result.sequence_number)).toEqual([1, 1]);
    expect(receiver.at(coded).map((h) => h.body.result.sequence_number)).toEqual([1]);
  });

  it('numbers reports, sends a final one on termination and nothing afterwards; a new reporting_webhook applies from the next fire', async () => {
    const first = path();
    const second = path();
    const { account, id } = await reportingBuy(first);
    await control('simulate_delivery', { media_buy_id: id, impressions: 100 }, account);
    await client.ok('update_media_buy', { idempotency_key: key(), media_buy_id: id, reporting_webhook: { url: receiver.base + second, operation_id: 'op-2' } });
    await control('simulate_delivery', { media_buy_id: id, impressions: 200 }, account);
    await control('force_media_buy_status', { media_buy_id: id, status: 'canceled' }, account);
    await control('simulate_delivery', { media_buy_id: id, impressions: 300 }, account);
    await seller.webhooksIdle();
    expect(receiver.at(first).map((h) => [h.body.result.notification_type, h.body.result.sequence_number])).toEqual([['scheduled', 1]]);
    const later = receiver
      .at(second)
      .map((h) => [h.body.operation_id, h.body.result.notification_type, h.body.result.sequence_number, h.body.result.media_buy_deliveries[0].status]);
    expect(later).toEqual([
      ['op-2', 'scheduled', 2, 'active'],
      ['op-2', 'final', 3, 'canceled'],
    ]);
  });
});

describe('impairments', () => {
  it('pushes impairments that happen together as one event, and lists them on the buy', async () => {
    const p = path();
    const { account, id } = await reportingBuy(p);
    await control('simulate_impairment', { media_buy_id: id, categories: ['creative_revoked', 'audience_suspended'] }, account);
    const deadline = Date.now() + 5_000;
    while (receiver.at(p).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await seller.webhooksIdle();
    const hits = receiver.at(p);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.body.result.impairments.map((i: { category: string }) => i.category)).toEqual(['creative_revoked', 'audience_suspended']);
    const read = await client.ok('get_media_buys', { media_buy_ids: [id] });
    expect((read.media_buys as { impairments: unknown[] }[])[0]!.impairments).toHaveLength(2);
  });
});

describe('the impairment coalescer', () => {
  const general = { generalMs: 1_000, latencySensitiveMs: 0 };

  it('batches per buy for the window, and flushes latency-sensitive ones at once', () => {
    vi.useFakeTimers();
    try {
      const pushed: [string, string[]][] = [];
      const c = new ImpairmentCoalescer(
        general,
        () => Date.now(),
        (principal, buy, items) => pushed.push([`${principal}/${buy}`, items.map((i) => String(i.category))]),
      );
      c.add('p', 'b1', { category: 'creative_revoked' });
      vi.advanceTimersByTime(500);
      c.add('p', 'b1', { category: 'audience_suspended' });
      c.add('p', 'b2', { category: 'creative_revoked' });
      expect(pushed).toEqual([]);
      vi.advanceTimersByTime(500);
      expect(pushed).toEqual([['p/b1', ['creative_revoked', 'audience_suspended']]]);
      c.add('p', 'b2', { category: 'fraud' });
      expect(pushed[1]).toEqual(['p/b2', ['creative_revoked', 'fraud']]);
      vi.advanceTimersByTime(5_000);
      expect(pushed).toHaveLength(2);
      c.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps deadlines on the seller's clock: moving it past a window pushes the batch at once", () => {
    vi.useFakeTimers();
    try {
      let offset = 0;
      const pushed: string[] = [];
      const windows = { generalMs: 5 * 60_000, latencySensitiveMs: 30_000 };
      const c = new ImpairmentCoalescer(
        windows,
        (_p, buy) => Date.now() + (buy === 'b1' ? offset : 0),
        (_p, buy) => pushed.push(buy),
      );
      c.add('p', 'b1', { category: 'audience_suspended' });
      c.add('p', 'b2', { category: 'fraud' });
      offset = 5 * 60_000 - 1;
      c.tick();
      expect(pushed).toEqual([]);
      offset = 5 * 60_000;
      c.tick();
      expect(pushed).toEqual(['b1']);
      // b2's clock did not move: its 30 s window runs in real time.
      vi.advanceTimersByTime(30_000);
      expect(pushed).toEqual(['b1', 'b2']);
      expect(c.pending()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses configured windows beyond the defaults', () => {
    expect(() => checkCoalescingWindows({ generalMs: 10 * 60_000, latencySensitiveMs: 0 })).toThrow(RangeError);
    expect(() => checkCoalescingWindows({ generalMs: 1_000, latencySensitiveMs: 60_000 })).toThrow(RangeError);
    expect(() => checkCoalescingWindows({ generalMs: 5 * 60_000, latencySensitiveMs: 59_999 })).not.toThrow();
  });
});

describe('shutdown', () => {
  it('closes promptly with retries still scheduled and sends nothing afterwards', async () => {
    const other = await startTestSeller({ requestSigning: false, webhooks: { retryBaseDelayMs: 60_000 } });
    const c = new McpTestClient(other.mcpUrl);
    await c.initialize();
    const p = path();
    receiver.scripts.set(p, [{ status: 503 }]);
    const account = freshAccount();
    const buy = await c.ok('create_media_buy', createArgs({ account, reporting_webhook: { url: receiver.base + p, operation_id: 'op' } }));
    await c.ok('comply_test_controller', {
      scenario: 'simulate_delivery',
      params: { media_buy_id: buy.media_buy_id, impressions: 1 },
      account: { ...account, sandbox: true },
    });
    const deadline = Date.now() + 5_000;
    while (receiver.at(p).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await other.close();
    expect(receiver.at(p)).toHaveLength(1);
    await other.webhooksIdle();
  });
});
