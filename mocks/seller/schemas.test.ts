/**
 * Agreement between the mock seller and the project's JSON Schemas (fixtures/schemas, validated
 * with harness/core/schemas/validator.ts): every kind of reply the seller produces must be valid, for
 * the default token and for another one.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSchemaValidator, type SchemaValidator } from '../../harness/core/schemas/validator.js';
import type { RunningMockSeller } from './index.js';
import { McpTestClient, a2aSend } from './testing/wire-client.js';
import { createArgs, freshAccount, isoIn, key, startTestSeller } from './testing/seller-fixtures.js';

const root = process.cwd();

function validatorFor(token: string): SchemaValidator {
  return createSchemaValidator({ token, schemaDir: join(root, 'fixtures/schemas') });
}

function expectValid(v: SchemaValidator, task: string, payload: unknown): void {
  const verdict = v.validateTaskResponse(task, payload);
  expect(verdict.errors, `${task}: ${JSON.stringify(payload).slice(0, 400)}`).toEqual([]);
}

describe('replies validate against fixtures/schemas', () => {
  for (const token of ['proto', 'adcp']) {
    describe(`token ${token}`, () => {
      let seller: RunningMockSeller;
      let client: McpTestClient;
      let v: SchemaValidator;
      beforeAll(async () => {
        v = validatorFor(token);
        seller = await startTestSeller({ token });
        client = new McpTestClient(seller.mcpUrl);
        await client.initialize();
      });
      afterAll(() => seller.close());

      it('every task of the seller has a response schema', () => {
        const listed = v.taskNames();
        expect(listed).toContain(`get_${token}_capabilities`);
        for (const t of ['get_products', 'create_media_buy', 'update_media_buy', 'get_media_buys', 'comply_test_controller']) expect(listed).toContain(t);
      });

      it('success replies of every task', async () => {
        const account = freshAccount();
        const format = { agent_url: seller.baseUrl, id: 'video_30s' };
        const buy = await client.ok('create_media_buy', createArgs({ account, context: { a: 1 } }));
        expectValid(v, 'create_media_buy', buy);
        const id = buy.media_buy_id;
        await client.ok('comply_test_controller', {
          scenario: 'simulate_delivery',
          params: { media_buy_id: id, impressions: 1_000, clicks: 3 },
          account: { sandbox: true },
        });
        const calls: [string, Record<string, unknown>][] = [
          [`get_${token}_capabilities`, {}],
          ['get_products', { buying_mode: 'brief', brief: 'Video campaign for a sports drink', brand: { domain: 'example.com' } }],
          ['list_creative_formats', { type: 'video' }],
          ['build_creative', { idempotency_key: key(), message: 'hello', brand: { domain: 'example.com' }, target_format_ids: [format] }],
          ['update_media_buy', { idempotency_key: key(), media_buy_id: id, paused: true }],
          ['get_media_buys', { include_webhook_activity: true }],
          ['get_media_buy_delivery', { media_buy_ids: [id], time_granularity: 'daily' }],
          ['sync_accounts', { idempotency_key: key(), accounts: [{ ...account, billing: 'operator' }] }],
          ['list_accounts', {}],
          [
            'sync_creatives',
            {
              idempotency_key: key(),
              account,
              creatives: [{ creative_id: 'c1', name: 'n', format_id: format, assets: { video: { asset_type: 'video', url: 'https://cdn.example/v.mp4' } } }],
            },
          ],
          ['sync_audiences', { idempotency_key: key(), account, audiences: [{ audience_id: 'a1', name: 'n', audience_type: 'suppression' }] }],
          [
            'sync_catalogs',
            { idempotency_key: key(), account, catalogs: [{ catalog_id: 'k1', name: 'n', type: 'product', url: 'https://shop.example/feed.xml' }] },
          ],
          ['get_signals', { signal_spec: 'In-market auto intenders in the United States' }],
          ['activate_signal', { idempotency_key: key(), signal_agent_segment_id: 'seg_new_parents', destinations: [{ type: 'platform', platform: 'dsp' }] }],
          ['check_governance', { plan_id: 'p1', caller: 'https://buyer.example/mcp', tool: 'create_media_buy', payload: { budget: 400_000 } }],
          ['get_plan_audit_logs', { plan_id: 'p1' }],
          [
            'log_event',
            { idempotency_key: key(), event_source_id: 'web', events: [{ event_id: 'e1', event_type: 'purchase', event_time: '2026-01-01T00:00:00Z' }] },
          ],
          [
            'provide_performance_feedback',
            {
              idempotency_key: key(),
              media_buy_id: id,
              measurement_period: { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z' },
              performance_index: 0.9,
            },
          ],
          ['get_brand_identity', { brand: { domain: 'example.com' } }],
          ['update_media_buy', { idempotency_key: key(), media_buy_id: id, canceled: true, cancellation_reason: 'done' }],
        ];
        for (const [task, args] of calls) expectValid(v, task, await client.ok(task, { ...args, context: { k: task } }));
      });

      it('replays, async answers and pending buys', async () => {
        const args = createArgs();
        await client.ok('create_media_buy', args);
        expectValid(v, 'create_media_buy', await client.ok('create_media_buy', args));
        expectValid(v, 'create_media_buy', await client.ok('create_media_buy', createArgs({ start_time: isoIn(5), paused: true })));
        const account = freshAccount();
        await client.ok('comply_test_controller', {
          scenario: 'force_create_media_buy_arm',
          params: { arm: 'submitted', task_id: `t-${key()}` },
          account: { ...account, sandbox: true },
        });
        expectValid(v, 'create_media_buy', await client.ok('create_media_buy', createArgs({ account })));
        await client.ok('comply_test_controller', {
          scenario: 'force_create_media_buy_arm',
          params: { arm: 'input-required' },
          account: { ...account, sandbox: true },
        });
        expectValid(v, 'create_media_buy', await client.ok('create_media_buy', createArgs({ account })));
      });

      it('every controller answer shape', async () => {
        const buy = await client.ok('create_media_buy', createArgs());
        const id = buy.media_buy_id;
        const scenarios: Record<string, unknown>[] = [
          { scenario: 'list_scenarios' },
          { scenario: 'force_media_buy_status', params: { media_buy_id: id, status: 'paused' } },
          { scenario: 'force_media_buy_status', params: { media_buy_id: id, status: 'rejected' } },
          { scenario: 'force_media_buy_status', params: { media_buy_id: 'missing', status: 'active' } },
          { scenario: 'simulate_delivery', params: { media_buy_id: id, impressions: 5 } },
          { scenario: 'force_task_completion', params: { task_id: 'missing', result: {} } },
          { scenario: 'advance_clock', params: { seconds: 1 } },
          { scenario: 'advance_clock', params: { seconds: -1 } },
          { scenario: 'no_such_scenario' },
        ];
        for (const s of scenarios) expectValid(v, 'comply_test_controller', await client.ok('comply_test_controller', { ...s, account: { sandbox: true } }));
        expectValid(v, 'comply_test_controller', await client.ok('comply_test_controller', { scenario: 'list_scenarios', account: { account_id: 'x' } }));
        const armed = {
          scenario: 'force_create_media_buy_arm',
          params: { arm: 'submitted', task_id: `t-${key()}` },
          account: { ...freshAccount(), sandbox: true },
        };
        expectValid(v, 'comply_test_controller', await client.ok('comply_test_controller', armed));
      });

      it('error objects (interface spec 7, digest 3.6)', async () => {
        const args = createArgs();
        const created = await client.ok('create_media_buy', args);
        const errors = [
          await client.err('no_such_task'),
          await client.err('create_media_buy', { ...args, packages: [] }),
          await client.err('create_media_buy', { ...args, end_time: isoIn(99) }),
          await client.err('update_media_buy', { idempotency_key: key(), media_buy_id: 'missing', paused: true }),
          await client.err('update_media_buy', { idempotency_key: key(), media_buy_id: created.media_buy_id, paused: false }),
          await client.err('update_media_buy', { idempotency_key: key(), media_buy_id: created.media_buy_id, paused: true, revision: 7 }),
        ];
        expect(
          errors.map((e) => e.code),
          JSON.stringify(errors),
        ).toEqual(['INVALID_REQUEST', 'INVALID_REQUEST', 'IDEMPOTENCY_CONFLICT', 'MEDIA_BUY_NOT_FOUND', 'ACTION_NOT_ALLOWED', 'CONFLICT']);
        for (const e of errors) expect(v.validateError(e).errors, JSON.stringify(e)).toEqual([]);
        const a2aError = await a2aSend(seller.a2aUrl, 'no_such_task', {});
        expect(v.validateError(a2aError.data?.[`${token}_error`]).errors).toEqual([]);
      });
    });
  }
});
