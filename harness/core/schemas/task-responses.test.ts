/**
 * Task response schemas (interface spec 4.3, 3.2; digest 3.5, 3.6, 4.6), judged through
 * validateTaskResponse exactly as the harness judges agents' replies.
 */
import { describe, expect, it } from 'vitest';
import { SPEC_TASKS as TASKS_OF_4_3 } from '../protocol/tasks.js';
import { DEFAULT_TOKEN, protocolIds } from '../token.js';
import { loadTaskSample } from './samples.js';
import { createSchemaValidator } from './validator.js';
import { REMOVE, applyEdits, buildCase, expectValid, expectViolation, type InvalidCase } from './testing/schema-fixtures.js';

const ids = protocolIds(DEFAULT_TOKEN);
const T = ids.token;
const v = createSchemaValidator({ token: T });

/** Every task of interface spec 4.3 plus the sandbox test controller (digest 4.6). */
const SPEC_TASKS = [...TASKS_OF_4_3, ids.capabilitiesTask, 'comply_test_controller'];

const ERR = { code: 'INVALID_REQUEST', message: 'bad input' };
const LOOSE = [
  'sync_accounts',
  'list_accounts',
  'list_creative_formats',
  'build_creative',
  'sync_creatives',
  'sync_audiences',
  'sync_catalogs',
  'get_signals',
  'activate_signal',
  'check_governance',
  'log_event',
  'provide_performance_feedback',
  'get_brand_identity',
];

