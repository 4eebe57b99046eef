/**
 * Every task of interface spec 4.3 answers with sandbox data, `sandbox: true` and the request's
 * `context` echoed verbatim; every task accepts the envelope fields (digest 3.7); bad input is
 * INVALID_REQUEST naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMockSeller } from './index.js';
import { McpTestClient, a2aSend } from './testing/wire-client.js';
import { PRODUCT, createArgs, freshAccount, isoIn, key, startTestSeller } from './testing/seller-fixtures.js';
import { taskCases } from './testing/task-cases.js';

let seller: RunningMockSeller;
let client: McpTestClient;
let buyId: string;

beforeAll(async () => {
  seller = await startTestSeller();
  client = new McpTestClient(seller.mcpUrl);
  await client.initialize();
  buyId = (await client.ok('create_media_buy', createArgs())).media_buy_id as string;
});
afterAll(() => seller.close());

const cases = () => taskCases(seller.baseUrl, buyId);

describe('every task answers', () => {
  it('over MCP with sandbox: true, the context echoed verbatim and its main field', async () => {
    const context = { correlation_id: 'c-1', trace: { hops: [1, 'two', null], note: 'ünïcode ✓ <kept> & verbatim' } };
    const list = cases();
    expect(list.map((c) => c[0]).sort()).toEqual([...new Set(list.map((c) => c[0]))].sort());
    expect(list).toHaveLength(21);
    for (const [task, args, field] of list) {
      const payload = await client.ok(task, { ...args, context });
      expect(payload.sandbox, task).toBe(true);
      expect(payload.context, task).toEqual(context);
      expect(payload, task).toHaveProperty(field);
    }
  });

  it('over A2A the same way', async () => {
    for (const [task, args, field] of cases()) {
      const r = await a2aSend(seller.a2aUrl, task, { ...args, context: { via: 'a2a' } });
      expect(r.state, task).toBe('completed');
      expect(r.data?.context, task).toEqual({ via: 'a2a' });
      expect(r.data, task).toHaveProperty(field);
    }
  });

  it('accepts every envelope field on every task (digest 3.7); sync tasks ignore push_notification_config', async () => {
    const envelope = {
      context_id: 'ctx-1',
      governance_context: 'gov-token',
      push_notification_config: { url: 'https://buyer.example/hooks/x', operation_id: 'op-1' },
      $schema: 'https://schemas.example/v3/task-request.json',
      ext: { vendor: { flag: true } },
    };
    for (const [task, args] of cases()) {
      const r = await client.call(task, { ...args, idempotency_key: key(), ...envelope });
      expect(r.isError, `${task}: ${r.answer.text.slice(0, 300)}`).toBe(false);
    }
  });
});

describe('task behaviour', () => {
  it('get_products honours the brief and answers products of interface spec 2.5', async () => {
    const payload = await client.ok('get_products', { buying_mode: 'brief', brief: 'homepage display takeover' });
    const products = payload.products as Record<string, unknown>[];
    expect(products.map((p) => p.product_id)).toEqual(['display_homepage_takeover']);
    expect(products[0]).toMatchObject({
      channels: ['display'],
      pricing_options: [{ pricing_model: 'cpm', currency: 'USD', fixed_price: 12.75 }],
      delivery_type: 'guaranteed',
      forecast: { impressions: { min: expect.any(Number), max: expect.any(Number) } },
      format_ids: [
        { agent_url: seller.baseUrl, id: 'display_970x250' },
        { agent_url: seller.baseUrl, id: 'display_300x250' },
      ],
      sandbox: true,
    });
    const refined = await client.ok('get_products', {
      buying_mode: 'refine',
      refine: [{ scope: 'product', product_id: 'olv_news_preroll', action: 'more_like_this' }],
    });
    expect((refined.products as { channels: string[] }[]).every((p) => p.channels.includes('olv'))).toBe(true);
  });

  it('get_media_buy_delivery validates time_granularity against the declared list', async () => {
    const caps = await client.ok('get_proto_capabilities');
    const declared = (caps.media_buy as { reporting_capabilities: { windowed_pull_granularities: string[] } }).reporting_capabilities
      .windowed_pull_granularities;
    expect(declared).toEqual(['hourly', 'daily']);
    const err = await client.err('get_media_buy_delivery', { media_buy_ids: [buyId], time_granularity: 'monthly' });
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', field: 'time_granularity' });
    const unknown = await client.err('get_media_buy_delivery', { media_buy_ids: ['mb_missing'] });
    expect(unknown).toMatchObject({ code: 'MEDIA_BUY_NOT_FOUND', field: 'media_buy_ids[0]' });
  });

  it('check_governance escalates large budgets and records every check in the plan audit log', async () => {
    const plan = `plan-${key()}`;
    const big = await client.ok('check_governance', {
      plan_id: plan,
      caller: 'https://buyer.example/a2a',
      tool: 'create_media_buy',
      payload: { budget: 5_000_000 },
    });
    expect(big.status).toBe('escalated');
    const mid = await client.ok('check_governance', {
      plan_id: plan,
      caller: 'https://buyer.example/a2a',
      tool: 'create_media_buy',
      payload: { packages: [{ budget: 300_000 }] },
    });
    expect(mid).toMatchObject({ status: 'approved', conditions: [expect.any(String)] });
    const logs = await client.ok('get_plan_audit_logs', { plan_id: plan });
    const entries = logs.entries as Record<string, unknown>[];
    expect(entries).toHaveLength(2);
    for (const entry of entries) {
      expect(entry).toMatchObject({ timestamp: expect.any(String), actor: 'https://buyer.example/a2a', action: 'check_governance' });
    }
  });

  it('sync tasks report created, unchanged and updated per item; list_accounts lists synced accounts', async () => {
    const account = freshAccount();
    const item = { audience_id: `aud-${key()}`, name: 'Lapsed buyers', audience_type: 'suppression' };
    const first = await client.ok('sync_audiences', { idempotency_key: key(), account, audiences: [item] });
    const again = await client.ok('sync_audiences', { idempotency_key: key(), account, audiences: [item] });
    const changed = await client.ok('sync_audiences', { idempotency_key: key(), account, audiences: [{ ...item, name: 'Lapsed' }] });
    expect([first, again, changed].map((p) => (p.audiences as { action: string }[])[0].action)).toEqual(['created', 'unchanged', 'updated']);
    const synced = await client.ok('sync_accounts', { idempotency_key: key(), accounts: [{ ...account, billing: 'advertiser' }] });
    const id = (synced.accounts as { account_id: string }[])[0].account_id;
    const listed = await client.ok('list_accounts');
    expect((listed.accounts as { account_id: string }[]).map((a) => a.account_id)).toContain(id);
  });
});

describe('bad input is INVALID_REQUEST naming the field', () => {
  const bad: [string, Record<string, unknown>, string][] = [
    ['create_media_buy', createArgs({ packages: [] }), 'packages'],
    ['create_media_buy', createArgs({ packages: [{ ...PRODUCT, budget: -5 }] }), 'packages[0].budget'],
    ['create_media_buy', createArgs({ packages: [{ ...PRODUCT, product_id: 'nope', budget: 5 }] }), 'packages[0].product_id'],
    ['create_media_buy', createArgs({ packages: [{ ...PRODUCT, pricing_option_id: 'nope', budget: 5 }] }), 'packages[0].pricing_option_id'],
    ['create_media_buy', createArgs({ start_time: 'tomorrow' }), 'start_time'],
    ['create_media_buy', createArgs({ start_time: isoIn(10), end_time: isoIn(5) }), 'end_time'],
    ['create_media_buy', createArgs({ account: { brand: {} } }), 'account'],
    ['create_media_buy', createArgs({ context: ['not', 'an', 'object'] }), 'context'],
    ['create_media_buy', createArgs({ push_notification_config: { url: 'ftp://x.example/' } }), 'push_notification_config.url'],
    ['update_media_buy', { idempotency_key: key(), media_buy_id: 'x', canceled: false }, 'canceled'],
    ['get_signals', {}, 'signal_spec'],
    ['check_governance', { plan_id: 'p', caller: 'not a url', tool: 't', payload: {} }, 'caller'],
    ['get_brand_identity', {}, 'brand'],
    ['comply_test_controller', { account: { sandbox: true } }, 'scenario'],
    ['activate_signal', { idempotency_key: key(), signal_agent_segment_id: 'seg_unknown', destinations: [{ type: 'platform' }] }, 'signal_agent_segment_id'],
  ];
  it.each(bad)('%s rejects a bad %#', async (task, args, field) => {
    const err = await client.err(task, args);
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', field, recovery: 'correctable' });
    expect(String(err.message)).toContain(field);
  });

  it('rejects non-object arguments over A2A', async () => {
    const r = await a2aSend(seller.a2aUrl, 'get_products', 'nope' as unknown as Record<string, unknown>);
    expect(r.data).toMatchObject({ proto_error: { code: 'INVALID_REQUEST', field: 'parameters' } });
  });
});

describe('get_brand_identity by brand_id', () => {
  it('answers a brand the sandbox serves with the released members on top, and BRAND_NOT_FOUND for another', async () => {
    expect(await client.ok('get_brand_identity', { brand_id: 'nova_motors' })).toMatchObject({
      brand_id: 'nova_motors',
      house: { domain: 'novamotors.example', name: 'Nova Motors' },
      names: [{ en: 'Nova Motors' }],
      brand: { brand_id: 'nova_motors', name: 'Nova Motors' },
    });
    expect(await client.err('get_brand_identity', { brand_id: 'brand_that_does_not_exist', context: { c: 1 } })).toMatchObject({
      code: 'BRAND_NOT_FOUND',
      field: 'brand_id',
    });
  });
});

describe('package targeting', () => {
  it('keeps a package targeting_overlay as sent, reads it back, and replaces it on update', async () => {
    const overlay = { property_list: { agent_url: 'https://lists.example', list_id: 'pl_1' } };
    const buy = await client.ok('create_media_buy', createArgs({ packages: [{ ...PRODUCT, budget: 5000, targeting_overlay: overlay }] }));
    const read = async () =>
      (
        (await client.ok('get_media_buys', { media_buy_ids: [buy.media_buy_id] })).media_buys as {
          packages: { package_id: string; targeting_overlay?: unknown }[];
        }[]
      )[0].packages[0];
    expect((await read()).targeting_overlay).toEqual(overlay);
    const swapped = { collection_list: { agent_url: 'https://lists.example', list_id: 'cl_2' } };
    const pkg = (await read()).package_id;
    await client.ok('update_media_buy', {
      idempotency_key: key(),
      media_buy_id: buy.media_buy_id,
      packages: [{ package_id: pkg, targeting_overlay: swapped }],
    });
    expect((await read()).targeting_overlay).toEqual(swapped);
  });
});
