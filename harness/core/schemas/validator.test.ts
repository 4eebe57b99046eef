/**
 * The validator itself: schema files (dialect, ids, spec references, strict compilation),
 * caching per token, names and lookups, error shape, and the samples.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN, TokenError, protocolIds } from '../token.js';
import { DEFAULT_SCHEMA_DIR, SCHEMA_BASE_URI, SCHEMA_DIALECT, SchemaLoadError, loadSchemaDocuments } from './loader.js';
import { DEFAULT_SAMPLE_DIR, SampleNotFoundError, loadSample, loadTaskSample, sampleNames, sampleSchemaName } from './samples.js';
import { UnknownSchemaError, createSchemaValidator, normaliseSchemaPath } from './validator.js';
import { expectValid } from './testing/schema-fixtures.js';

const TOKENS = [DEFAULT_TOKEN, 'adcp'];

/** The schema set the assignment lists (records, task responses, webhooks, declarations). */
const EXPECTED_SCHEMAS = [
  // Request schemas of the fuzzed tasks (harness/fuzz/requests.ts).
  'capabilities-request',
  'get_products-request',
  'create_media_buy-request',
  'update_media_buy-request',
  'get_media_buys-request',
  'sync_accounts-request',
  'sync_creatives-request',
  'sync_audiences-request',
  'sync_catalogs-request',
  'build_creative-request',
  'activate_signal-request',
  'log_event-request',
  'provide_performance_feedback-request',
  'product',
  'pricing-option',
  'format-id',
  'media-buy',
  'media-buy-package',
  'webhook-activity',
  'account-ref',
  'account',
  'creative',
  'audience',
  'catalog',
  'marketing-event',
  'delivery-totals',
  'audit-entry',
  'error',
  'push-notification-config',
  'capabilities',
  'get_products-response',
  'create_media_buy-response',
  'update_media_buy-response',
  'get_media_buys-response',
  'get_media_buy_delivery-response',
  'sync_accounts-response',
  'list_accounts-response',
  'list_creative_formats-response',
  'build_creative-response',
  'sync_creatives-response',
  'sync_audiences-response',
  'sync_catalogs-response',
  'get_signals-response',
  'activate_signal-response',
  'check_governance-response',
  'get_plan_audit_logs-response',
  'log_event-response',
  'provide_performance_feedback-response',
  'get_brand_identity-response',
  'comply_test_controller-response',
  'mcp-webhook-payload',
  'webhook-challenge',
  'creative-status-changed-webhook',
  'agent-webhook-challenge',
  'capabilities-changed-webhook',
  'delivery-report-result',
  'a2a-task',
  'brand-declaration',
  'publisher-declaration',
  'task-common',
  'async-task',
];

const tempDirs: string[] = [];
afterAll(() => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

function schemaDirWith(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'proto-comply-schemas-'));
  tempDirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, `${name}.json`), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

function header(name: string): Record<string, unknown> {
  return { $schema: SCHEMA_DIALECT, $id: `${SCHEMA_BASE_URI}${name}.json`, description: 'test schema' };
}

describe('schema files', () => {
  const raw = readdirSync(DEFAULT_SCHEMA_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ file: f, text: readFileSync(join(DEFAULT_SCHEMA_DIR, f), 'utf8') }));

  it('are exactly the expected set', () => {
    expect(raw.map((r) => r.file.replace(/\.json$/, '')).sort()).toEqual([...EXPECTED_SCHEMAS].sort());
  });

  it.each(raw)('$file: 2020-12 dialect, id from its name, a description citing the spec', ({ file, text }) => {
    const schema = JSON.parse(text) as Record<string, unknown>;
    expect(schema.$schema).toBe(SCHEMA_DIALECT);
    expect(schema.$id).toBe(`${SCHEMA_BASE_URI}${file}`);
    expect(String(schema.description)).toMatch(/(interface spec|spec|digest) \d/);
  });

  // The validator skips this check for the built-in directory at run time (validator.ts).
  const meta = new Ajv2020({ allErrors: true });
  it.each(raw)('$file: valid against the 2020-12 meta-schema', ({ text }) => {
    expect(meta.validateSchema(JSON.parse(text) as object), meta.errorsText(meta.errors)).toBe(true);
  });

  it.each(raw)('$file: never spells a protocol token (templates use {token})', ({ text }) => {
    for (const token of TOKENS) {
      expect(text).not.toMatch(new RegExp(`["/]${token}[_/."]|get_${token}_`));
    }
  });

  it.each(TOKENS)('every file compiles under ajv strict mode for token %s', (token) => {
    const docs = loadSchemaDocuments(token);
    expect(docs.map((d) => d.name)).toEqual([...EXPECTED_SCHEMAS].sort());
    expect(createSchemaValidator({ token }).schemaNames()).toEqual([...EXPECTED_SCHEMAS].sort());
  });
});

