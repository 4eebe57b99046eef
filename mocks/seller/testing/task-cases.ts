/** Minimal valid arguments for every task of the mock seller, and the member each answer must carry (tasks.test.ts, released-schemas.test.ts). */
import { createArgs, freshAccount, key } from './seller-fixtures.js';

export function taskCases(baseUrl: string, buyId: string, token = 'proto'): [string, Record<string, unknown>, string][] {
  const account = freshAccount();
  const format = { agent_url: baseUrl, id: 'video_30s' };
  return [
    [`get_${token}_capabilities`, {}, token],
    ['get_products', { buying_mode: 'brief', brief: 'Video campaign for a sports drink', brand: { domain: 'example.com' } }, 'products'],
    ['list_creative_formats', { type: 'video' }, 'formats'],
    ['build_creative', { idempotency_key: key(), message: 'Summer sale', brand: { domain: 'example.com' }, target_format_ids: [format] }, 'creatives'],
    ['create_media_buy', createArgs(), 'media_buy_id'],
    ['update_media_buy', { idempotency_key: key(), media_buy_id: buyId, packages: [], budget: 6000 }, 'media_buy_id'],
    ['get_media_buys', { media_buy_ids: [buyId], include_webhook_activity: true }, 'media_buys'],
    ['get_media_buy_delivery', { media_buy_ids: [buyId], time_granularity: 'daily' }, 'aggregated_totals'],
    ['sync_accounts', { idempotency_key: key(), accounts: [{ ...account, billing: 'operator' }] }, 'accounts'],
    ['list_accounts', {}, 'accounts'],
    [
      'sync_creatives',
      {
        idempotency_key: key(),
        account,
        creatives: [
          {
            creative_id: 'cr-1',
            name: 'Spot',
            format_id: format,
            assets: { video: { asset_type: 'video', url: 'https://cdn.example/v.mp4', width: 1920, height: 1080, duration_ms: 30_000 } },
          },
        ],
      },
      'creatives',
    ],
    [
      'sync_audiences',
      { idempotency_key: key(), account, audiences: [{ audience_id: 'aud-1', name: 'Suppression', audience_type: 'suppression' }] },
      'audiences',
    ],
    [
      'sync_catalogs',
      {
        idempotency_key: key(),
        account,
        catalogs: [
          {
            catalog_id: 'cat-1',
            name: 'Feed',
            type: 'product',
            url: 'https://shop.example/feed.xml',
            feed_format: 'google_merchant',
            update_frequency: 'daily',
          },
        ],
      },
      'catalogs',
    ],
    ['get_signals', { signal_spec: 'sports fans on CTV' }, 'signals'],
    [
      'activate_signal',
      { idempotency_key: key(), signal_agent_segment_id: 'seg_sports_enthusiasts', destinations: [{ type: 'platform', platform: 'dsp-x' }] },
      'deployments',
    ],
    ['check_governance', { plan_id: 'plan-1', caller: 'https://buyer.example/mcp', tool: 'create_media_buy', payload: { budget: 5000 } }, 'status'],
    ['get_plan_audit_logs', { plan_id: 'plan-1' }, 'entries'],
    [
      'log_event',
      {
        idempotency_key: key(),
        event_source_id: 'web',
        events: [
          {
            event_id: 'ev-1',
            event_type: 'purchase',
            event_time: '2026-01-01T10:00:00Z',
            action_source: 'website',
            custom_data: { value: 42, currency: 'USD' },
          },
        ],
      },
      'events_received',
    ],
    [
      'provide_performance_feedback',
      {
        idempotency_key: key(),
        media_buy_id: buyId,
        measurement_period: { start: '2026-01-01T00:00:00Z', end: '2026-01-08T00:00:00Z' },
        performance_index: 1.1,
      },
      'success',
    ],
    ['get_brand_identity', { brand: { domain: 'acme-outdoor.example' } }, 'brand'],
    ['comply_test_controller', { scenario: 'list_scenarios', account: { sandbox: true } }, 'scenarios'],
  ];
}
