import { describe, expect, it } from 'vitest';
import { substitute, UnresolvedSubstitution, type SubstitutionScope } from './substitute.js';
import { JUDGED_KINDS, judgeValidation, type StepOutcome } from './validations.js';
import type { StoryboardValidation } from './model.js';
import { pointerOf, resolveStoryboardPathAll } from './path.js';

describe('[*] paths', () => {
  it('name every element', () => {
    const r = { products: [{ format_ids: [{ id: 'a' }, { id: 'b' }] }, { format_ids: [{ id: 'c' }] }] };
    expect(resolveStoryboardPathAll(r, 'products[*].format_ids[*].id')).toEqual(['a', 'b', 'c']);
    expect(resolveStoryboardPathAll(r, 'products[1].format_ids[0].id')).toEqual(['c']);
    expect(pointerOf('products[*].format_ids[0]')).toBe('/products/*/format_ids/0');
  });
});

describe('substitutions', () => {
  const scope = (over: Partial<SubstitutionScope> = {}): SubstitutionScope => {
    let n = 0;
    return {
      context: new Map<string, unknown>([
        ['media_buy_id', 'mb_1'],
        ['budget', 5000],
        ['format', { id: 'x' }],
      ]),
      priorSteps: new Map([['create', { operation_id: 'op_9', packages: [{ package_id: 'p1' }] }]]),
      generated: new Map(),
      uuid: () => `uuid-${++n}`,
      ...over,
    };
  };

  it('replaces context values with their captured type, inside arrays and strings too', () => {
    expect(
      substitute(
        {
          media_buy_id: '$context.media_buy_id',
          ids: ['$context.media_buy_id'],
          budget: '$context.budget',
          f: '$context.format',
          note: 'buy $context.media_buy_id',
        },
        scope(),
      ),
    ).toEqual({ media_buy_id: 'mb_1', ids: ['mb_1'], budget: 5000, f: { id: 'x' }, note: 'buy mb_1' });
  });

  it('generates one UUID per alias for the run, a new one without an alias', () => {
    const s = scope();
    const first = substitute({ a: '$generate:uuid_v4#k', b: '$generate:uuid_v4#k', c: '$generate:uuid_v4' }, s);
    expect(first).toEqual({ a: 'uuid-1', b: 'uuid-1', c: 'uuid-2' });
    expect(substitute('$generate:uuid_v4#k', s)).toBe('uuid-1');
  });

  it('reads prior steps and the runner receiver', () => {
    const s = scope({ webhookUrl: (step) => `http://127.0.0.1:9/hook/${step}` });
    expect(
      substitute({ op: '{{prior_step.create.operation_id}}', pkg: '{{ prior_step.create.packages[0].package_id }}', url: '{{runner.webhook_url:create}}' }, s),
    ).toEqual({
      op: 'op_9',
      pkg: 'p1',
      url: 'http://127.0.0.1:9/hook/create',
    });
  });

  it('leaves other {{...}} text as authored (creative macros)', () => {
    expect(substitute('https://t.example/?c={{CLICK_URL}}', scope())).toBe('https://t.example/?c={{CLICK_URL}}');
  });

  it.each([
    ['$context.unknown', /\$context\.unknown \(no earlier step captured it\)/],
    ['{{prior_step.nope.id}}', /step nope has no response/],
    ['{{prior_step.create.missing}}', /has no missing/],
    ['{{runner.webhook_url:create}}', /the run has no webhook receiver/],
    ['{{runner.other}}', /not a substitution the harness knows/],
    ['x $context.format', /an object or array cannot be placed inside a string/],
  ])('%s is unresolved_substitution, never a fabricated value', (text, message) => {
    expect(() => substitute({ v: text }, scope())).toThrow(UnresolvedSubstitution);
    expect(() => substitute({ v: text }, scope())).toThrow(message);
  });
});

