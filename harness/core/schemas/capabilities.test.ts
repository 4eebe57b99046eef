/**
 * The capability declaration (get_<token>_capabilities; digest 1.15, 3.5, 4.6), whose schema
 * depends on the protocol token. Run for the default token and for the public vectors' token.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN, protocolIds } from '../token.js';
import { loadSample } from './samples.js';
import { createSchemaValidator } from './validator.js';
import { REMOVE, buildCase, expectValid, expectViolation, type InvalidCase } from './testing/schema-fixtures.js';

const TOKENS = [DEFAULT_TOKEN, 'adcp'] as const;

function casesFor(token: string): InvalidCase[] {
  const I = `/${token}/idempotency`;
  const base = 'capabilities';
  return [
    { why: 'idempotency declared somewhere (digest 3.2 rule 7)', base, edits: [[`/${token}`, REMOVE]], expect: { pointer: '', keyword: 'anyOf' } },
    { why: 'token member holds idempotency', base, edits: [[I, REMOVE]], expect: { pointer: `/${token}`, keyword: 'required' } },
    { why: 'token member object', base, edits: [[`/${token}`, 'v3']], expect: { pointer: `/${token}`, keyword: 'type' } },
    { why: 'supported required', base, edits: [[`${I}/supported`, REMOVE]], expect: { pointer: I, keyword: 'required' } },
    { why: 'supported boolean', base, edits: [[`${I}/supported`, 'yes']], expect: { pointer: `${I}/supported`, keyword: 'type' } },
    { why: 'TTL required when supported', base, edits: [[`${I}/replay_ttl_seconds`, REMOVE]], expect: { pointer: I, keyword: 'required' } },
    { why: 'TTL at least 3600', base, edits: [[`${I}/replay_ttl_seconds`, 3599]], expect: { pointer: `${I}/replay_ttl_seconds`, keyword: 'minimum' } },
    { why: 'TTL at most 604800', base, edits: [[`${I}/replay_ttl_seconds`, 604801]], expect: { pointer: `${I}/replay_ttl_seconds`, keyword: 'maximum' } },
    { why: 'TTL integer', base, edits: [[`${I}/replay_ttl_seconds`, 86400.5]], expect: { pointer: `${I}/replay_ttl_seconds`, keyword: 'type' } },
    { why: 'TTL not a string', base, edits: [[`${I}/replay_ttl_seconds`, '86400']], expect: { pointer: `${I}/replay_ttl_seconds`, keyword: 'type' } },
    { why: 'in_flight at least 1', base, edits: [[`${I}/in_flight_max_seconds`, 0]], expect: { pointer: `${I}/in_flight_max_seconds`, keyword: 'minimum' } },
    {
      why: 'in_flight at most 604800',
      base,
      edits: [
        [`${I}/replay_ttl_seconds`, 604800],
        [`${I}/in_flight_max_seconds`, 604801],
      ],
      expect: { pointer: `${I}/in_flight_max_seconds`, keyword: 'maximum' },
    },
    { why: 'in_flight integer', base, edits: [[`${I}/in_flight_max_seconds`, 1.5]], expect: { pointer: `${I}/in_flight_max_seconds`, keyword: 'type' } },
    {
      why: 'in_flight not above the TTL',
      base,
      edits: [
        [`${I}/replay_ttl_seconds`, 3600],
        [`${I}/in_flight_max_seconds`, 3601],
      ],
      expect: { pointer: `${I}/in_flight_max_seconds`, keyword: 'crossField' },
    },
    {
      why: 'supported false: TTL absent',
      base,
      edits: [[I, { supported: false, replay_ttl_seconds: 86400 }]],
      expect: { pointer: `${I}/replay_ttl_seconds`, keyword: 'false schema' },
    },
    {
      why: 'supported false: in_flight absent',
      base,
      edits: [[I, { supported: false, in_flight_max_seconds: 60 }]],
      expect: { pointer: `${I}/in_flight_max_seconds`, keyword: 'false schema' },
    },
    {
      why: 'top-level idempotency judged the same way',
      base: 'capabilities.top-level',
      edits: [['/idempotency', { supported: true, replay_ttl_seconds: 60 }]],
      expect: { pointer: '/idempotency/replay_ttl_seconds', keyword: 'minimum' },
    },
    {
      why: 'top-level idempotency object',
      base: 'capabilities.top-level',
      edits: [['/idempotency', true]],
      expect: { pointer: '/idempotency', keyword: 'type' },
    },
    {
      why: 'request_signing.supported required',
      base,
      edits: [['/request_signing/supported', REMOVE]],
      expect: { pointer: '/request_signing', keyword: 'required' },
    },
    {
      why: 'covers_content_digest enum',
      base,
      edits: [['/request_signing/covers_content_digest', 'sometimes']],
      expect: { pointer: '/request_signing/covers_content_digest', keyword: 'enum' },
    },
    {
      why: 'required_for array of operation names',
      base,
      edits: [['/request_signing/required_for', 'create_media_buy']],
      expect: { pointer: '/request_signing/required_for', keyword: 'type' },
    },
    {
      why: 'protocol method names',
      base,
      edits: [['/request_signing/protocol_methods_supported_for', ['tasks.cancel']]],
      expect: { pointer: '/request_signing/protocol_methods_supported_for/0', keyword: 'pattern' },
    },
    {
      why: 'required_for within supported_for',
      base,
      edits: [['/request_signing/required_for', ['create_media_buy', 'sync_creatives']]],
      expect: { pointer: '/request_signing/required_for/1', keyword: 'crossField' },
    },
    {
      why: 'warn_for within supported_for',
      base,
      edits: [['/request_signing/warn_for', ['get_products']]],
      expect: { pointer: '/request_signing/warn_for/0', keyword: 'crossField' },
    },
    {
      why: 'warn_for and required_for disjoint',
      base,
      edits: [['/request_signing/warn_for', ['create_media_buy']]],
      expect: { pointer: '/request_signing/warn_for/0', keyword: 'crossField' },
    },
    {
      why: 'protocol_methods lists follow the same rules',
      base,
      edits: [['/request_signing/protocol_methods_required_for', ['tasks/cancel']]],
      expect: { pointer: '/request_signing/protocol_methods_required_for/0', keyword: 'crossField' },
    },
    {
      why: 'webhook_signing.supported required',
      base,
      edits: [['/webhook_signing/supported', REMOVE]],
      expect: { pointer: '/webhook_signing', keyword: 'required' },
    },
    {
      why: 'profile is the token webhook tag',
      base,
      edits: [['/webhook_signing/profile', 'other/webhook-signing/v1']],
      expect: { pointer: '/webhook_signing/profile', keyword: 'const' },
    },
    {
      why: 'algorithms non-empty',
      base,
      edits: [['/webhook_signing/algorithms', []]],
      expect: { pointer: '/webhook_signing/algorithms', keyword: 'minItems' },
    },
    {
      why: 'algorithms from the allow-list',
      base,
      edits: [['/webhook_signing/algorithms', ['ed25519', 'rsa-pss-sha512']]],
      expect: { pointer: '/webhook_signing/algorithms/1', keyword: 'enum' },
    },
    {
      why: 'algorithms a set',
      base,
      edits: [['/webhook_signing/algorithms', ['ed25519', 'ed25519']]],
      expect: { pointer: '/webhook_signing/algorithms', keyword: 'uniqueItems' },
    },
    {
      why: 'legacy_hmac_fallback boolean',
      base,
      edits: [['/webhook_signing/legacy_hmac_fallback', 'no']],
      expect: { pointer: '/webhook_signing/legacy_hmac_fallback', keyword: 'type' },
    },
    {
      why: 'retry horizon at least 86400',
      base,
      edits: [['/webhook_signing/delivery_retry_horizon_seconds', 3600]],
      expect: { pointer: '/webhook_signing/delivery_retry_horizon_seconds', keyword: 'minimum' },
    },
    {
      why: 'retry horizon at most 604800',
      base,
      edits: [['/webhook_signing/delivery_retry_horizon_seconds', 700000]],
      expect: { pointer: '/webhook_signing/delivery_retry_horizon_seconds', keyword: 'maximum' },
    },
    {
      why: 'brand_json_url is https',
      base,
      edits: [['/identity/brand_json_url', 'http://pinnacle-media.example/.well-known/brand.json']],
      expect: { pointer: '/identity/brand_json_url', keyword: 'pattern' },
    },
    {
      why: 'brand_json_url is a URL',
      base,
      edits: [['/identity/brand_json_url', 'https://exa mple/brand.json']],
      expect: { pointer: '/identity/brand_json_url', keyword: 'format' },
    },
    {
      why: 'key_origins values strings',
      base,
      edits: [['/identity/key_origins', { request_signing: 1 }]],
      expect: { pointer: '/identity/key_origins/request_signing', keyword: 'type' },
    },
    {
      why: 'compliance_testing lists scenarios',
      base,
      edits: [['/compliance_testing/scenarios', REMOVE]],
      expect: { pointer: '/compliance_testing', keyword: 'required' },
    },
    {
      why: 'scenarios array of strings',
      base,
      edits: [['/compliance_testing/scenarios', 'list_scenarios']],
      expect: { pointer: '/compliance_testing/scenarios', keyword: 'type' },
    },
    {
      why: 'windowed_pull_granularities array',
      base,
      edits: [['/media_buy/reporting_capabilities/windowed_pull_granularities', 'daily']],
      expect: { pointer: '/media_buy/reporting_capabilities/windowed_pull_granularities', keyword: 'type' },
    },
    { why: 'supported_protocols array', base, edits: [['/supported_protocols', 'media_buy']], expect: { pointer: '/supported_protocols', keyword: 'type' } },
    { why: 'sandbox boolean', base, edits: [['/sandbox', 'true']], expect: { pointer: '/sandbox', keyword: 'type' } },
    { why: 'context object', base, edits: [['/context', 1]], expect: { pointer: '/context', keyword: 'type' } },
  ];
}

describe.each(TOKENS)('capabilities with token %s', (token) => {
  const ids = protocolIds(token);
  const v = createSchemaValidator({ token });

  it('maps get_<token>_capabilities to the capabilities schema', () => {
    expect(v.taskSchemaName(ids.capabilitiesTask)).toBe('capabilities');
    expect(v.hasTaskSchema(ids.capabilitiesTask)).toBe(true);
  });

  it('the samples (token member and top-level location) are valid', () => {
    expectValid(v.validateTaskResponse(ids.capabilitiesTask, loadSample('capabilities', { token })));
    expectValid(v.validateTaskResponse(ids.capabilitiesTask, loadSample('capabilities.top-level', { token })));
  });

  it('TTL boundaries 3600 and 604800 pass; supported false without TTL passes', () => {
    for (const ttl of [3600, 604800]) {
      expectValid(v.validateTaskResponse(ids.capabilitiesTask, { [token]: { idempotency: { supported: true, replay_ttl_seconds: ttl } } }));
    }
    expectValid(v.validateTaskResponse(ids.capabilitiesTask, { [token]: { idempotency: { supported: false } } }));
  });

  it.each(casesFor(token))('$why', (c) => {
    const { value } = buildCase(c, token);
    expectViolation(v.validateTaskResponse(ids.capabilitiesTask, value), c.expect);
  });
});

describe('the token parameterisation does not leak across tokens', () => {
  const [a, b] = TOKENS;
  const va = createSchemaValidator({ token: a });
  const vb = createSchemaValidator({ token: b });

  it('only the configured capabilities task name exists', () => {
    expect(va.hasTaskSchema(protocolIds(b).capabilitiesTask)).toBe(false);
    expect(vb.hasTaskSchema(protocolIds(a).capabilitiesTask)).toBe(false);
  });

  it("another token's member does not count as the idempotency declaration", () => {
    const verdict = va.validateTaskResponse(protocolIds(a).capabilitiesTask, { [b]: { idempotency: { supported: true, replay_ttl_seconds: 86400 } } });
    expectViolation(verdict, { pointer: '', keyword: 'anyOf' });
  });

  it("another token's webhook tag is rejected as the profile", () => {
    const sample = loadSample<Record<string, unknown>>('capabilities', { token: b });
    const verdict = va.validate('capabilities', { ...sample, [a]: sample[b] });
    expectViolation(verdict, { pointer: '/webhook_signing/profile', keyword: 'const' });
    expect(verdict.errors.find((e) => e.keyword === 'const')?.message).toBe(`must be ${JSON.stringify(protocolIds(a).webhookSigningTag)}`);
  });

  it("the token's idempotency block is checked by the cross-field rule only at its own member", () => {
    const bad = { supported: true, replay_ttl_seconds: 3600, in_flight_max_seconds: 7200 };
    expectViolation(va.validate('capabilities', { [a]: { idempotency: bad } }), { pointer: `/${a}/idempotency/in_flight_max_seconds`, keyword: 'crossField' });
    const other = va.validate('capabilities', { idempotency: { supported: false }, [b]: { idempotency: bad } });
    expect(other.errors.filter((e) => e.keyword === 'crossField')).toEqual([]);
  });
});