describe('strict compilation catches schema mistakes', () => {
  it('a misspelt keyword fails to load, naming the file', () => {
    const dir = schemaDirWith({ typo: { ...header('typo'), type: 'object', properties: { n: { type: 'integer', minimun: 1 } } } });
    expect(() => createSchemaValidator({ schemaDir: dir })).toThrow(SchemaLoadError);
    expect(() => createSchemaValidator({ schemaDir: dir })).toThrow(/typo\.json.*minimun/s);
  });

  it('a required member not declared in properties fails (strictRequired)', () => {
    const dir = schemaDirWith({ req: { ...header('req'), type: 'object', required: ['nmae'], properties: { name: { type: 'string' } } } });
    expect(() => createSchemaValidator({ schemaDir: dir })).toThrow(/req\.json.*nmae/s);
  });

  it('a schema that breaks the meta-schema fails in a directory of ones own', () => {
    const dir = schemaDirWith({ meta: { ...header('meta'), type: 'object', properties: { n: { type: 'integer', deprecated: 'yes' } } } });
    expect(() => createSchemaValidator({ schemaDir: dir })).toThrow(/meta\.json.*deprecated/s);
  });

  it('a dangling $ref fails', () => {
    const dir = schemaDirWith({ dangling: { ...header('dangling'), $ref: 'missing.json' } });
    expect(() => createSchemaValidator({ schemaDir: dir })).toThrow(/dangling\.json.*missing\.json/s);
  });

  it('a wrong $id, a wrong dialect, bad JSON and an empty directory are load errors', () => {
    expect(() => loadSchemaDocuments(DEFAULT_TOKEN, schemaDirWith({ a: { ...header('b') } }))).toThrow(/\$id must be/);
    expect(() => loadSchemaDocuments(DEFAULT_TOKEN, schemaDirWith({ a: { ...header('a'), $schema: 'http://json-schema.org/draft-07/schema#' } }))).toThrow(
      /\$schema must be/,
    );
    expect(() => loadSchemaDocuments(DEFAULT_TOKEN, schemaDirWith({ a: '{"$schema": ' }))).toThrow(/a\.json: not valid JSON/);
    expect(() => loadSchemaDocuments(DEFAULT_TOKEN, schemaDirWith({}))).toThrow(/no \*\.json schema files/);
    expect(() => loadSchemaDocuments(DEFAULT_TOKEN, join(tmpdir(), 'proto-comply-no-such-dir'))).toThrow(/cannot read schema directory/);
  });

  it('a valid custom directory works and `{token}` is expanded in member names and values', () => {
    const dir = schemaDirWith({
      t: { ...header('t'), type: 'object', required: ['{token}'], properties: { '{token}': { const: '{token}/webhook-signing/v1' } } },
    });
    const v = createSchemaValidator({ token: 'adcp', schemaDir: dir });
    const tag = protocolIds('adcp').webhookSigningTag;
    expectValid(v.validate('t', { adcp: tag }));
    expect(v.validate('t', { adcp: 'x' }).errors).toEqual([
      { pointer: '/adcp', keyword: 'const', message: `must be ${JSON.stringify(tag)}`, schemaPath: 't.json#/properties/adcp/const' },
    ]);
  });
});

