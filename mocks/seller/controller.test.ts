/**
 * comply_test_controller (digest 4.6): production rules for forced states, additive delivery
 * simulation feeding get_media_buy_delivery, the async create arm with task completion (over MCP
 * and A2A), the clock, and the controller's error shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMockSeller } from './index.js';
import { McpTestClient, a2aGetTask, a2aSend } from './testing/wire-client.js';
import { createArgs, freshAccount, isoIn, key, startTestSeller } from './testing/seller-fixtures.js';

let seller: RunningMockSeller;
let client: McpTestClient;

beforeAll(async () => {
  seller = await startTestSeller();
  client = new McpTestClient(seller.mcpUrl);
  await client.initialize();
});
afterAll(() => seller.close());

const control = (scenario: string, params?: Record<string, unknown>, account: Record<string, unknown> = { sandbox: true }) =>
  client.ok('comply_test_controller', { scenario, ...(params ? { params } : {}), account });

async function statusOf(id: unknown): Promise<string> {
  const buys = (await client.ok('get_media_buys', { media_buy_ids: [id] })).media_buys as { status: string }[];
  return buys[0].status;
}

describe('scenarios and errors', () => {
  it('lists its scenarios, also declared in capabilities compliance_testing', async () => {
    const listed = await control('list_scenarios');
    expect(listed).toMatchObject({ success: true, sandbox: true });
    const caps = await client.ok('get_proto_capabilities');
    // The capability names those the released 3.0 schema's closed list admits; list_scenarios names them all.
    expect((caps.compliance_testing as { scenarios: string[] }).scenarios).toEqual([
      'force_media_buy_status',
      'force_account_status',
      'force_creative_status',
      'force_session_status',
      'simulate_delivery',
      'simulate_budget_spend',
    ]);
    expect(listed.scenarios).toEqual([
      'force_media_buy_status',
      'force_account_status',
      'force_creative_status',
      'force_creative_purge',
      'force_session_status',
      'query_provenance_audit_observations',
      'simulate_delivery',
      'simulate_budget_spend',
      'force_create_media_buy_arm',
      'force_get_products_arm',
      'force_get_signals_arm',
      'query_upstream_traffic',
      'force_task_completion',
      'seed_product',
      'seed_pricing_option',
      'seed_creative',
      'seed_plan',
      'seed_media_buy',
      'seed_creative_format',
      'advance_clock',
      'simulate_impairment',
    ]);
  });

  it('answers unknown scenarios, unknown buys, bad params and non-sandbox accounts as {success: false, error}', async () => {
    expect(await control('teleport')).toMatchObject({ success: false, error: 'UNKNOWN_SCENARIO' });
    expect(await control('force_media_buy_status', { media_buy_id: 'mb_missing', status: 'active' })).toMatchObject({ success: false, error: 'NOT_FOUND' });
    expect(await control('force_media_buy_status', { media_buy_id: 'x', status: 'flying' })).toMatchObject({ success: false, error: 'INVALID_PARAMS' });
    expect(await control('list_scenarios', undefined, { account_id: 'live-account', sandbox: false })).toMatchObject({ success: false, error: 'FORBIDDEN' });
    const r = await client.call('comply_test_controller', { scenario: 'teleport', account: { sandbox: true } });
    expect(r.isError).toBe(false);
  });
});

describe('force_media_buy_status', () => {
  it('moves pending_start to active (start of flight) and reports previous and current state', async () => {
    const buy = await client.ok('create_media_buy', createArgs({ start_time: isoIn(7), end_time: isoIn(37) }));
    expect(await control('force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'active' })).toEqual({
      success: true,
      status: 'completed',
      previous_state: 'pending_start',
      current_state: 'active',
      sandbox: true,
    });
    expect(await statusOf(buy.media_buy_id)).toBe('active');
  });

  it('rejects only pending buys and never lets a terminal buy go', async () => {
    const pending = await client.ok('create_media_buy', createArgs({ start_time: isoIn(7) }));
    expect(await control('force_media_buy_status', { media_buy_id: pending.media_buy_id, status: 'rejected', rejection_reason: 'policy' })).toMatchObject({
      success: true,
      current_state: 'rejected',
    });
    const rejected = (await client.ok('get_media_buys', { media_buy_ids: [pending.media_buy_id] })).media_buys as Record<string, unknown>[];
    expect(rejected[0]).toMatchObject({ status: 'rejected', rejection_reason: 'policy', valid_actions: [] });

    const active = await client.ok('create_media_buy', createArgs());
    expect(await control('force_media_buy_status', { media_buy_id: active.media_buy_id, status: 'rejected' })).toMatchObject({
      success: false,
      error: 'INVALID_TRANSITION',
      current_state: 'active',
    });
    expect(await control('force_media_buy_status', { media_buy_id: active.media_buy_id, status: 'completed' })).toMatchObject({ success: true });
    expect(await control('force_media_buy_status', { media_buy_id: active.media_buy_id, status: 'active' })).toMatchObject({
      success: false,
      error: 'INVALID_TRANSITION',
      current_state: 'completed',
    });
    expect(await statusOf(active.media_buy_id)).toBe('completed');
  });

  it('is idempotent: forcing the current state succeeds with previous_state == current_state', async () => {
    const buy = await client.ok('create_media_buy', createArgs());
    expect(await control('force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'active' })).toMatchObject({
      success: true,
      previous_state: 'active',
      current_state: 'active',
    });
  });

  it('marks a seller cancellation as canceled_by seller and announces the change', async () => {
    const buy = await client.ok('create_media_buy', createArgs());
    const causes: string[] = [];
    const off = seller.events.on('media_buy.status_changed', (e) => {
      if (e.media_buy.media_buy_id === buy.media_buy_id) causes.push(`${e.status}:${e.cause}`);
    });
    try {
      await control('force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'canceled' });
    } finally {
      off();
    }
    expect(causes).toEqual(['canceled:controller']);
    const read = (await client.ok('get_media_buys', { media_buy_ids: [buy.media_buy_id] })).media_buys as Record<string, unknown>[];
    expect(read[0].cancellation).toMatchObject({ canceled_by: 'seller' });
  });
});

describe('simulate_delivery', () => {
  it('adds up and feeds get_media_buy_delivery totals, by_package and aggregated_totals', async () => {
    const buy = await client.ok('create_media_buy', createArgs());
    const seen: number[] = [];
    const off = seller.events.on('delivery.simulated', (e) => seen.push(e.simulated.impressions));
    try {
      const one = await control('simulate_delivery', { media_buy_id: buy.media_buy_id, impressions: 10_000, clicks: 25 });
      expect(one).toMatchObject({ success: true, simulated: { impressions: 10_000, clicks: 25, reported_spend: { amount: 425, currency: 'USD' } } });
      const two = await control('simulate_delivery', { media_buy_id: buy.media_buy_id, impressions: 2_000, reported_spend: { amount: 100, currency: 'USD' } });
      expect(two.cumulative).toEqual({ impressions: 12_000, clicks: 25, reported_spend: { amount: 525, currency: 'USD' } });
    } finally {
      off();
    }
    expect(seen).toEqual([10_000, 2_000]);
    const delivery = await client.ok('get_media_buy_delivery', { media_buy_ids: [buy.media_buy_id], time_granularity: 'daily' });
    const d = (delivery.media_buy_deliveries as Record<string, unknown>[])[0];
    expect(d).toMatchObject({
      media_buy_id: buy.media_buy_id,
      status: 'active',
      totals: { impressions: 12_000, clicks: 25, spend: { amount: 525, currency: 'USD' } },
    });
    expect((d.by_package as Record<string, unknown>[])[0]).toMatchObject({
      product_id: 'ctv_sports_premium',
      impressions: 12_000,
      completion_rate: expect.any(Number),
    });
    expect(delivery.aggregated_totals).toEqual({ impressions: 12_000, clicks: 25, spend: { amount: 525, currency: 'USD' }, media_buy_count: 1 });
  });
});

describe('force_create_media_buy_arm and force_task_completion', () => {
  it('makes the next create of the account answer submitted, then completes the task', async () => {
    const account = freshAccount();
    const taskId = `task-${key()}`;
    const push = { url: 'https://buyer.example/hooks/async', operation_id: 'op-async' };
    expect(await control('force_create_media_buy_arm', { arm: 'submitted', task_id: taskId }, { ...account, sandbox: true })).toMatchObject({
      success: true,
      forced: { arm: 'submitted', task_id: taskId },
    });
    const args = createArgs({ account, push_notification_config: push, context: { c: 1 } });
    const submitted = await client.ok('create_media_buy', args);
    expect(submitted).toEqual({ status: 'submitted', task_id: taskId, message: expect.any(String), sandbox: true, context: { c: 1 } });
    expect(await client.ok('create_media_buy', args)).toMatchObject({ status: 'submitted', task_id: taskId, replayed: true });
    expect((await client.ok('create_media_buy', createArgs({ account }))).status).toBe('active'); // the arm is used up

    const changes: Record<string, unknown>[] = [];
    const off = seller.events.on('task.status_changed', (e) => changes.push({ ...e, at: undefined }));
    const result = { media_buy_id: 'mb_from_review', status: 'active', revision: 1 };
    try {
      expect(await control('force_task_completion', { task_id: taskId, result })).toMatchObject({
        success: true,
        previous_state: 'submitted',
        current_state: 'completed',
      });
      expect(await control('force_task_completion', { task_id: taskId, result })).toMatchObject({
        success: true,
        previous_state: 'completed',
        current_state: 'completed',
      });
      expect(await control('force_task_completion', { task_id: taskId, result: { other: true } })).toMatchObject({
        success: false,
        error: 'INVALID_TRANSITION',
      });
    } finally {
      off();
    }
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      previous_status: 'submitted',
      status: 'completed',
      task: { task_id: taskId, task_type: 'create_media_buy', push_notification_config: push, context: { c: 1 }, result },
    });
    expect(await control('force_task_completion', { task_id: 'task-unknown', result })).toMatchObject({ success: false, error: 'NOT_FOUND' });
  });

  it('answers submitted over A2A as a submitted task that tasks/get shows completed afterwards', async () => {
    const token = 'a2a-async-principal';
    const taskId = `task-${key()}`;
    const arm = await a2aSend(
      seller.a2aUrl,
      'comply_test_controller',
      { scenario: 'force_create_media_buy_arm', params: { arm: 'submitted', task_id: taskId }, account: { sandbox: true } },
      { authToken: token },
    );
    expect(arm.data).toMatchObject({ success: true });
    const sent = await a2aSend(seller.a2aUrl, 'create_media_buy', createArgs(), { authToken: token });
    expect(sent.state).toBe('submitted');
    expect(sent.data).toMatchObject({ status: 'submitted', task_id: taskId });
    const a2aTaskId = sent.task?.id as string;
    await a2aSend(
      seller.a2aUrl,
      'comply_test_controller',
      { scenario: 'force_task_completion', params: { task_id: taskId, result: { media_buy_id: 'mb_done' } }, account: { sandbox: true } },
      { authToken: token },
    );
    const polled = await a2aGetTask(seller.a2aUrl, a2aTaskId, token);
    expect(polled.state).toBe('completed');
    expect(polled.data).toEqual({ media_buy_id: 'mb_done' });
  });

  it('answers input-required and requires a task_id for submitted', async () => {
    expect(await control('force_create_media_buy_arm', { arm: 'submitted' })).toMatchObject({ success: false, error: 'INVALID_PARAMS' });
    const account = freshAccount();
    await control('force_create_media_buy_arm', { arm: 'input-required', message: 'need a PO number' }, { ...account, sandbox: true });
    const answer = await client.ok('create_media_buy', createArgs({ account }));
    expect(answer).toMatchObject({ status: 'input-required', task_id: expect.any(String), message: 'need a PO number' });
  });
});

describe('advance_clock', () => {
  it('moves the clock forward and reports the times; rejects non-positive amounts', async () => {
    const moved = await control('advance_clock', { seconds: 60 }, { ...freshAccount(), sandbox: true });
    expect(moved).toMatchObject({ success: true });
    expect(Date.parse(moved.current_state as string) - Date.parse(moved.previous_state as string)).toBe(60_000);
    expect(await control('advance_clock', { seconds: 0 })).toMatchObject({ success: false, error: 'INVALID_PARAMS' });
  });
});

describe('seeds and account states (the fixtures storyboards seed before they run)', () => {
  const seed = (scenario: string, params: Record<string, unknown>) => control(scenario, params);

  it('seeds a product and its pricing option, which get_products lists and create_media_buy can buy', async () => {
    const product_id = `seeded_${key().slice(0, 8)}`;
    const fixture = { delivery_type: 'guaranteed', channels: ['video'], format_ids: [{ id: 'video_30s' }] };
    expect(await seed('seed_product', { product_id, fixture })).toMatchObject({ success: true });
    expect(await seed('seed_product', { product_id, fixture })).toMatchObject({ success: true, previous_state: 'existing' });
    expect(await seed('seed_product', { product_id, fixture: { ...fixture, delivery_type: 'non_guaranteed' } })).toMatchObject({
      success: false,
      error: 'INVALID_PARAMS',
    });
    expect(await seed('seed_pricing_option', { product_id: 'nope', pricing_option_id: 'x', fixture: {} })).toMatchObject({
      success: false,
      error: 'NOT_FOUND',
    });
    const option = { pricing_model: 'cpm', currency: 'USD', fixed_price: 22 };
    expect(await seed('seed_pricing_option', { product_id, pricing_option_id: 'cpm_guaranteed', fixture: option })).toMatchObject({ success: true });
    const products = (await client.ok('get_products', { buying_mode: 'wholesale' })).products as { product_id: string; format_ids: unknown[] }[];
    const listed = products.find((p) => p.product_id === product_id);
    expect(listed?.format_ids).toEqual([{ agent_url: seller.baseUrl, id: 'video_30s' }]);
    const buy = await client.ok('create_media_buy', createArgs({ packages: [{ product_id, pricing_option_id: 'cpm_guaranteed', budget: 5000 }] }));
    expect(buy.media_buy_id).toEqual(expect.any(String));
  });

  it('seeds a media buy under the caller, readable by its id', async () => {
    const media_buy_id = `mb_seeded_${key().slice(0, 8)}`;
    expect(await seed('seed_media_buy', { media_buy_id, fixture: { status: 'paused', currency: 'USD' } })).toMatchObject({ success: true });
    expect(await statusOf(media_buy_id)).toBe('paused');
  });

  it('forces an account status, from the synced state, and NOT_FOUND for an unknown account', async () => {
    const synced = await client.ok('sync_accounts', { idempotency_key: key(), accounts: [{ ...freshAccount(), billing: 'operator', sandbox: true }] });
    const account_id = (synced.accounts as { account_id: string }[])[0].account_id;
    expect(await control('force_account_status', { account_id, status: 'suspended' })).toMatchObject({
      success: true,
      previous_state: 'active',
      current_state: 'suspended',
    });
    expect(await control('force_account_status', { account_id: 'acc_nope', status: 'active' })).toMatchObject({ success: false, error: 'NOT_FOUND' });
  });

  it('refuses an account synced without sandbox: true, named in params or as the call account (FORBIDDEN)', async () => {
    const synced = await client.ok('sync_accounts', { idempotency_key: key(), accounts: [{ ...freshAccount(), billing: 'operator' }] });
    const item = (synced.accounts as { account_id: string; sandbox: boolean }[])[0];
    expect(item.sandbox).toBe(false);
    expect(await control('force_account_status', { account_id: item.account_id, status: 'active' })).toMatchObject({ success: false, error: 'FORBIDDEN' });
    const call = await client.call('comply_test_controller', { scenario: 'list_scenarios', account: { account_id: item.account_id } });
    expect(call.payload).toMatchObject({ success: false, error: 'FORBIDDEN' });
  });

  it('purges a seeded creative, finds no session, and audits no provenance', async () => {
    const creative_id = `c-${key()}`;
    await control('seed_creative', { creative_id, fixture: { name: 'n' } });
    expect(await control('query_provenance_audit_observations', { creative_id })).toMatchObject({ success: true, observations: [] });
    expect(await control('force_creative_purge', { creative_id })).toMatchObject({ success: true, current_state: 'purged' });
    expect(await control('force_creative_purge', { creative_id })).toMatchObject({ success: false, error: 'NOT_FOUND' });
    expect(await control('force_session_status', { session_id: 's-x', status: 'terminated' })).toMatchObject({ success: false, error: 'NOT_FOUND' });
  });

  it('shapes the next get_products / get_signals of the account named submitted (force_get_*_arm)', async () => {
    const account = freshAccount();
    for (const [scenario, task, args] of [
      ['force_get_products_arm', 'get_products', { buying_mode: 'brief', brief: 'sports video' }],
      ['force_get_signals_arm', 'get_signals', { signal_spec: 'sports fans' }],
    ] as const) {
      const task_id = `task-${key()}`;
      expect(await control(scenario, { arm: 'submitted', task_id, message: 'm' }, { ...account, sandbox: true })).toMatchObject({
        success: true,
        forced: { arm: 'submitted', task_id },
      });
      // Another account's call is not shaped; the named account's next call is, once.
      expect((await client.call(task, { ...args, account: freshAccount() })).payload).not.toMatchObject({ status: 'submitted' });
      expect((await client.call(task, { ...args, account })).payload).toMatchObject({ status: 'submitted', task_id, message: 'm' });
      expect((await client.call(task, { ...args, account })).payload).not.toMatchObject({ status: 'submitted' });
      expect(await control(scenario, { arm: 'input-required' })).toMatchObject({ success: false, error: 'INVALID_PARAMS' });
      expect(await control(scenario, { arm: 'submitted' })).toMatchObject({ success: false, error: 'INVALID_PARAMS' });
    }
  });

  it('answers query_upstream_traffic with no recorded calls (the sandbox has no upstream)', async () => {
    const since_timestamp = isoIn(-1);
    expect(await control('query_upstream_traffic', { since_timestamp, endpoint_pattern: 'POST *', limit: 10, attestation_mode: 'digest' })).toMatchObject({
      success: true,
      recorded_calls: [],
      total_count: 0,
      truncated: false,
      since_timestamp,
    });
    expect(await control('query_upstream_traffic', { limit: 0 })).toMatchObject({ success: false, error: 'INVALID_PARAMS' });
  });

  it("sets a buy's spend to a share of its budget (simulate_budget_spend)", async () => {
    const buy = await client.ok('create_media_buy', createArgs());
    expect(await control('simulate_budget_spend', { media_buy_id: buy.media_buy_id, spend_percentage: 40 })).toMatchObject({
      success: true,
      simulated: { spend_percentage: 40 },
    });
    expect(await control('simulate_budget_spend', { spend_percentage: 40 })).toMatchObject({ success: false, error: 'INVALID_PARAMS' });
  });
});

describe('the controller request account by protocol line (digest 4.6: required from 3.1, absent from 3.0 calls)', () => {
  it('a seller that also speaks 3.0 takes a call without one; a 3.2-only seller refuses it', async () => {
    expect(
      await client.ok('comply_test_controller', { scenario: 'force_media_buy_status', params: { media_buy_id: 'mb_none', status: 'active' } }),
    ).toMatchObject({
      success: false,
      error: 'NOT_FOUND',
    });
    const strict = await startTestSeller({ protocolLine: '3.2' });
    try {
      const c = new McpTestClient(strict.mcpUrl);
      await c.initialize();
      expect(await c.ok('comply_test_controller', { scenario: 'list_scenarios' })).toMatchObject({ success: false, error: 'INVALID_PARAMS' });
    } finally {
      await strict.close();
    }
  });
});