describe('validations', () => {
  const ok = (payload: unknown): StepOutcome => ({ ok: true, payload, httpStatus: 200 });
  const err = (code?: string): StepOutcome => ({ ok: false, payload: { code }, ...(code ? { errorCode: code } : {}), httpStatus: 200 });
  const v = (check: string, more: Partial<StoryboardValidation> & Record<string, unknown> = {}): StoryboardValidation => {
    const raw = { check, ...more };
    return { check, ...more, raw } as StoryboardValidation;
  };
  const env = {
    context: new Map<string, unknown>([
      ['ids', ['a', 'b']],
      ['max', 10],
      ['id', 'a'],
    ]),
  };
  const judge = (val: StoryboardValidation, o: StepOutcome) => {
    const r = judgeValidation(val, o, env);
    return r.outcome === 'failed' ? `failed: ${r.message}` : r.outcome;
  };
  const body = { products: [{ product_id: 'p1', tags: ['x', 'y'], price: 5, nothing: null }], context: { correlation_id: 'c' }, status: 'active' };

  it.each([
    [v('field_present', { path: 'products[0].product_id' }), 'passed'],
    [v('field_present', { path: 'products[0].nothing' }), 'failed: no value at products[0].nothing'],
    [v('field_present', { path: 'products[1].product_id' }), 'failed: no value at products[1].product_id'],
    [v('field_absent', { path: 'errors' }), 'passed'],
    [v('field_absent', { path: 'status' }), 'failed: status is present: "active"'],
    [v('field_value', { path: 'context.correlation_id', value: 'c' }), 'passed'],
    [v('field_value', { path: 'status', allowed_values: ['pending_start', 'active'] }), 'passed'],
    [v('field_value', { path: 'status', value: 'paused' }), 'failed: status is "active", expected "paused"'],
    [v('field_value_or_absent', { path: 'media_buy_status', value: 'active' }), 'passed'],
    [v('field_value_or_absent', { path: 'status', value: 'paused' }), 'failed: status is "active", expected "paused"'],
    [v('field_contains', { path: 'products[0].tags', value: 'y' }), 'passed'],
    [v('field_contains', { path: 'products[*].product_id', value: 'p1' }), 'passed'],
    [v('field_contains', { path: 'products[0].tags', value: 'z' }), 'failed: products[0].tags does not contain "z"'],
    [v('field_pattern', { path: 'products[0].product_id', pattern: '^p\\d$' }), 'passed'],
    [v('field_pattern', { path: 'status', pattern: '^p' }), 'failed: status is "active", not matching /^p/'],
    [v('array_length', { path: 'products[0].tags', min: 1, max: 2 }), 'passed'],
    [v('array_length', { path: 'products[0].tags', value: 3 }), 'failed: products[0].tags has 2 items, expected 3'],
    [v('field_less_than', { path: 'products[0].price', context_key: 'max' }), 'passed'],
    [v('field_greater_than', { path: 'products[0].price', value: 5 }), 'failed: products[0].price is 5, expected greater than 5'],
    [v('field_equals_context', { path: 'products[0].tags[0]', context_key: 'ids' }), 'failed: products[0].tags[0] is "x", not the captured ids ["a","b"]'],
    [v('field_in_context_array', { path: 'products[0].tags[0]', context_key: 'ids' }), 'failed: products[0].tags[0] holds "x", not among the captured ids'],
  ])('%# judges the response', (val, want) => {
    expect(judge(val, ok(body))).toBe(want);
  });

  it('judges error codes', () => {
    expect(judge(v('error_code', { value: 'MEDIA_BUY_NOT_FOUND' }), err('MEDIA_BUY_NOT_FOUND'))).toBe('passed');
    expect(judge(v('error_code', { allowed_values: ['INVALID_REQUEST', 'VALIDATION_ERROR'] }), err('VALIDATION_ERROR'))).toBe('passed');
    expect(judge(v('error_code'), err('ANY'))).toBe('passed');
    expect(judge(v('error_code', { value: 'X' }), err('Y'))).toBe('failed: error Y, expected X');
    expect(judge(v('error_code'), err())).toBe('failed: the error carries no code');
    expect(judge(v('error_code'), ok(body))).toBe('failed: the task succeeded, expected an error');
  });

  it('judges HTTP status and the response schema through the run', () => {
    expect(judge(v('http_status', { value: 200 }), ok(body))).toBe('passed');
    expect(judge(v('http_status_in', { allowed_values: [401, 403] }), ok(body))).toBe('failed: HTTP 200, expected 401 or 403');
    expect(judge(v('http_status', { value: 200 }), { ok: true, payload: {} })).toBe('not_applicable');
    const schema = {
      set: 'released' as const,
      id: '/schemas/3.0.6/media-buy/x-response.json',
      file: 'media-buy/x-response.json',
      line: '3.0',
      version: '3.0.6',
    };
    const error = { pointer: '/products/0', message: 'must have required property revision', keyword: 'required', schemaPath: 'core/product.json#/required' };
    const schemaEnv = { ...env, responseSchema: () => ({ valid: false, errors: [error], schema }) };
    expect(judgeValidation(v('response_schema'), ok(body), schemaEnv)).toMatchObject({
      outcome: 'failed',
      message:
        'the response is not valid against the released 3.0.6 schema media-buy/x-response.json: /products/0 must have required property revision (core/product.json#/required)',
      expected: schema.id,
      actual: [{ instance_path: '/products/0', schema_path: 'core/product.json#/required', keyword: 'required', message: error.message }],
      pointer: '/products/0',
      schema,
    });
    const harness = { ...schema, set: 'harness' as const, file: 'x-response.json', line: '3.1' };
    const passEnv = {
      ...env,
      responseSchema: () => ({ valid: true, errors: [], schema: harness, note: 'the released 3.0.6 schemas have no response schema of x' }),
    };
    expect(judgeValidation(v('response_schema'), ok(body), passEnv)).toMatchObject({
      outcome: 'passed',
      message: "valid against the harness's schema x-response.json (line 3.1) (the released 3.0.6 schemas have no response schema of x)",
      schema: harness,
    });
    expect(judgeValidation(v('response_schema'), ok(body), { ...env, responseSchema: () => ({ problem: 'core/x.json: not JSON' }) })).toMatchObject({
      outcome: 'not_applicable',
      message: 'core/x.json: not JSON',
    });
    expect(judge(v('response_schema'), ok(body))).toBe('not_applicable');
  });

  it("a storyboard's own authoring defect or an unknown kind is not applicable, never the agent's failure", () => {
    for (const val of [
      v('field_present'),
      v('field_value', { path: 'status' }),
      v('field_pattern', { path: 'status', pattern: '(' }),
      v('field_present', { path: 'a..b' }),
      v('some_future_check'),
      v('oauth_metadata_graph'),
    ])
      expect(judgeValidation(val, ok(body), env).outcome, val.check).toBe('not_applicable');
    expect(JUDGED_KINDS.has('some_future_check')).toBe(false);
    expect(JUDGED_KINDS.has('oauth_metadata_graph')).toBe(true);
  });

  it('compares with values earlier steps captured when the expected value is $context.<name>', () => {
    expect(judge(v('field_value', { path: 'products[0].product_id', value: '$context.id' }), ok({ products: [{ product_id: 'a' }] }))).toBe('passed');
    expect(judge(v('field_value', { path: 'products[0].product_id', allowed_values: ['$context.id'] }), ok({ products: [{ product_id: 'b' }] }))).toBe(
      'failed: products[0].product_id is "b", expected "a"',
    );
    expect(judgeValidation(v('field_value', { path: 'status', value: '$context.never' }), ok(body), env)).toMatchObject({
      outcome: 'not_applicable',
      message: 'the expected value names $context.never, which no earlier step captured',
    });
  });

  it('carries severity', () => {
    expect(judgeValidation(v('field_value', { path: 'status', value: 'paused', severity: 'advisory' }), ok(body), env)).toMatchObject({
      outcome: 'failed',
      severity: 'advisory',
    });
  });
});

