/**
 * Record schemas (interface spec 2, digest 3.6 errors): every constraint written in the
 * schemas has an invalid case derived from a valid sample, and spec-shaped values pass.
 */
import { describe, expect, it } from 'vitest';
import { createSchemaValidator } from './validator.js';
import { REMOVE, buildCase, chars, expectValid, expectViolation, type InvalidCase } from './testing/schema-fixtures.js';

const v = createSchemaValidator();

const cases: InvalidCase[] = [
  // format-id (spec 2.5)
  { why: 'agent_url required', base: 'format-id', edits: [['/agent_url', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'id required', base: 'format-id', edits: [['/id', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'agent_url string', base: 'format-id', edits: [['/agent_url', 7]], expect: { pointer: '/agent_url', keyword: 'type' } },
  { why: 'id string', base: 'format-id', edits: [['/id', 30]], expect: { pointer: '/id', keyword: 'type' } },
  // pricing-option (spec 2.5)
  { why: 'pricing_option_id required', base: 'pricing-option', edits: [['/pricing_option_id', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'pricing_option_id string', base: 'pricing-option', edits: [['/pricing_option_id', 1]], expect: { pointer: '/pricing_option_id', keyword: 'type' } },
  { why: 'pricing_model string', base: 'pricing-option', edits: [['/pricing_model', ['cpm']]], expect: { pointer: '/pricing_model', keyword: 'type' } },
  { why: 'currency string', base: 'pricing-option', edits: [['/currency', 840]], expect: { pointer: '/currency', keyword: 'type' } },
  { why: 'fixed_price number', base: 'pricing-option', edits: [['/fixed_price', '42.50']], expect: { pointer: '/fixed_price', keyword: 'type' } },
  { why: 'variant model string', base: 'pricing-option.variant', edits: [['/model', 1]], expect: { pointer: '/model', keyword: 'type' } },
  { why: 'variant price number', base: 'pricing-option.variant', edits: [['/price', '9.75']], expect: { pointer: '/price', keyword: 'type' } },
  // product (spec 2.5)
  { why: 'product_id required', base: 'product', edits: [['/product_id', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'name required', base: 'product', edits: [['/name', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'pricing_options required', base: 'product', edits: [['/pricing_options', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'product_id string', base: 'product', edits: [['/product_id', 12]], expect: { pointer: '/product_id', keyword: 'type' } },
  { why: 'name string', base: 'product', edits: [['/name', null]], expect: { pointer: '/name', keyword: 'type' } },
  { why: 'channels array', base: 'product', edits: [['/channels', 'audio']], expect: { pointer: '/channels', keyword: 'type' } },
  { why: 'channels items string', base: 'product', edits: [['/channels/0', 3]], expect: { pointer: '/channels/0', keyword: 'type' } },
  { why: 'pricing_options array', base: 'product', edits: [['/pricing_options', {}]], expect: { pointer: '/pricing_options', keyword: 'type' } },
  {
    why: 'pricing option items validated',
    base: 'product',
    edits: [['/pricing_options/0/pricing_option_id', REMOVE]],
    expect: { pointer: '/pricing_options/0', keyword: 'required' },
  },
  { why: 'delivery_type string', base: 'product', edits: [['/delivery_type', true]], expect: { pointer: '/delivery_type', keyword: 'type' } },
  { why: 'forecast object', base: 'product', edits: [['/forecast', 'high']], expect: { pointer: '/forecast', keyword: 'type' } },
  {
    why: 'forecast.impressions object',
    base: 'product',
    edits: [['/forecast/impressions', 600000]],
    expect: { pointer: '/forecast/impressions', keyword: 'type' },
  },
  {
    why: 'forecast.impressions.min number',
    base: 'product',
    edits: [['/forecast/impressions/min', '500000']],
    expect: { pointer: '/forecast/impressions/min', keyword: 'type' },
  },
  {
    why: 'forecast.impressions.max number',
    base: 'product',
    edits: [['/forecast/impressions/max', '750000']],
    expect: { pointer: '/forecast/impressions/max', keyword: 'type' },
  },
  {
    why: 'format_ids items are format references',
    base: 'product',
    edits: [['/format_ids/0/id', REMOVE]],
    expect: { pointer: '/format_ids/0', keyword: 'required' },
  },
  { why: 'sandbox boolean', base: 'product', edits: [['/sandbox', 'true']], expect: { pointer: '/sandbox', keyword: 'type' } },
  // media-buy-package (spec 2.4a)
  { why: 'package_id required', base: 'media-buy-package', edits: [['/package_id', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'package_id string', base: 'media-buy-package', edits: [['/package_id', 1]], expect: { pointer: '/package_id', keyword: 'type' } },
  { why: 'product_id string', base: 'media-buy-package', edits: [['/product_id', 1]], expect: { pointer: '/product_id', keyword: 'type' } },
  { why: 'budget number', base: 'media-buy-package', edits: [['/budget', '12000']], expect: { pointer: '/budget', keyword: 'type' } },
  {
    why: 'pricing_option_id string',
    base: 'media-buy-package',
    edits: [['/pricing_option_id', {}]],
    expect: { pointer: '/pricing_option_id', keyword: 'type' },
  },
  { why: 'paused boolean', base: 'media-buy-package', edits: [['/paused', 'no']], expect: { pointer: '/paused', keyword: 'type' } },
  // webhook-activity (spec 4.3)
  { why: 'status enum', base: 'webhook-activity', edits: [['/status', 'delivered']], expect: { pointer: '/status', keyword: 'enum' } },
  { why: 'idempotency_key string', base: 'webhook-activity', edits: [['/idempotency_key', 5]], expect: { pointer: '/idempotency_key', keyword: 'type' } },
  {
    why: 'http_status_code integer',
    base: 'webhook-activity',
    edits: [['/http_status_code', 200.5]],
    expect: { pointer: '/http_status_code', keyword: 'type' },
  },
  { why: 'attempt integer', base: 'webhook-activity', edits: [['/attempt', '3']], expect: { pointer: '/attempt', keyword: 'type' } },
  { why: 'error_message string', base: 'webhook-activity', edits: [['/error_message', 500]], expect: { pointer: '/error_message', keyword: 'type' } },
  // media-buy (spec 2.4a, 3.1; digest 4.1, 4.3, 4.5)
  { why: 'media_buy_id required', base: 'media-buy', edits: [['/media_buy_id', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  {
    why: 'status (or media_buy_status) required',
    base: 'media-buy',
    edits: [
      ['/status', REMOVE],
      ['/media_buy_status', REMOVE],
    ],
    expect: { pointer: '', keyword: 'required' },
  },
  { why: 'revision required', base: 'media-buy', edits: [['/revision', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'media_buy_id string', base: 'media-buy', edits: [['/media_buy_id', 77]], expect: { pointer: '/media_buy_id', keyword: 'type' } },
  {
    why: 'a task status is not a buy state',
    base: 'media-buy',
    edits: [
      ['/status', 'submitted'],
      ['/media_buy_status', REMOVE],
    ],
    expect: { pointer: '/status', keyword: 'enum' },
  },
  { why: 'media_buy_status enum', base: 'media-buy', edits: [['/media_buy_status', 'live']], expect: { pointer: '/media_buy_status', keyword: 'enum' } },
  { why: 'revision starts at 1', base: 'media-buy', edits: [['/revision', 0]], expect: { pointer: '/revision', keyword: 'minimum' } },
  { why: 'revision integer', base: 'media-buy', edits: [['/revision', 1.5]], expect: { pointer: '/revision', keyword: 'type' } },
  { why: 'revision not a string', base: 'media-buy', edits: [['/revision', '1']], expect: { pointer: '/revision', keyword: 'type' } },
  { why: 'packages items validated', base: 'media-buy', edits: [['/packages/0/budget', 'lots']], expect: { pointer: '/packages/0/budget', keyword: 'type' } },
  { why: 'packages array', base: 'media-buy', edits: [['/packages', {}]], expect: { pointer: '/packages', keyword: 'type' } },
  { why: 'valid_actions vocabulary', base: 'media-buy', edits: [['/valid_actions/0', 'delete']], expect: { pointer: '/valid_actions/0', keyword: 'enum' } },
  { why: 'valid_actions array', base: 'media-buy', edits: [['/valid_actions', 'pause']], expect: { pointer: '/valid_actions', keyword: 'type' } },
  { why: 'replayed boolean', base: 'media-buy', edits: [['/replayed', 'true']], expect: { pointer: '/replayed', keyword: 'type' } },
  { why: 'sandbox boolean', base: 'media-buy', edits: [['/sandbox', 1]], expect: { pointer: '/sandbox', keyword: 'type' } },
  {
    why: 'webhook_activity items validated',
    base: 'media-buy',
    edits: [['/webhook_activity', [{ status: 'ok' }]]],
    expect: { pointer: '/webhook_activity/0/status', keyword: 'enum' },
  },
  { why: 'impairments array', base: 'media-buy', edits: [['/impairments', {}]], expect: { pointer: '/impairments', keyword: 'type' } },
  { why: 'cancellation object', base: 'media-buy', edits: [['/cancellation', 'buyer']], expect: { pointer: '/cancellation', keyword: 'type' } },
  { why: 'context object', base: 'media-buy', edits: [['/context', 'abc']], expect: { pointer: '/context', keyword: 'type' } },
  {
    why: 'status and media_buy_status identical (digest 4.5)',
    base: 'media-buy',
    edits: [['/media_buy_status', 'active']],
    expect: { pointer: '/media_buy_status', keyword: 'crossField' },
  },
  // account-ref (spec 2.5a)
  { why: 'one of the two forms', base: 'account-ref', edits: [['/account_id', REMOVE]], expect: { pointer: '', keyword: 'oneOf' } },
  {
    why: 'not both forms',
    base: 'account-ref',
    edits: [
      ['/brand', { domain: 'acme-outdoor.example' }],
      ['/operator', 'pinnacle-media.example'],
    ],
    expect: { pointer: '', keyword: 'oneOf' },
  },
  { why: 'account_id string', base: 'account-ref', edits: [['/account_id', 1]], expect: { pointer: '/account_id', keyword: 'type' } },
  { why: 'brand.domain required', base: 'account-ref.brand', edits: [['/brand/domain', REMOVE]], expect: { pointer: '/brand', keyword: 'required' } },
  { why: 'operator string', base: 'account-ref.brand', edits: [['/operator', ['x']]], expect: { pointer: '/operator', keyword: 'type' } },
  // account (spec 2.6)
  { why: 'brand object', base: 'account', edits: [['/brand', 'acme-outdoor.example']], expect: { pointer: '/brand', keyword: 'type' } },
  { why: 'brand.domain string', base: 'account', edits: [['/brand/domain', 1]], expect: { pointer: '/brand/domain', keyword: 'type' } },
  { why: 'operator string', base: 'account', edits: [['/operator', 1]], expect: { pointer: '/operator', keyword: 'type' } },
  { why: 'billing string', base: 'account', edits: [['/billing', false]], expect: { pointer: '/billing', keyword: 'type' } },
  // creative (spec 2.6)
  { why: 'creative_id string', base: 'creative', edits: [['/creative_id', 1]], expect: { pointer: '/creative_id', keyword: 'type' } },
  { why: 'name string', base: 'creative', edits: [['/name', 1]], expect: { pointer: '/name', keyword: 'type' } },
  {
    why: 'format_id is a format reference',
    base: 'creative',
    edits: [['/format_id/agent_url', REMOVE]],
    expect: { pointer: '/format_id', keyword: 'required' },
  },
  { why: 'assets object keyed by name', base: 'creative', edits: [['/assets', []]], expect: { pointer: '/assets', keyword: 'type' } },
  { why: 'asset object', base: 'creative', edits: [['/assets/video', 'https://cdn.example/x.mp4']], expect: { pointer: '/assets/video', keyword: 'type' } },
  { why: 'asset_type string', base: 'creative', edits: [['/assets/video/asset_type', 1]], expect: { pointer: '/assets/video/asset_type', keyword: 'type' } },
  { why: 'url string', base: 'creative', edits: [['/assets/video/url', 1]], expect: { pointer: '/assets/video/url', keyword: 'type' } },
  { why: 'width number', base: 'creative', edits: [['/assets/video/width', '1920']], expect: { pointer: '/assets/video/width', keyword: 'type' } },
  { why: 'height number', base: 'creative', edits: [['/assets/video/height', '1080px']], expect: { pointer: '/assets/video/height', keyword: 'type' } },
  {
    why: 'duration_ms number',
    base: 'creative',
    edits: [['/assets/video/duration_ms', '30s']],
    expect: { pointer: '/assets/video/duration_ms', keyword: 'type' },
  },
  {
    why: 'pointer escaping of asset names (RFC 6901)',
    base: 'creative',
    edits: [['/assets/a~1b', { width: 'x' }]],
    expect: { pointer: '/assets/a~1b/width', keyword: 'type' },
  },
  // audience, catalog (spec 2.6)
  { why: 'audience_id string', base: 'audience', edits: [['/audience_id', 1]], expect: { pointer: '/audience_id', keyword: 'type' } },
  { why: 'name string', base: 'audience', edits: [['/name', 1]], expect: { pointer: '/name', keyword: 'type' } },
  { why: 'audience_type string', base: 'audience', edits: [['/audience_type', 1]], expect: { pointer: '/audience_type', keyword: 'type' } },
  { why: 'catalog_id string', base: 'catalog', edits: [['/catalog_id', 1]], expect: { pointer: '/catalog_id', keyword: 'type' } },
  { why: 'name string', base: 'catalog', edits: [['/name', 1]], expect: { pointer: '/name', keyword: 'type' } },
  { why: 'type string', base: 'catalog', edits: [['/type', 1]], expect: { pointer: '/type', keyword: 'type' } },
  { why: 'url string', base: 'catalog', edits: [['/url', 1]], expect: { pointer: '/url', keyword: 'type' } },
  { why: 'feed_format string', base: 'catalog', edits: [['/feed_format', 1]], expect: { pointer: '/feed_format', keyword: 'type' } },
  { why: 'update_frequency string', base: 'catalog', edits: [['/update_frequency', 24]], expect: { pointer: '/update_frequency', keyword: 'type' } },
  // marketing-event (spec 2.6)
  {
    why: 'event_time ISO 8601 date-time',
    base: 'marketing-event',
    edits: [['/event_time', 'yesterday']],
    expect: { pointer: '/event_time', keyword: 'format' },
  },
  { why: 'event_time needs a time', base: 'marketing-event', edits: [['/event_time', '2026-07-01']], expect: { pointer: '/event_time', keyword: 'format' } },
  { why: 'event_time string', base: 'marketing-event', edits: [['/event_time', 1751394125]], expect: { pointer: '/event_time', keyword: 'type' } },
  { why: 'event_id string', base: 'marketing-event', edits: [['/event_id', 1]], expect: { pointer: '/event_id', keyword: 'type' } },
  { why: 'event_type string', base: 'marketing-event', edits: [['/event_type', 1]], expect: { pointer: '/event_type', keyword: 'type' } },
  { why: 'action_source string', base: 'marketing-event', edits: [['/action_source', 1]], expect: { pointer: '/action_source', keyword: 'type' } },
  { why: 'custom_data object', base: 'marketing-event', edits: [['/custom_data', '149.99 USD']], expect: { pointer: '/custom_data', keyword: 'type' } },
  {
    why: 'custom_data.value number',
    base: 'marketing-event',
    edits: [['/custom_data/value', '149.99']],
    expect: { pointer: '/custom_data/value', keyword: 'type' },
  },
  {
    why: 'custom_data.currency string',
    base: 'marketing-event',
    edits: [['/custom_data/currency', 840]],
    expect: { pointer: '/custom_data/currency', keyword: 'type' },
  },
  // delivery-totals (spec 2.6)
  { why: 'impressions number', base: 'delivery-totals', edits: [['/impressions', '412500']], expect: { pointer: '/impressions', keyword: 'type' } },
  { why: 'clicks number', base: 'delivery-totals', edits: [['/clicks', '1320']], expect: { pointer: '/clicks', keyword: 'type' } },
  { why: 'spend {amount, currency}', base: 'delivery-totals', edits: [['/spend/currency', REMOVE]], expect: { pointer: '/spend', keyword: 'anyOf' } },
  { why: 'spend.amount number', base: 'delivery-totals', edits: [['/spend/amount', '17531.25']], expect: { pointer: '/spend/amount', keyword: 'type' } },
  { why: 'spend not a string', base: 'delivery-totals', edits: [['/spend', '17531.25 USD']], expect: { pointer: '/spend', keyword: 'anyOf' } },
  { why: 'by_package array', base: 'delivery-totals', edits: [['/by_package', {}]], expect: { pointer: '/by_package', keyword: 'type' } },
  {
    why: 'by_package impressions number',
    base: 'delivery-totals',
    edits: [['/by_package/0/impressions', 'many']],
    expect: { pointer: '/by_package/0/impressions', keyword: 'type' },
  },
  {
    why: 'by_package completion_rate number',
    base: 'delivery-totals',
    edits: [['/by_package/0/completion_rate', '93%']],
    expect: { pointer: '/by_package/0/completion_rate', keyword: 'type' },
  },
  {
    why: 'by_package product_id string',
    base: 'delivery-totals',
    edits: [['/by_package/0/product_id', 1]],
    expect: { pointer: '/by_package/0/product_id', keyword: 'type' },
  },
  // audit-entry (spec 2.6)
  { why: 'timestamp required', base: 'audit-entry', edits: [['/timestamp', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'actor required', base: 'audit-entry', edits: [['/actor', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'action required', base: 'audit-entry', edits: [['/action', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'timestamp string', base: 'audit-entry', edits: [['/timestamp', 1751295943]], expect: { pointer: '/timestamp', keyword: 'type' } },
  { why: 'actor string', base: 'audit-entry', edits: [['/actor', {}]], expect: { pointer: '/actor', keyword: 'type' } },
  { why: 'action string', base: 'audit-entry', edits: [['/action', 1]], expect: { pointer: '/action', keyword: 'type' } },
  { why: 'reason string', base: 'audit-entry', edits: [['/reason', 1]], expect: { pointer: '/reason', keyword: 'type' } },
  { why: 'conditions array', base: 'audit-entry', edits: [['/conditions', 'cap']], expect: { pointer: '/conditions', keyword: 'type' } },
  // error (spec 7; digest 3.6)
  { why: 'code required', base: 'error', edits: [['/code', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'message required', base: 'error', edits: [['/message', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'code at least 1 character', base: 'error', edits: [['/code', '']], expect: { pointer: '/code', keyword: 'minLength' } },
  { why: 'code at most 64 characters', base: 'error', edits: [['/code', chars(65, 'X')]], expect: { pointer: '/code', keyword: 'maxLength' } },
  { why: 'code string', base: 'error', edits: [['/code', 400]], expect: { pointer: '/code', keyword: 'type' } },
  { why: 'message string', base: 'error', edits: [['/message', { text: 'x' }]], expect: { pointer: '/message', keyword: 'type' } },
  { why: 'field string', base: 'error', edits: [['/field', ['packages', 0]]], expect: { pointer: '/field', keyword: 'type' } },
  { why: 'suggestion string', base: 'error', edits: [['/suggestion', 1]], expect: { pointer: '/suggestion', keyword: 'type' } },
  { why: 'retry_after at least 1', base: 'error.rate-limited', edits: [['/retry_after', 0]], expect: { pointer: '/retry_after', keyword: 'minimum' } },
  { why: 'retry_after at most 3600', base: 'error.rate-limited', edits: [['/retry_after', 3601]], expect: { pointer: '/retry_after', keyword: 'maximum' } },
  { why: 'retry_after integer', base: 'error.rate-limited', edits: [['/retry_after', 1.5]], expect: { pointer: '/retry_after', keyword: 'type' } },
  { why: 'issues array', base: 'error', edits: [['/issues', 'bad']], expect: { pointer: '/issues', keyword: 'type' } },
  { why: 'issue pointer required', base: 'error', edits: [['/issues/0/pointer', REMOVE]], expect: { pointer: '/issues/0', keyword: 'required' } },
  {
    why: 'issue pointer is RFC 6901',
    base: 'error',
    edits: [['/issues/0/pointer', 'packages/0']],
    expect: { pointer: '/issues/0/pointer', keyword: 'format' },
  },
  { why: 'recovery enum', base: 'error', edits: [['/recovery', 'retry']], expect: { pointer: '/recovery', keyword: 'enum' } },
  { why: 'source enum', base: 'error', edits: [['/source', 'server']], expect: { pointer: '/source', keyword: 'enum' } },
  { why: 'sdk_id string', base: 'error', edits: [['/sdk_id', 1]], expect: { pointer: '/sdk_id', keyword: 'type' } },
  // push-notification-config (spec 2.7)
  { why: 'url required', base: 'push-notification-config', edits: [['/url', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'url is a URL', base: 'push-notification-config', edits: [['/url', 'not a url']], expect: { pointer: '/url', keyword: 'format' } },
  { why: 'url is absolute', base: 'push-notification-config', edits: [['/url', '/webhooks/x']], expect: { pointer: '/url', keyword: 'format' } },
  { why: 'operation_id string', base: 'push-notification-config', edits: [['/operation_id', 42]], expect: { pointer: '/operation_id', keyword: 'type' } },
  { why: 'token string', base: 'push-notification-config', edits: [['/token', 42]], expect: { pointer: '/token', keyword: 'type' } },
  {
    why: 'authentication object',
    base: 'push-notification-config',
    edits: [['/authentication', 'HMAC-SHA256']],
    expect: { pointer: '/authentication', keyword: 'type' },
  },
  {
    why: 'authentication.schemes required',
    base: 'push-notification-config.legacy-hmac',
    edits: [['/authentication/schemes', REMOVE]],
    expect: { pointer: '/authentication', keyword: 'required' },
  },
  {
    why: 'schemes array',
    base: 'push-notification-config.legacy-hmac',
    edits: [['/authentication/schemes', 'HMAC-SHA256']],
    expect: { pointer: '/authentication/schemes', keyword: 'type' },
  },
  {
    why: 'credentials at least 32 characters',
    base: 'push-notification-config.legacy-hmac',
    edits: [['/authentication/credentials', chars(31)]],
    expect: { pointer: '/authentication/credentials', keyword: 'minLength' },
  },
];

describe('record schemas: one invalid case per constraint', () => {
  it.each(cases)('$base: $why', (c) => {
    const { schema, value } = buildCase(c);
    expectViolation(v.validate(schema, value), c.expect);
  });
});

describe('record schemas: spec-shaped values and boundaries pass', () => {
  it('an IDEMPOTENCY_CONFLICT-shaped error is still a valid error', () => {
    expectValid(v.validateError({ code: 'IDEMPOTENCY_CONFLICT', message: 'key reused with another payload', recovery: 'correctable' }));
    expectValid(v.validateError({ code: 'IDEMPOTENCY_CONFLICT', message: 'key reused with another payload' }));
  });

  it('error codes are an open vocabulary of 1 to 64 characters', () => {
    expectValid(v.validateError({ code: 'X', message: '' }));
    expectValid(v.validateError({ code: chars(64, 'E'), message: 'max length' }));
    expectValid(v.validateError({ code: 'webhook_signature_digest_mismatch', message: 'digest mismatch' }));
  });

  it('retry_after boundaries 1 and 3600 pass', () => {
    expectValid(v.validateError({ code: 'RATE_LIMITED', message: 'slow down', retry_after: 1 }));
    expectValid(v.validateError({ code: 'RATE_LIMITED', message: 'slow down', retry_after: 3600 }));
  });

  it('unknown members are allowed where the spec shows no closed shape', () => {
    expectValid(v.validate('product', { product_id: 'p', name: 'n', pricing_options: [], brand_safety: { tier: 2 } }));
    expectValid(v.validate('media-buy', { media_buy_id: 'mb', status: 'completed', revision: 9, confirmed_at: null, ext: {} }));
  });

  it('every media buy state of spec 3.1 / digest 4.1 is accepted', () => {
    for (const status of ['pending_creatives', 'pending_start', 'active', 'paused', 'completed', 'canceled', 'rejected']) {
      expectValid(v.validate('media-buy', { media_buy_id: 'mb', status, revision: 1 }));
    }
  });

  it('a spend given as a number (currency at the report level) is accepted', () => {
    expectValid(v.validate('delivery-totals', { impressions: 10, spend: 1.5 }));
  });

  it('a bearer registration with a 32-character credential passes', () => {
    expectValid(v.validate('push-notification-config', { url: 'https://b.example/h', authentication: { schemes: ['Bearer'], credentials: chars(32) } }));
  });

  it('a missing required member is reported once, at its parent, naming the member', () => {
    const verdict = v.validate('product', { name: 'n', pricing_options: [] });
    expect(verdict.errors).toEqual([
      { pointer: '', keyword: 'required', message: "must have required property 'product_id'", schemaPath: 'product.json#/required' },
    ]);
  });
});