describe('schemas by protocol line (x-from-line)', () => {
  it("a keyword set for a line replaces the object's own from that line on, and the member is gone", () => {
    const dir = schemaDirWith({
      b: { ...header('b'), type: 'object', required: ['id'], 'x-from-line': { '3.1': { required: ['id', 'revision'] } }, properties: { id: {}, revision: {} } },
    });
    expectValid(createSchemaValidator({ schemaDir: dir, target: '3.0' }).validate('b', { id: 'x' }));
    for (const target of ['3.1', '3.2'] as const)
      expect(createSchemaValidator({ schemaDir: dir, target }).validate('b', { id: 'x' }).errors).toMatchObject([{ keyword: 'required', pointer: '' }]);
    expect(JSON.stringify(loadSchemaDocuments(DEFAULT_TOKEN, dir, '3.2'))).not.toContain('x-from-line');
  });

  it('refuses a line that is not a protocol line, or keywords that are not an object', () => {
    expect(() => loadSchemaDocuments(DEFAULT_TOKEN, schemaDirWith({ c: { ...header('c'), 'x-from-line': { '4.0': {} } } }))).toThrow(
      /c\.json#: x-from-line names "4\.0"/,
    );
    expect(() => loadSchemaDocuments(DEFAULT_TOKEN, schemaDirWith({ d: { ...header('d'), 'x-from-line': { '3.1': [] } } }))).toThrow(
      /must be an object of keywords/,
    );
  });

  it('a listed media buy carries revision from 3.1 (released schemas from 3.1.0), a create or update reply in every line (the 3.0 text)', () => {
    const buy = { media_buy_id: 'mb_1', status: 'active' };
    const messages = (target: '3.0' | '3.1' | '3.2', task: string, payload: unknown) =>
      createSchemaValidator({ target })
        .validateTaskResponse(task, payload)
        .errors.map((e) => e.message);
    expectValid(createSchemaValidator({ target: '3.0' }).validateTaskResponse('get_media_buys', { media_buys: [buy] }));
    expect(messages('3.1', 'get_media_buys', { media_buys: [buy] })).toContain("must have required property 'revision'");
    for (const target of ['3.0', '3.1', '3.2'] as const)
      expect(messages(target, 'update_media_buy', buy), target).toContain("must have required property 'revision'");
    expectValid(createSchemaValidator({ target: '3.1' }).validateTaskResponse('update_media_buy', { ...buy, revision: 2 }));
    // 3.2 names the state media_buy_status in create and update replies (digest 4.5).
    expect(messages('3.2', 'update_media_buy', { ...buy, revision: 2 })).toContain("must have required property 'media_buy_status'");
    expectValid(createSchemaValidator({ target: '3.2' }).validateTaskResponse('update_media_buy', { ...buy, revision: 2, media_buy_status: 'active' }));
  });
});

describe('createSchemaValidator', () => {
  it('compiles once per process per token: the same instance is returned', () => {
    const a = createSchemaValidator({ token: DEFAULT_TOKEN });
    expect(createSchemaValidator()).toBe(a);
    expect(createSchemaValidator({ token: DEFAULT_TOKEN, schemaDir: DEFAULT_SCHEMA_DIR })).toBe(a);
    const b = createSchemaValidator({ token: 'adcp' });
    expect(b).not.toBe(a);
    expect(createSchemaValidator({ token: 'adcp' })).toBe(b);
    expect(a.token).toBe(DEFAULT_TOKEN);
    expect(b.token).toBe('adcp');
  });

  it('rejects an invalid token', () => {
    expect(() => createSchemaValidator({ token: 'Bad Token' })).toThrow(TokenError);
  });

  it('unknown schemas and tasks throw a clear error; lookups answer false', () => {
    const v = createSchemaValidator();
    expect(() => v.validate('prodcut', {})).toThrow(UnknownSchemaError);
    expect(() => v.validate('prodcut', {})).toThrow(/no schema named "prodcut"; known: .*product/);
    expect(() => v.validateTaskResponse('acquire_rights', {})).toThrow(/no response schema for task "acquire_rights"/);
    expect(v.hasSchema('product')).toBe(true);
    expect(v.hasSchema('prodcut')).toBe(false);
    expect(v.hasTaskSchema('acquire_rights')).toBe(false);
    expect(v.hasTaskSchema('get_products-response')).toBe(false);
    expect(v.taskSchemaName('get_products')).toBe('get_products-response');
    expect(v.taskSchemaName('acquire_rights')).toBeUndefined();
  });

  it('returns copies of its name lists', () => {
    const v = createSchemaValidator();
    v.schemaNames().pop();
    v.taskNames().pop();
    expect(v.schemaNames()).toHaveLength(EXPECTED_SCHEMAS.length);
    expect(v.taskNames()).toContain('update_media_buy');
  });

  it('validateError judges against the error schema', () => {
    const v = createSchemaValidator();
    expectValid(v.validateError(loadSample('error')));
    expect(v.validateError({ code: 'X' }).valid).toBe(false);
  });

  it('errors carry an RFC 6901 pointer, a message, the keyword and the file location; `if` wrappers are dropped', () => {
    const v = createSchemaValidator();
    const verdict = v.validateTaskResponse('create_media_buy', { status: 'submitted', task_id: 9 });
    expect(verdict).toEqual({
      valid: false,
      errors: [{ pointer: '/task_id', message: 'must be string', keyword: 'type', schemaPath: 'async-task.json#/properties/task_id/type' }],
    });
    const many = v.validateTaskResponse('get_media_buys', { media_buys: [{ media_buy_id: 'a', status: 'x', revision: 0 }], errors: 'e' });
    expect(many.errors.map((e) => e.keyword)).not.toContain('if');
    expect(many.errors).toContainEqual({
      pointer: '/media_buys/0/status',
      message: 'must be one of "pending_creatives", "pending_start", "active", "paused", "completed", "canceled", "rejected"',
      keyword: 'enum',
      schemaPath: 'media-buy.json#/$defs/status/enum',
    });
  });

  it('valid values produce no errors and are not modified', () => {
    const v = createSchemaValidator();
    const sample = loadSample('create_media_buy-response');
    const before = JSON.stringify(sample);
    expectValid(v.validateTaskResponse('create_media_buy', sample));
    expect(JSON.stringify(sample)).toBe(before);
  });
});

