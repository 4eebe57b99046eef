/**
 * The media-buy state machine (interface spec 2.4a, 3.1; digest 4): initial states, the
 * pause / resume / cancel walk, revision rules, valid_actions per state, every rejection code,
 * and the seller-driven flight transitions on the seller's clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMockSeller } from './index.js';
import { McpTestClient } from './testing/wire-client.js';
import { createArgs, isoIn, key, startTestSeller } from './testing/seller-fixtures.js';

let seller: RunningMockSeller;
let client: McpTestClient;

beforeAll(async () => {
  seller = await startTestSeller();
  client = new McpTestClient(seller.mcpUrl);
  await client.initialize();
});
afterAll(() => seller.close());

const ACTIVE = ['pause', 'cancel', 'update_budget', 'update_dates', 'update_packages', 'add_packages', 'sync_creatives'];
const PAUSED = ['resume', 'cancel', 'update_budget', 'update_dates', 'update_packages', 'add_packages', 'sync_creatives'];
const PENDING = ['pause', 'cancel', 'sync_creatives'];

const update = (media_buy_id: unknown, change: Record<string, unknown>) => ({ idempotency_key: key(), media_buy_id, ...change });

async function read(id: unknown): Promise<Record<string, unknown>> {
  const buys = (await client.ok('get_media_buys', { media_buy_ids: [id] })).media_buys as Record<string, unknown>[];
  return buys[0];
}

describe('creation', () => {
  it('creates active with revision 1 when the flight has started, pending_start when it starts later', async () => {
    const now = await client.ok('create_media_buy', createArgs());
    expect(now).toMatchObject({ status: 'active', revision: 1, valid_actions: ACTIVE });
    const past = await client.ok('create_media_buy', createArgs({ start_time: new Date(Date.now() - 3_600_000).toISOString() }));
    expect(past.status).toBe('active');
    const later = await client.ok('create_media_buy', createArgs({ start_time: isoIn(7), end_time: isoIn(37) }));
    expect(later).toMatchObject({ status: 'pending_start', revision: 1, valid_actions: PENDING });
    const dated = await client.ok('create_media_buy', createArgs({ start_time: { type: 'date', date: isoIn(3).slice(0, 10) } }));
    expect(dated.status).toBe('pending_start');
  });

  it('creates paused when asked, and keeps a latent hold behind pending_start', async () => {
    const paused = await client.ok('create_media_buy', createArgs({ paused: true }));
    expect(paused).toMatchObject({ status: 'paused', valid_actions: PAUSED });
    const held = await client.ok('create_media_buy', createArgs({ paused: true, start_time: isoIn(2) }));
    expect(held).toMatchObject({ status: 'pending_start', valid_actions: [...PENDING, 'resume'] });
  });
});

describe('the pause / resume / cancel walk', () => {
  it('moves active → paused → active → canceled, revision +1 per update, never on reads or replays', async () => {
    const buy = await client.ok('create_media_buy', createArgs());
    const pauseArgs = update(buy.media_buy_id, { paused: true });
    const paused = await client.ok('update_media_buy', pauseArgs);
    expect(paused).toMatchObject({ status: 'paused', revision: 2, valid_actions: PAUSED });
    expect(await client.ok('update_media_buy', pauseArgs)).toMatchObject({ replayed: true, revision: 2 });
    expect((await read(buy.media_buy_id)).revision).toBe(2);
    expect((await read(buy.media_buy_id)).revision).toBe(2);
    const resumed = await client.ok('update_media_buy', update(buy.media_buy_id, { paused: false, revision: 2 }));
    expect(resumed).toMatchObject({ status: 'active', revision: 3, valid_actions: ACTIVE });
    const canceled = await client.ok('update_media_buy', update(buy.media_buy_id, { canceled: true, cancellation_reason: 'test' }));
    expect(canceled).toMatchObject({
      status: 'canceled',
      revision: 4,
      valid_actions: [],
      cancellation: { canceled_at: expect.any(String), canceled_by: 'buyer', reason: 'test' },
    });
  });

  it('applies budget, date and package updates with one revision step each', async () => {
    const buy = await client.ok('create_media_buy', createArgs());
    const pkg = (buy.packages as { package_id: string }[])[0].package_id;
    const budget = await client.ok('update_media_buy', update(buy.media_buy_id, { packages: [{ package_id: pkg, budget: 7500 }] }));
    expect(budget).toMatchObject({ revision: 2, total_budget: 7500 });
    const total = await client.ok('update_media_buy', update(buy.media_buy_id, { budget: 15000 }));
    expect(total).toMatchObject({ revision: 3, total_budget: 15000 });
    const end = isoIn(60);
    const dates = await client.ok('update_media_buy', update(buy.media_buy_id, { end_time: end }));
    expect(dates).toMatchObject({ revision: 4, end_time: end });
    const added = await client.ok(
      'update_media_buy',
      update(buy.media_buy_id, { new_packages: [{ product_id: 'olv_news_preroll', pricing_option_id: 'olv_news_cpm_usd', budget: 100 }] }),
    );
    expect(added.packages).toHaveLength(2);
    expect(added.revision).toBe(5);
  });
});

describe('rejections', () => {
  async function canceledBuy(): Promise<Record<string, unknown>> {
    const buy = await client.ok('create_media_buy', createArgs());
    await client.ok('update_media_buy', update(buy.media_buy_id, { canceled: true }));
    return buy;
  }

  it('refuses pause, resume and updates of a terminal buy with INVALID_STATE', async () => {
    const buy = await canceledBuy();
    const pkg = (buy.packages as { package_id: string }[])[0].package_id;
    for (const change of [{ paused: true }, { paused: false }, { packages: [{ package_id: pkg, budget: 6000 }] }, { end_time: isoIn(90) }]) {
      expect(await client.err('update_media_buy', update(buy.media_buy_id, change))).toMatchObject({ code: 'INVALID_STATE' });
    }
    expect((await read(buy.media_buy_id)).revision).toBe(2);
  });

  it('refuses a second cancel with NOT_CANCELLABLE, and cancel of a completed buy with INVALID_STATE', async () => {
    const buy = await canceledBuy();
    expect(await client.err('update_media_buy', update(buy.media_buy_id, { canceled: true }))).toMatchObject({ code: 'NOT_CANCELLABLE' });
    const other = await client.ok('create_media_buy', createArgs());
    await client.ok('comply_test_controller', {
      scenario: 'force_media_buy_status',
      params: { media_buy_id: other.media_buy_id, status: 'completed' },
      account: { sandbox: true },
    });
    expect(await client.err('update_media_buy', update(other.media_buy_id, { canceled: true }))).toMatchObject({ code: 'INVALID_STATE' });
  });

  it('refuses a stale revision with CONFLICT', async () => {
    const buy = await client.ok('create_media_buy', createArgs());
    await client.ok('update_media_buy', update(buy.media_buy_id, { paused: true }));
    const err = await client.err('update_media_buy', update(buy.media_buy_id, { paused: false, revision: 1 }));
    expect(err).toMatchObject({ code: 'CONFLICT', field: 'revision', details: { current_revision: 2 } });
  });

  it('answers unknown buys and packages with MEDIA_BUY_NOT_FOUND and PACKAGE_NOT_FOUND', async () => {
    expect(await client.err('update_media_buy', update('mb_missing', { paused: true }))).toMatchObject({ code: 'MEDIA_BUY_NOT_FOUND' });
    const buy = await client.ok('create_media_buy', createArgs());
    const err = await client.err('update_media_buy', update(buy.media_buy_id, { packages: [{ package_id: 'pkg_missing', budget: 10 }] }));
    expect(err).toMatchObject({ code: 'PACKAGE_NOT_FOUND', field: 'packages[0].package_id' });
  });

  it('answers an action the state does not allow with ACTION_NOT_ALLOWED and the available actions', async () => {
    const buy = await client.ok('create_media_buy', createArgs());
    const err = await client.err('update_media_buy', update(buy.media_buy_id, { paused: false }));
    expect(err).toMatchObject({
      code: 'ACTION_NOT_ALLOWED',
      details: { attempted_action: 'resume', reason: 'wrong_status', currently_available_actions: ACTIVE },
    });
    const pending = await client.ok('create_media_buy', createArgs({ start_time: isoIn(5) }));
    expect((await client.err('update_media_buy', update(pending.media_buy_id, { budget: 10 }))).code).toBe('ACTION_NOT_ALLOWED');
  });

  it('refuses an update that changes nothing', async () => {
    const buy = await client.ok('create_media_buy', createArgs());
    expect(await client.err('update_media_buy', update(buy.media_buy_id, {}))).toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

describe('seller-driven flight transitions on the seller clock', () => {
  it('starts a pending buy at its start time (paused if held) and completes it at its end', async () => {
    const args = createArgs({ start_time: isoIn(2), end_time: isoIn(10) });
    const held = createArgs({ account: args.account, start_time: isoIn(2), end_time: isoIn(10), paused: true });
    const buy = await client.ok('create_media_buy', args);
    const heldBuy = await client.ok('create_media_buy', held);
    const events: string[] = [];
    const off = seller.events.on('media_buy.status_changed', (e) => {
      if (e.media_buy.media_buy_id === buy.media_buy_id) events.push(`${e.previous_status}->${e.status}:${e.cause}`);
    });
    try {
      const advance = (seconds: number) =>
        client.ok('comply_test_controller', { scenario: 'advance_clock', params: { seconds }, account: { ...(args.account as object), sandbox: true } });
      await advance(3 * 86_400);
      expect(await read(buy.media_buy_id)).toMatchObject({ status: 'active', revision: 1 });
      expect((await read(heldBuy.media_buy_id)).status).toBe('paused');
      await advance(8 * 86_400);
      expect(await read(buy.media_buy_id)).toMatchObject({ status: 'completed', valid_actions: [] });
      expect(events).toEqual(['pending_start->active:seller', 'active->completed:seller']);
    } finally {
      off();
    }
  });
});