describe('controller seeding calls', () => {
  const sb = (fixtures: unknown, seeding = true) =>
    ({ raw: { prerequisites: { controller_seeding: seeding }, fixtures }, phases: [] }) as unknown as import('./model.js').Storyboard;

  it('seeds in foreign-key order with the id beside the fixture', async () => {
    const { seedCalls, seedsFixtures } = await import('./seeding.js');
    const calls = seedCalls(
      sb({
        media_buys: [{ media_buy_id: 'mb', status: 'active' }],
        pricing_options: [{ product_id: 'p', pricing_option_id: 'po', pricing_model: 'cpm' }],
        products: [{ product_id: 'p', delivery_type: 'non_guaranteed' }],
        creatives: [{ creative_id: 'c' }],
        plans: [{ plan_id: 'pl' }],
      }),
    );
    expect(calls.map((c) => [c.scenario, c.params])).toEqual([
      ['seed_product', { product_id: 'p', fixture: { delivery_type: 'non_guaranteed' } }],
      ['seed_pricing_option', { pricing_option_id: 'po', product_id: 'p', fixture: { pricing_model: 'cpm' } }],
      ['seed_creative', { creative_id: 'c', fixture: {} }],
      ['seed_plan', { plan_id: 'pl', fixture: {} }],
      ['seed_media_buy', { media_buy_id: 'mb', fixture: { status: 'active' } }],
    ]);
    expect(seedsFixtures(sb({ products: [{ product_id: 'p' }] }))).toBe(true);
    expect(seedsFixtures(sb({ products: [{ product_id: 'p' }] }, false))).toBe(false);
    expect(seedsFixtures(sb({}))).toBe(false);
  });

  it("names a fixture without its id (the storyboard's defect)", async () => {
    const { seedCalls } = await import('./seeding.js');
    expect(() => seedCalls(sb({ products: [{ delivery_type: 'x' }] }))).toThrow('fixtures.products[0] needs product_id');
    expect(() => seedCalls(sb({ pricing_options: [{ pricing_option_id: 'po' }] }))).toThrow(
      'fixtures.pricing_options[0] needs product_id and pricing_option_id',
    );
  });
});

describe('a storyboard whose fixtures are authored wrongly', () => {
  it('still has a seeding check (which says why it cannot seed, run.test.ts), never a compile error', async () => {
    const { seedsFixtures } = await import('./seeding.js');
    const sb = {
      raw: { prerequisites: { controller_seeding: true }, fixtures: { products: [{ delivery_type: 'x' }] } },
      phases: [],
    } as unknown as import('./model.js').Storyboard;
    expect(seedsFixtures(sb)).toBe(true);
  });
});