describe('normaliseSchemaPath', () => {
  it('turns ajv paths into <file>.json#<pointer>', () => {
    expect(normaliseSchemaPath('product', '#/required')).toBe('product.json#/required');
    expect(normaliseSchemaPath('product', 'format-id.json/required')).toBe('format-id.json#/required');
    expect(normaliseSchemaPath('product', `${SCHEMA_BASE_URI}error.json#/properties/code`)).toBe('error.json#/properties/code');
    expect(normaliseSchemaPath('product', 'format-id.json')).toBe('format-id.json#');
  });
});

describe('samples', () => {
  const names = sampleNames();

  it('every schema has at least one sample', () => {
    const covered = new Set(names.map(sampleSchemaName));
    expect(EXPECTED_SCHEMAS.filter((s) => !covered.has(s))).toEqual([]);
  });

  it.each(TOKENS)('every sample is valid for token %s', (token) => {
    const v = createSchemaValidator({ token });
    for (const name of names) {
      const verdict = v.validate(sampleSchemaName(name), loadSample(name, { token }));
      expect(verdict.errors, name).toEqual([]);
    }
  });

  it('samples never spell a protocol token', () => {
    for (const name of names) {
      const text = readFileSync(join(DEFAULT_SAMPLE_DIR, `${name}.json`), 'utf8');
      for (const token of TOKENS) expect(text, name).not.toMatch(new RegExp(`["/]${token}[_/."]`));
    }
  });

  it('loadSample returns a fresh copy with the token expanded; loadTaskSample maps the capabilities task', () => {
    const a = loadSample<Record<string, unknown>>('capabilities', { token: 'adcp' });
    expect(Object.keys(a)).toContain('adcp');
    expect((a.webhook_signing as Record<string, unknown>).profile).toBe(protocolIds('adcp').webhookSigningTag);
    a.mutated = true;
    expect(loadSample<Record<string, unknown>>('capabilities', { token: 'adcp' }).mutated).toBeUndefined();
    expect(loadTaskSample(protocolIds('adcp').capabilitiesTask, { token: 'adcp' })).toEqual(loadSample('capabilities', { token: 'adcp' }));
    expect(loadTaskSample('get_products')).toEqual(loadSample('get_products-response'));
  });

  it('unknown or unsafe sample names throw', () => {
    expect(() => loadSample('nope')).toThrow(SampleNotFoundError);
    expect(() => loadSample('../schemas/product')).toThrow(/invalid sample name/);
  });
});