const cases: InvalidCase[] = [
  // get_products (spec 4.3, 2.5)
  { why: 'products required', base: 'get_products-response', edits: [['/products', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'products array', base: 'get_products-response', edits: [['/products', { p: 1 }]], expect: { pointer: '/products', keyword: 'type' } },
  {
    why: 'product without pricing_options',
    base: 'get_products-response',
    edits: [['/products/0/pricing_options', REMOVE]],
    expect: { pointer: '/products/0', keyword: 'required' },
  },
  {
    why: 'forecast.impressions.min a string',
    base: 'get_products-response',
    edits: [['/products/0/forecast/impressions/min', '1800000']],
    expect: { pointer: '/products/0/forecast/impressions/min', keyword: 'type' },
  },
  { why: 'sandbox boolean', base: 'get_products-response', edits: [['/sandbox', 'yes']], expect: { pointer: '/sandbox', keyword: 'type' } },
  { why: 'context object', base: 'get_products-response', edits: [['/context', 'c0ffee']], expect: { pointer: '/context', keyword: 'type' } },
  { why: 'replayed boolean', base: 'get_products-response', edits: [['/replayed', 1]], expect: { pointer: '/replayed', keyword: 'type' } },
  {
    why: 'errors[] items are errors',
    base: 'get_products-response',
    edits: [['/errors', [{ code: 'X' }]]],
    expect: { pointer: '/errors/0', keyword: 'required' },
  },
  { why: 'errors array', base: 'get_products-response', edits: [['/errors', ERR]], expect: { pointer: '/errors', keyword: 'type' } },
  // create_media_buy (spec 4.3, 2.4a, 3.2)
  { why: 'media_buy_id required', base: 'create_media_buy-response', edits: [['/media_buy_id', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'status required', base: 'create_media_buy-response', edits: [['/status', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'revision required', base: 'create_media_buy-response', edits: [['/revision', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'revision starts at 1', base: 'create_media_buy-response', edits: [['/revision', 0]], expect: { pointer: '/revision', keyword: 'minimum' } },
  { why: 'status is a buy state', base: 'create_media_buy-response', edits: [['/status', 'failed']], expect: { pointer: '/status', keyword: 'enum' } },
  {
    why: 'packages items validated',
    base: 'create_media_buy-response',
    edits: [['/packages/1/package_id', REMOVE]],
    expect: { pointer: '/packages/1', keyword: 'required' },
  },
  {
    why: 'valid_actions vocabulary',
    base: 'create_media_buy-response',
    edits: [['/valid_actions/0', 'halt']],
    expect: { pointer: '/valid_actions/0', keyword: 'enum' },
  },
  { why: 'replayed boolean', base: 'create_media_buy-response.replayed', edits: [['/replayed', 'true']], expect: { pointer: '/replayed', keyword: 'type' } },
  { why: 'context object', base: 'create_media_buy-response', edits: [['/context', ['x']]], expect: { pointer: '/context', keyword: 'type' } },
  {
    why: 'status/media_buy_status agree',
    base: 'create_media_buy-response',
    edits: [['/media_buy_status', 'paused']],
    expect: { pointer: '/media_buy_status', keyword: 'crossField' },
  },
  {
    why: 'async submitted carries task_id',
    base: 'create_media_buy-response.async',
    edits: [['/task_id', REMOVE]],
    expect: { pointer: '', keyword: 'required' },
  },
  {
    why: 'async working carries task_id',
    base: 'create_media_buy-response.async',
    edits: [
      ['/status', 'working'],
      ['/task_id', REMOVE],
    ],
    expect: { pointer: '', keyword: 'required' },
  },
  { why: 'async task_id string', base: 'create_media_buy-response.async', edits: [['/task_id', 12345]], expect: { pointer: '/task_id', keyword: 'type' } },
  {
    why: 'async message string',
    base: 'create_media_buy-response.async',
    edits: [['/message', { text: 'queued' }]],
    expect: { pointer: '/message', keyword: 'type' },
  },
  { why: 'async sandbox boolean', base: 'create_media_buy-response.async', edits: [['/sandbox', 'true']], expect: { pointer: '/sandbox', keyword: 'type' } },
  // update_media_buy
  { why: 'media_buy_id required', base: 'update_media_buy-response', edits: [['/media_buy_id', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'revision integer', base: 'update_media_buy-response', edits: [['/revision', 2.5]], expect: { pointer: '/revision', keyword: 'type' } },
  { why: 'status enum', base: 'update_media_buy-response', edits: [['/status', 'working_on_it']], expect: { pointer: '/status', keyword: 'enum' } },
  // get_media_buys (spec 4.3; digest 4.5)
  { why: 'media_buys required', base: 'get_media_buys-response', edits: [['/media_buys', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'media_buys array', base: 'get_media_buys-response', edits: [['/media_buys', {}]], expect: { pointer: '/media_buys', keyword: 'type' } },
  {
    why: 'each buy carries revision',
    base: 'get_media_buys-response',
    edits: [['/media_buys/1/revision', REMOVE]],
    expect: { pointer: '/media_buys/1', keyword: 'required' },
  },
  {
    why: 'each buy carries status',
    base: 'get_media_buys-response',
    edits: [['/media_buys/0/status', REMOVE]],
    expect: { pointer: '/media_buys/0', keyword: 'required' },
  },
  {
    why: 'webhook_activity status enum',
    base: 'get_media_buys-response',
    edits: [['/media_buys/0/webhook_activity/1/status', 'error']],
    expect: { pointer: '/media_buys/0/webhook_activity/1/status', keyword: 'enum' },
  },
  {
    why: 'status/media_buy_status agree in lists',
    base: 'get_media_buys-response',
    edits: [['/media_buys/1/media_buy_status', 'active']],
    expect: { pointer: '/media_buys/1/media_buy_status', keyword: 'crossField' },
  },
  // get_media_buy_delivery (spec 4.3, 2.6, 6.3)
  {
    why: 'delivery data present',
    base: 'get_media_buy_delivery-response',
    edits: [
      ['/impressions', REMOVE],
      ['/spend', REMOVE],
      ['/aggregated_totals', REMOVE],
      ['/media_buy_deliveries', REMOVE],
    ],
    expect: { pointer: '', keyword: 'anyOf' },
  },
  {
    why: 'reporting_period.start date-time',
    base: 'get_media_buy_delivery-response',
    edits: [['/reporting_period/start', '07/01/2026']],
    expect: { pointer: '/reporting_period/start', keyword: 'format' },
  },
  {
    why: 'reporting_period.end required',
    base: 'get_media_buy_delivery-response',
    edits: [['/reporting_period/end', REMOVE]],
    expect: { pointer: '/reporting_period', keyword: 'required' },
  },
  { why: 'currency string', base: 'get_media_buy_delivery-response', edits: [['/currency', 840]], expect: { pointer: '/currency', keyword: 'type' } },
  {
    why: 'top-level impressions number',
    base: 'get_media_buy_delivery-response',
    edits: [['/impressions', '412500']],
    expect: { pointer: '/impressions', keyword: 'type' },
  },
  {
    why: 'aggregated_totals are delivery totals',
    base: 'get_media_buy_delivery-response',
    edits: [['/aggregated_totals/clicks', 'n/a']],
    expect: { pointer: '/aggregated_totals/clicks', keyword: 'type' },
  },
  {
    why: 'media_buy_deliveries entries carry media_buy_id',
    base: 'get_media_buy_delivery-response',
    edits: [['/media_buy_deliveries/0/media_buy_id', REMOVE]],
    expect: { pointer: '/media_buy_deliveries/0', keyword: 'required' },
  },
  {
    why: 'media_buy_deliveries totals typed',
    base: 'get_media_buy_delivery-response',
    edits: [['/media_buy_deliveries/0/totals/impressions', 'lots']],
    expect: { pointer: '/media_buy_deliveries/0/totals/impressions', keyword: 'type' },
  },
  {
    why: 'by_package completion_rate number',
    base: 'get_media_buy_delivery-response',
    edits: [['/by_package/0/completion_rate', 'high']],
    expect: { pointer: '/by_package/0/completion_rate', keyword: 'type' },
  },
  // get_plan_audit_logs (spec 4.3, 2.6)
  { why: 'entries required', base: 'get_plan_audit_logs-response', edits: [['/entries', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  {
    why: 'entries carry actor',
    base: 'get_plan_audit_logs-response',
    edits: [['/entries/1/actor', REMOVE]],
    expect: { pointer: '/entries/1', keyword: 'required' },
  },
  // loosely shaped tasks: their typed lists
  { why: 'accounts array', base: 'sync_accounts-response', edits: [['/accounts', 'acct_acme_01']], expect: { pointer: '/accounts', keyword: 'type' } },
  {
    why: 'accounts items objects',
    base: 'list_accounts-response',
    edits: [['/accounts/0', 'acct_acme_01']],
    expect: { pointer: '/accounts/0', keyword: 'type' },
  },
  { why: 'formats array', base: 'list_creative_formats-response', edits: [['/formats', {}]], expect: { pointer: '/formats', keyword: 'type' } },
  {
    why: 'format_id is a format reference',
    base: 'list_creative_formats-response',
    edits: [['/formats/0/format_id/agent_url', REMOVE]],
    expect: { pointer: '/formats/0/format_id', keyword: 'required' },
  },
  {
    why: 'format name string',
    base: 'list_creative_formats-response',
    edits: [['/formats/0/name', 30]],
    expect: { pointer: '/formats/0/name', keyword: 'type' },
  },
  {
    why: 'creative_id string',
    base: 'sync_creatives-response',
    edits: [['/creatives/0/creative_id', 1]],
    expect: { pointer: '/creatives/0/creative_id', keyword: 'type' },
  },
  {
    why: 'audience_id string',
    base: 'sync_audiences-response',
    edits: [['/audiences/0/audience_id', 1]],
    expect: { pointer: '/audiences/0/audience_id', keyword: 'type' },
  },
  {
    why: 'catalog_id string',
    base: 'sync_catalogs-response',
    edits: [['/catalogs/0/catalog_id', 1]],
    expect: { pointer: '/catalogs/0/catalog_id', keyword: 'type' },
  },
  { why: 'signals array', base: 'get_signals-response', edits: [['/signals', {}]], expect: { pointer: '/signals', keyword: 'type' } },
  {
    why: 'signal_agent_segment_id string',
    base: 'get_signals-response',
    edits: [['/signals/0/signal_agent_segment_id', 7]],
    expect: { pointer: '/signals/0/signal_agent_segment_id', keyword: 'type' },
  },
  // comply_test_controller (digest 4.6)
  {
    why: 'ControllerError.error enum',
    base: 'comply_test_controller-response.error',
    edits: [['/error', 'OOPS']],
    expect: { pointer: '/error', keyword: 'enum' },
  },
  {
    why: 'ControllerError.error required',
    base: 'comply_test_controller-response.error',
    edits: [['/error', REMOVE]],
    expect: { pointer: '', keyword: 'required' },
  },
  {
    why: 'error_detail string',
    base: 'comply_test_controller-response.error',
    edits: [['/error_detail', 1]],
    expect: { pointer: '/error_detail', keyword: 'type' },
  },
  { why: 'success is a boolean', base: 'comply_test_controller-response', edits: [['/success', 'yes']], expect: { pointer: '/success', keyword: 'const' } },
  { why: 'a success says so', base: 'comply_test_controller-response', edits: [['/success', REMOVE]], expect: { pointer: '', keyword: 'anyOf' } },
  {
    why: 'previous_state string',
    base: 'comply_test_controller-response',
    edits: [['/previous_state', 1]],
    expect: { pointer: '/previous_state', keyword: 'type' },
  },
  {
    why: 'current_state string',
    base: 'comply_test_controller-response',
    edits: [['/current_state', null]],
    expect: { pointer: '/current_state', keyword: 'type' },
  },
  {
    why: 'scenarios array of strings',
    base: 'comply_test_controller-response.list',
    edits: [['/scenarios/0', 1]],
    expect: { pointer: '/scenarios/0', keyword: 'type' },
  },
  {
    why: 'forced carries arm',
    base: 'comply_test_controller-response',
    edits: [['/forced', { task_id: 't1' }]],
    expect: { pointer: '/forced', keyword: 'required' },
  },
  { why: 'total_count integer', base: 'comply_test_controller-response', edits: [['/total_count', 1.5]], expect: { pointer: '/total_count', keyword: 'type' } },
  { why: 'truncated boolean', base: 'comply_test_controller-response', edits: [['/truncated', 'no']], expect: { pointer: '/truncated', keyword: 'type' } },
];

function validateCase(c: InvalidCase) {
  const { schema, value } = buildCase(c);
  const task = schema === 'capabilities' ? ids.capabilitiesTask : schema.replace(/-response$/, '');
  return v.validateTaskResponse(task, value);
}

describe('task responses: one invalid case per constraint', () => {
  it.each(cases)('$base: $why', (c) => expectViolation(validateCase(c), c.expect));
});

describe('task responses: coverage and shared rules', () => {
  it('every task of spec 4.3 (and the test controller) has a response schema and a valid sample', () => {
    for (const task of SPEC_TASKS) {
      expect(v.hasTaskSchema(task), task).toBe(true);
      expectValid(v.validateTaskResponse(task, loadTaskSample(task, { token: T })));
    }
    expect(v.taskNames()).toEqual([...SPEC_TASKS].sort());
  });

  it.each(SPEC_TASKS.filter((t) => t !== ids.capabilitiesTask && t !== 'comply_test_controller'))(
    '%s: an asynchronous acknowledgement is judged as one (spec 3.2)',
    (task) => {
      expectValid(v.validateTaskResponse(task, { status: 'submitted', task_id: 'task_1', sandbox: true }));
      expectValid(v.validateTaskResponse(task, { status: 'input-required', message: 'approve the brief' }));
      expectViolation(v.validateTaskResponse(task, { status: 'working' }), { pointer: '', keyword: 'required' });
    },
  );

  it.each(SPEC_TASKS.filter((t) => t !== ids.capabilitiesTask && t !== 'comply_test_controller'))(
    '%s: an errors[] payload is judged by the error schema (digest 3.6)',
    (task) => {
      expectValid(v.validateTaskResponse(task, { errors: [ERR], context: { k: 1 } }));
      expectViolation(v.validateTaskResponse(task, { errors: [{ message: 'no code' }] }), { pointer: '/errors/0', keyword: 'required' });
    },
  );

  it.each(LOOSE)('%s: common members are typed (context object, sandbox boolean)', (task) => {
    const sample = loadTaskSample(task, { token: T });
    expectViolation(v.validateTaskResponse(task, applyEdits(sample, [['/context', 'x']])), { pointer: '/context', keyword: 'type' });
    expectViolation(v.validateTaskResponse(task, applyEdits(sample, [['/sandbox', 'true']])), { pointer: '/sandbox', keyword: 'type' });
  });

  it('a reply that is not an object fails with a type error at the root', () => {
    for (const payload of ['ok', 42, null, [], true]) {
      expectViolation(v.validateTaskResponse('get_products', payload), { pointer: '', keyword: 'type' });
    }
  });

  it('the two faults of the mock profile product-schema-invalid are both reported', () => {
    const payload = applyEdits(loadTaskSample('get_products'), [
      ['/products/0/pricing_options', REMOVE],
      ['/products/0/forecast/impressions/min', 'many'],
    ]);
    const verdict = v.validateTaskResponse('get_products', payload);
    expect(verdict.errors).toEqual([
      expect.objectContaining({ pointer: '/products/0', keyword: 'required', schemaPath: 'product.json#/required' }),
      expect.objectContaining({
        pointer: '/products/0/forecast/impressions/min',
        keyword: 'type',
        schemaPath: 'product.json#/properties/forecast/properties/impressions/properties/min/type',
      }),
    ]);
  });

  it('get_media_buy_delivery accepts each placement of the totals', () => {
    const task = 'get_media_buy_delivery';
    expectValid(v.validateTaskResponse(task, { media_buy_deliveries: [{ media_buy_id: 'mb', totals: { impressions: 1 } }] }));
    expectValid(v.validateTaskResponse(task, { aggregated_totals: { impressions: 1, spend: 2.5 } }));
    expectValid(v.validateTaskResponse(task, { impressions: 1, clicks: 0, spend: { amount: 0.1, currency: 'EUR' } }));
  });

  it('input-required without task_id is accepted (digest 4.6 force_create_media_buy_arm)', () => {
    expectValid(v.validateTaskResponse('create_media_buy', { status: 'input-required', message: 'need approval' }));
  });

  it('a controller upstream-traffic answer without success is recognised (digest 4.6)', () => {
    expectValid(v.validateTaskResponse('comply_test_controller', { recorded_calls: [], total_count: 0, since_timestamp: '2026-07-01T00:00:00Z' }));
    expectValid(v.validateTaskResponse('comply_test_controller', { success: true, forced: { arm: 'submitted', task_id: 't1' } }));
    expectValid(v.validateTaskResponse('comply_test_controller', { success: true, previous_state: 'existing', current_state: 'existing' }));
  });
});
