/**
 * Webhook envelopes (interface spec 6.1-6.3; digest 5.2), the async acknowledgement and
 * common task members, and the discovery declarations (spec 2.2, 2.3).
 */
import { describe, expect, it } from 'vitest';
import { loadSample } from './samples.js';
import { createSchemaValidator, detectWebhookFormat } from './validator.js';
import { REMOVE, applyEdits, buildCase, chars, expectValid, expectViolation, type InvalidCase } from './testing/schema-fixtures.js';

const v = createSchemaValidator();
const M = 'mcp-webhook-payload';
const D = 'mcp-webhook-payload.delivery';
const R = 'delivery-report-result';

const cases: InvalidCase[] = [
  // MCP envelope (spec 6.1; digest 5.2)
  ...(['idempotency_key', 'operation_id', 'task_id', 'task_type', 'status', 'timestamp'] as const).map(
    (m): InvalidCase => ({ why: `${m} required`, base: M, edits: [[`/${m}`, REMOVE]], expect: { pointer: '', keyword: 'required' } }),
  ),
  {
    why: 'idempotency_key at least 16 characters',
    base: M,
    edits: [['/idempotency_key', chars(15, 'k')]],
    expect: { pointer: '/idempotency_key', keyword: 'pattern' },
  },
  {
    why: 'idempotency_key at most 255 characters',
    base: M,
    edits: [['/idempotency_key', chars(256, 'k')]],
    expect: { pointer: '/idempotency_key', keyword: 'pattern' },
  },
  {
    why: 'idempotency_key character set',
    base: M,
    edits: [['/idempotency_key', 'key with spaces 0123456789']],
    expect: { pointer: '/idempotency_key', keyword: 'pattern' },
  },
  { why: 'idempotency_key string', base: M, edits: [['/idempotency_key', 1234567890123456]], expect: { pointer: '/idempotency_key', keyword: 'type' } },
  { why: 'status is a task status', base: M, edits: [['/status', 'done']], expect: { pointer: '/status', keyword: 'enum' } },
  { why: 'status is not a buy state', base: M, edits: [['/status', 'active']], expect: { pointer: '/status', keyword: 'enum' } },
  { why: 'timestamp date-time', base: M, edits: [['/timestamp', 'Wed, 01 Jul 2026 09:30:12 GMT']], expect: { pointer: '/timestamp', keyword: 'format' } },
  { why: 'timestamp carries a zone', base: M, edits: [['/timestamp', '2026-07-01T09:30:12']], expect: { pointer: '/timestamp', keyword: 'format' } },
  { why: 'timestamp string', base: M, edits: [['/timestamp', 1751362212]], expect: { pointer: '/timestamp', keyword: 'type' } },
  { why: 'operation_id string', base: M, edits: [['/operation_id', 7]], expect: { pointer: '/operation_id', keyword: 'type' } },
  { why: 'task_id string', base: M, edits: [['/task_id', 7]], expect: { pointer: '/task_id', keyword: 'type' } },
  { why: 'task_type string', base: M, edits: [['/task_type', ['create_media_buy']]], expect: { pointer: '/task_type', keyword: 'type' } },
  { why: 'domain string', base: M, edits: [['/domain', 1]], expect: { pointer: '/domain', keyword: 'type' } },
  { why: 'message string', base: M, edits: [['/message', {}]], expect: { pointer: '/message', keyword: 'type' } },
  { why: 'result object', base: M, edits: [['/result', 'ok']], expect: { pointer: '/result', keyword: 'type' } },
  { why: 'context object', base: M, edits: [['/context', 'c0ffee']], expect: { pointer: '/context', keyword: 'type' } },
  { why: 'notification_id string', base: M, edits: [['/notification_id', 3]], expect: { pointer: '/notification_id', keyword: 'type' } },
  {
    why: 'working percentage number',
    base: 'mcp-webhook-payload.working',
    edits: [['/result/percentage', '50%']],
    expect: { pointer: '/result/percentage', keyword: 'type' },
  },
  // delivery report inside the envelope (spec 6.3)
  { why: 'report envelope holds a result', base: D, edits: [['/result', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  {
    why: 'aggregated_totals never in a report webhook',
    base: D,
    edits: [['/result/aggregated_totals', { impressions: 1 }]],
    expect: { pointer: '/result/aggregated_totals', keyword: 'false schema' },
  },
  {
    why: 'no notification_id on delivery reports',
    base: D,
    edits: [['/notification_id', 'n-1']],
    expect: { pointer: '/notification_id', keyword: 'false schema' },
  },
  {
    why: 'report result validated',
    base: D,
    edits: [['/result/notification_type', 'hourly']],
    expect: { pointer: '/result/notification_type', keyword: 'enum' },
  },
  // delivery-report-result (spec 6.3)
  { why: 'notification_type required', base: R, edits: [['/notification_type', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'reporting_period required', base: R, edits: [['/reporting_period', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'media_buy_deliveries required', base: R, edits: [['/media_buy_deliveries', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'notification_type enum', base: R, edits: [['/notification_type', 'weekly']], expect: { pointer: '/notification_type', keyword: 'enum' } },
  { why: 'sequence_number integer', base: R, edits: [['/sequence_number', '31']], expect: { pointer: '/sequence_number', keyword: 'type' } },
  {
    why: 'reporting_period.start required',
    base: R,
    edits: [['/reporting_period/start', REMOVE]],
    expect: { pointer: '/reporting_period', keyword: 'required' },
  },
  {
    why: 'reporting_period.end ISO 8601 (a date or a date-time)',
    base: R,
    edits: [['/reporting_period/end', '08/01/2026']],
    expect: { pointer: '/reporting_period/end', keyword: 'format' },
  },
  { why: 'currency string', base: R, edits: [['/currency', 840]], expect: { pointer: '/currency', keyword: 'type' } },
  { why: 'media_buy_deliveries array', base: R, edits: [['/media_buy_deliveries', {}]], expect: { pointer: '/media_buy_deliveries', keyword: 'type' } },
  {
    why: 'delivery entry carries media_buy_id',
    base: R,
    edits: [['/media_buy_deliveries/0/media_buy_id', REMOVE]],
    expect: { pointer: '/media_buy_deliveries/0', keyword: 'required' },
  },
  {
    why: 'delivery entry status string',
    base: R,
    edits: [['/media_buy_deliveries/0/status', 3]],
    expect: { pointer: '/media_buy_deliveries/0/status', keyword: 'type' },
  },
  {
    why: 'totals.impressions number',
    base: R,
    edits: [['/media_buy_deliveries/0/totals/impressions', 'n/a']],
    expect: { pointer: '/media_buy_deliveries/0/totals/impressions', keyword: 'type' },
  },
  {
    why: 'by_package array',
    base: R,
    edits: [['/media_buy_deliveries/0/by_package', {}]],
    expect: { pointer: '/media_buy_deliveries/0/by_package', keyword: 'type' },
  },
  { why: 'aggregated_totals forbidden', base: R, edits: [['/aggregated_totals', {}]], expect: { pointer: '/aggregated_totals', keyword: 'false schema' } },
  // A2A envelope (spec 6.2)
  { why: 'status required', base: 'a2a-task', edits: [['/status', REMOVE]], expect: { pointer: '', keyword: 'required' } },
  { why: 'status object', base: 'a2a-task', edits: [['/status', 'completed']], expect: { pointer: '/status', keyword: 'type' } },
  { why: 'status.state required', base: 'a2a-task', edits: [['/status/state', REMOVE]], expect: { pointer: '/status', keyword: 'required' } },
  { why: 'id or taskId', base: 'a2a-task', edits: [['/id', REMOVE]], expect: { pointer: '', keyword: 'anyOf' } },
  { why: 'contextId string', base: 'a2a-task', edits: [['/contextId', 5]], expect: { pointer: '/contextId', keyword: 'type' } },
  { why: 'artifacts array', base: 'a2a-task', edits: [['/artifacts', {}]], expect: { pointer: '/artifacts', keyword: 'type' } },
  { why: 'artifactId string', base: 'a2a-task', edits: [['/artifacts/0/artifactId', 0]], expect: { pointer: '/artifacts/0/artifactId', keyword: 'type' } },
  {
    why: 'text part has text',
    base: 'a2a-task',
    edits: [['/artifacts/0/parts/0/text', REMOVE]],
    expect: { pointer: '/artifacts/0/parts/0', keyword: 'required' },
  },
  {
    why: 'data part data is an object',
    base: 'a2a-task',
    edits: [['/artifacts/0/parts/1/data', '{"media_buy_id":"x"}']],
    expect: { pointer: '/artifacts/0/parts/1/data', keyword: 'type' },
  },
  {
    why: 'status message parts validated',
    base: 'a2a-task.status-update',
    edits: [['/status/message/parts/0/data', REMOVE]],
    expect: { pointer: '/status/message/parts/0', keyword: 'required' },
  },
  { why: 'final boolean', base: 'a2a-task.status-update', edits: [['/final', 'no']], expect: { pointer: '/final', keyword: 'type' } },
  // async acknowledgement and common members
  { why: 'async status enum', base: 'async-task', edits: [['/status', 'completed']], expect: { pointer: '/status', keyword: 'enum' } },
  { why: 'submitted carries task_id', base: 'async-task', edits: [['/status', 'submitted']], expect: { pointer: '', keyword: 'required' } },
  { why: 'async task_id string', base: 'async-task', edits: [['/task_id', 1]], expect: { pointer: '/task_id', keyword: 'type' } },
  { why: 'async message string', base: 'async-task', edits: [['/message', 1]], expect: { pointer: '/message', keyword: 'type' } },
  { why: 'context object', base: 'task-common', edits: [['/context', []]], expect: { pointer: '/context', keyword: 'type' } },
  { why: 'sandbox boolean', base: 'task-common', edits: [['/sandbox', 'true']], expect: { pointer: '/sandbox', keyword: 'type' } },
  { why: 'replayed boolean', base: 'task-common', edits: [['/replayed', 0]], expect: { pointer: '/replayed', keyword: 'type' } },
  {
    why: 'errors are error objects',
    base: 'task-common',
    edits: [['/errors', [{ code: 'X', message: 1 }]]],
    expect: { pointer: '/errors/0/message', keyword: 'type' },
  },
  // brand declaration (spec 2.3)
  { why: '$schema is a URL', base: 'brand-declaration', edits: [['/$schema', 'brand schema v1']], expect: { pointer: '/$schema', keyword: 'format' } },
  { why: 'house object', base: 'brand-declaration', edits: [['/house', 'pinnacle-media.example']], expect: { pointer: '/house', keyword: 'type' } },
  { why: 'house.domain string', base: 'brand-declaration', edits: [['/house/domain', 1]], expect: { pointer: '/house/domain', keyword: 'type' } },
  { why: 'brands array', base: 'brand-declaration', edits: [['/brands', {}]], expect: { pointer: '/brands', keyword: 'type' } },
  { why: 'brand id string', base: 'brand-declaration', edits: [['/brands/0/id', 1]], expect: { pointer: '/brands/0/id', keyword: 'type' } },
  {
    why: 'names values are strings',
    base: 'brand-declaration',
    edits: [['/brands/0/names/0/en', ['Pinnacle']]],
    expect: { pointer: '/brands/0/names/0/en', keyword: 'type' },
  },
  {
    why: 'names array of objects',
    base: 'brand-declaration',
    edits: [['/brands/0/names', ['Pinnacle']]],
    expect: { pointer: '/brands/0/names/0', keyword: 'type' },
  },
  {
    why: 'identity_agent object',
    base: 'brand-declaration',
    edits: [['/brands/0/identity_agent', 'https://x.example']],
    expect: { pointer: '/brands/0/identity_agent', keyword: 'type' },
  },
  { why: 'agents array', base: 'brand-declaration', edits: [['/agents', {}]], expect: { pointer: '/agents', keyword: 'type' } },
  {
    why: 'jwks_uri is a URL',
    base: 'brand-declaration',
    edits: [['/agents/0/jwks_uri', 'keys/jwks.json']],
    expect: { pointer: '/agents/0/jwks_uri', keyword: 'format' },
  },
  { why: 'agent url string', base: 'brand-declaration', edits: [['/agents/0/url', 1]], expect: { pointer: '/agents/0/url', keyword: 'type' } },
  // publisher declaration (spec 2.2)
  { why: 'version string', base: 'publisher-declaration', edits: [['/version', 1]], expect: { pointer: '/version', keyword: 'type' } },
  { why: 'publisher object', base: 'publisher-declaration', edits: [['/publisher', 'StreamHaus']], expect: { pointer: '/publisher', keyword: 'type' } },
  {
    why: 'publisher.domain string',
    base: 'publisher-declaration',
    edits: [['/publisher/domain', 1]],
    expect: { pointer: '/publisher/domain', keyword: 'type' },
  },
  { why: 'publisher.name string', base: 'publisher-declaration', edits: [['/publisher/name', 1]], expect: { pointer: '/publisher/name', keyword: 'type' } },
  { why: 'agents array', base: 'publisher-declaration', edits: [['/agents', 'x']], expect: { pointer: '/agents', keyword: 'type' } },
  { why: 'agent url string', base: 'publisher-declaration', edits: [['/agents/0/url', 1]], expect: { pointer: '/agents/0/url', keyword: 'type' } },
  {
    why: 'agent protocol string',
    base: 'publisher-declaration',
    edits: [['/agents/0/protocol', 1]],
    expect: { pointer: '/agents/0/protocol', keyword: 'type' },
  },
  {
    why: 'capabilities array of task names',
    base: 'publisher-declaration',
    edits: [['/agents/0/capabilities', 'get_products']],
    expect: { pointer: '/agents/0/capabilities', keyword: 'type' },
  },
  {
    why: 'signing_keys entries objects',
    base: 'publisher-declaration',
    edits: [['/signing_keys/0', 'streamhaus-2026']],
    expect: { pointer: '/signing_keys/0', keyword: 'type' },
  },
];

describe('webhooks, declarations, shared pieces: one invalid case per constraint', () => {
  it.each(cases)('$base: $why', (c) => {
    const { schema, value } = buildCase(c);
    expectViolation(v.validate(schema, value), c.expect);
  });
});

describe('validateWebhookPayload', () => {
  it('detects the envelope per spec 6.2', () => {
    expect(detectWebhookFormat(loadSample(M))).toBe('mcp');
    expect(detectWebhookFormat(loadSample('a2a-task'))).toBe('a2a');
    expect(detectWebhookFormat(loadSample('a2a-task.status-update'))).toBe('a2a');
    expect(detectWebhookFormat(loadSample(R))).toBe('unknown');
    expect(detectWebhookFormat('x')).toBe('unknown');
    expect(detectWebhookFormat({ status: 'completed' })).toBe('unknown');
  });

  it('judges each envelope against its schema', () => {
    for (const [name, format, schemaName] of [
      [M, 'mcp', 'mcp-webhook-payload'],
      [D, 'mcp', 'mcp-webhook-payload'],
      ['mcp-webhook-payload.working', 'mcp', 'mcp-webhook-payload'],
      ['a2a-task', 'a2a', 'a2a-task'],
      ['a2a-task.status-update', 'a2a', 'a2a-task'],
    ] as const) {
      const verdict = v.validateWebhookPayload(loadSample(name));
      expect(verdict, name).toMatchObject({ valid: true, errors: [], format, schemaName });
    }
  });

  it('the bare report result is not a valid POST body (spec 6.3)', () => {
    const verdict = v.validateWebhookPayload(loadSample(R));
    expect(verdict.format).toBe('unknown');
    expectViolation(verdict, { pointer: '', keyword: 'required' });
  });

  it("a completed envelope's result is judged as the full task response, under /result", () => {
    const body = applyEdits(loadSample(M), [['/result/revision', REMOVE]]);
    const verdict = v.validateWebhookPayload(body);
    expect(verdict.format).toBe('mcp');
    expectViolation(verdict, { pointer: '/result', keyword: 'required' });
    expect(verdict.errors.every((e) => e.pointer.startsWith('/result'))).toBe(true);
  });

  it('a result of a task without a schema, or of a non-completed status, is only typed as an object', () => {
    expectValid(
      v.validateWebhookPayload(
        applyEdits(loadSample(M), [
          ['/task_type', 'acquire_rights'],
          ['/result', { anything: 1 }],
        ]),
      ),
    );
    expectValid(
      v.validateWebhookPayload(
        applyEdits(loadSample(M), [
          ['/status', 'failed'],
          ['/result', { code: 'X', message: 'y' }],
        ]),
      ),
    );
  });

  it('every task status of spec 3.2 is accepted in the envelope', () => {
    for (const status of ['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled', 'rejected']) {
      expectValid(
        v.validate(
          M,
          applyEdits(loadSample(M), [
            ['/status', status],
            ['/result', {}],
            ['/task_type', 'sync_creatives'],
          ]),
        ),
      );
    }
  });
});
