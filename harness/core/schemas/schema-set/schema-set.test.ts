/**
 * A released schema set read and compiled lazily, on the tiny set of fixtures/schema-set (authored
 * for these tests: draft-07 and 2020-12 files, absolute and relative `$ref`s, an interim reply's
 * schema, a manifest entry whose file is missing) and on broken sets made in a temporary directory.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openSchemaSet } from './compile.js';
import { SCHEMA_SET_LIMITS, SchemaSetError } from './read.js';
import { SCHEMA_SET_FIXTURE as FIXTURE_SET } from '../testing/schema-set-fixture.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
/** A copy of the fixture set with `files` written over it (a null content removes the file). */
function variant(files: Record<string, string | null>): string {
  const root = mkdtempSync(join(tmpdir(), 'schema-set-'));
  made.push(root);
  cpSync(FIXTURE_SET, root, { recursive: true });
  for (const [p, text] of Object.entries(files)) {
    if (text === null) rmSync(join(root, p));
    else {
      mkdirSync(dirname(join(root, p)), { recursive: true });
      writeFileSync(join(root, p), text);
    }
  }
  return root;
}
const schema = (id: string, body: Record<string, unknown>) =>
  JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', $id: `/schemas/3.0.0-fixture/${id}`, ...body });
const product = { product_id: 'p1', publisher_properties: [{ publisher_domain: 'example.com' }] };

describe('a released schema set', () => {
  it("reads its version, line and each task's response schema from the manifest, listing what the manifest names but the set lacks", () => {
    const set = openSchemaSet(FIXTURE_SET);
    expect({ version: set.version, line: set.line }).toEqual({ version: '3.0.0-fixture', line: '3.0' });
    expect([...set.responses]).toEqual([
      ['get_products', 'media-buy/get-products-response.json'],
      ['list_accounts', 'account/list-accounts-response.json'],
    ]);
    expect([...set.missing]).toEqual([['comply_test_controller', 'compliance/comply-test-controller-response.json']]);
    expect(set.validateTaskResponse('comply_test_controller', {})).toBeUndefined();
    expect(set.validateTaskResponse('create_media_buy', {})).toBeUndefined();
  });

  it('judges a reply through its $refs, each error with its pointer and the file and keyword of the schema that says so', () => {
    const set = openSchemaSet(FIXTURE_SET);
    expect(set.validateTaskResponse('get_products', { products: [product] })).toEqual({
      valid: true,
      errors: [],
      schema: { id: '/schemas/3.0.0-fixture/media-buy/get-products-response.json', file: 'media-buy/get-products-response.json' },
    });
    const v = set.validateTaskResponse('get_products', { products: [product, { product_id: 'p2', info_url: 'not a uri' }] });
    expect(v?.valid).toBe(false);
    expect(v?.errors).toEqual([
      { pointer: '/products/1', message: "must have required property 'publisher_properties'", keyword: 'required', schemaPath: 'core/product.json#/required' },
      { pointer: '/products/1/info_url', message: 'must match format "uri"', keyword: 'format', schemaPath: 'core/product.json#/properties/info_url/format' },
    ]);
  });

  it("judges an interim reply against its status's schema (a relative $ref resolved), and each file under the dialect it declares", () => {
    const set = openSchemaSet(FIXTURE_SET);
    const submitted = set.validateTaskResponse('get_products', { status: 'submitted', context: 'x' });
    expect(submitted?.schema.file).toBe('media-buy/get-products-async-response-submitted.json');
    expect(submitted?.errors.map((e) => [e.pointer, e.schemaPath])).toEqual([
      ['', 'media-buy/get-products-async-response-submitted.json#/required'],
      ['/context', 'core/context.json#/type'],
    ]);
    // prefixItems is a 2020-12 keyword: draft-07 would ignore it.
    expect(set.validateTaskResponse('list_accounts', { accounts: ['x'] })?.errors).toEqual([
      {
        pointer: '/accounts/0',
        message: 'must be object',
        keyword: 'type',
        schemaPath: 'account/list-accounts-response.json#/properties/accounts/prefixItems/0/type',
      },
    ]);
  });

  it('applies the file a storyboard step names when the set holds it, else the task’s own, saying so', () => {
    const set = openSchemaSet(FIXTURE_SET);
    const named = set.validateTaskResponse('get_products', { accounts: [] }, 'account/list-accounts-response.json');
    expect(named).toMatchObject({ valid: true, schema: { file: 'account/list-accounts-response.json' } });
    expect(named?.note).toBeUndefined();
    for (const ref of ['creative/get-products-response.json', '$test_kit.schemas.primary_response', '../manifest.json'])
      expect(set.validateTaskResponse('get_products', { products: [] }, ref)).toMatchObject({
        valid: true,
        schema: { file: 'media-buy/get-products-response.json' },
        note: `the set holds no ${JSON.stringify(ref)}; its get_products response schema media-buy/get-products-response.json was applied`,
      });
  });

  it('without a manifest, finds response schemas by name and the version in index.json', () => {
    const set = openSchemaSet(variant({ 'manifest.json': null, 'index.json': JSON.stringify({ adcp_version: '3.1.2' }) }));
    expect(set.line).toBe('3.1');
    expect([...set.responses.keys()].sort()).toEqual(['get_products', 'list_accounts']);
    expect(set.validateTaskResponse('get_products', { status: 'submitted', task_id: 't' })?.schema.file).toBe(
      'media-buy/get-products-async-response-submitted.json',
    );
  });
});

describe('a schema set that cannot be used', () => {
  const refused = (dir: string) => {
    try {
      openSchemaSet(dir);
    } catch (e) {
      expect(e).toBeInstanceOf(SchemaSetError);
      return (e as Error).message;
    }
    throw new Error(`${dir} was accepted`);
  };

  it('is refused when read, naming the directory or the file and what is wrong', () => {
    expect(refused('/nonexistent/schemas')).toBe('/nonexistent/schemas: no such directory');
    expect(refused(join(FIXTURE_SET, 'manifest.json'))).toMatch(/manifest\.json: not a directory/);
    expect(refused(variant({ 'manifest.json': '{"tools": ' }))).toMatch(/^manifest\.json: not JSON/);
    expect(refused(variant({ 'manifest.json': JSON.stringify({ tools: {} }) }))).toMatch(/names no release version/);
    expect(refused(variant({ 'manifest.json': JSON.stringify({ adcp_version: '2.5.0', tools: {} }) }))).toMatch(
      /version 2\.5\.0 is of no protocol line the harness judges \(3\.0, 3\.1, 3\.2\)/,
    );
    expect(refused(variant({ 'index.json': JSON.stringify({ adcp_version: '3.1.0' }) }))).toMatch(/manifest\.json and index\.json name different versions/);
    expect(refused(variant({ 'manifest.json': JSON.stringify({ adcp_version: '3.0.0', tools: [] }) }))).toBe('manifest.json: tools must be an object of tasks');
    expect(refused(variant({ 'manifest.json': JSON.stringify({ adcp_version: '3.0.0', tools: { x: { response_schema: '../x.json' } } }) }))).toBe(
      'manifest.json: tools.x.response_schema must be a path in the set',
    );
    expect(refused(variant({ 'manifest.json': JSON.stringify({ adcp_version: '3.0.0', tools: { x: {} } }) }))).toMatch(/holds no response schema of any task/);
    expect(refused(variant({ 'big.json': ' '.repeat(SCHEMA_SET_LIMITS.maxFileBytes + 1) }))).toBe(
      `big.json: larger than ${SCHEMA_SET_LIMITS.maxFileBytes} bytes`,
    );
    const empty = mkdtempSync(join(tmpdir(), 'schema-set-'));
    made.push(empty);
    expect(refused(empty)).toMatch(/no \*\.json files$/);
  });

  it('is refused when it holds more files than the bound', () => {
    const many: Record<string, string> = {};
    for (let i = 0; i <= SCHEMA_SET_LIMITS.maxFiles; i++) many[`many/f${i}.json`] = '{}';
    expect(refused(variant(many))).toMatch(new RegExp(`more than ${SCHEMA_SET_LIMITS.maxFiles} JSON files`));
  });

  it('fails only the task whose schema, or a file it reaches, cannot be compiled, naming the file, and keeps failing it', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ 'core/product.json': '{' }, /^core\/product\.json: not JSON/],
      [
        { 'core/product.json': JSON.stringify({ $schema: 'http://json-schema.org/draft-04/schema#', $id: '/schemas/3.0.0-fixture/core/product.json' }) },
        /core\/product\.json: \$schema .* is neither draft-07 nor 2020-12/,
      ],
      [
        { 'core/product.json': schema('core/elsewhere.json', {}) },
        /core\/product\.json: its \$id \/schemas\/3\.0\.0-fixture\/core\/elsewhere\.json does not end with its path/,
      ],
      [
        { 'core/product.json': schema('core/product.json', { type: 'no-such-type' }) },
        /^core\/product\.json: schema is invalid: data\/type must be equal to one of the allowed values/,
      ],
      [
        {
          'media-buy/get-products-response.json': schema('media-buy/get-products-response.json', {
            properties: { products: { $ref: '/schemas/3.0.0-fixture/core/absent.json' } },
          }),
        },
        /media-buy\/get-products-response\.json does not compile: .*absent\.json/,
      ],
    ];
    for (const [files, message] of cases) {
      const set = openSchemaSet(variant(files));
      expect(() => set.validateTaskResponse('get_products', { products: [product] }), JSON.stringify(files)).toThrow(message);
      expect(() => set.validateTaskResponse('get_products', { products: [] })).toThrow(message);
      expect(set.validateTaskResponse('list_accounts', { accounts: [] })?.valid).toBe(true);
    }
  });
});
