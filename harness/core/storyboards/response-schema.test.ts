/**
 * The schema a storyboard's response_schema validation applies: the released set's (the step's
 * response_schema_ref) when the run has a set of its target line, else the harness's own at the
 * target, saying why; the schema applied is recorded in the validation's result.
 */
import { describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProtocolLine } from '../protocol/lines.js';
import { createSchemaValidator } from '../schemas/validator.js';
import { openSchemaSet } from '../schemas/schema-set/compile.js';
import { SCHEMA_SET_FIXTURE } from '../schemas/testing/schema-set-fixture.js';
import type { StoryboardStep } from './model.js';
import { responseSchemaOf } from './response-schema.js';
import { judgeValidation, type StepOutcome } from './validations.js';

const step = (task: string, ref?: string) =>
  ({ id: 's', task, stateful: false, expectError: false, contextOutputs: [], validations: [], raw: ref ? { response_schema_ref: ref } : {} }) as StoryboardStep;
const ctx = (target: ProtocolLine, set = openSchemaSet(SCHEMA_SET_FIXTURE)) => ({
  schemas: { ...createSchemaValidator({ target }), released: set },
  target,
});
/** A product our own schemas take, without the publisher_properties the fixture set requires. */
const reply = {
  ok: true,
  payload: {
    products: [
      { product_id: 'p1', name: 'Run of network', pricing_options: [{ pricing_option_id: 'cpm', pricing_model: 'cpm', currency: 'USD', fixed_price: 5 }] },
    ],
  },
};
const judged = (c: ReturnType<typeof ctx>, s: StoryboardStep, o: StepOutcome = reply) =>
  judgeValidation({ check: 'response_schema', raw: {} }, o, { context: new Map(), responseSchema: (out) => responseSchemaOf(c, s, out) });

describe('a response_schema validation', () => {
  it('judges with the released set of the target line, at the file the step names, and records that schema', () => {
    expect(judged(ctx('3.0'), step('get_products', 'media-buy/get-products-response.json'))).toMatchObject({
      outcome: 'failed',
      message:
        "the response is not valid against the released 3.0.0-fixture schema media-buy/get-products-response.json: /products/0 must have required property 'publisher_properties' (core/product.json#/required)",
      expected: '/schemas/3.0.0-fixture/media-buy/get-products-response.json',
      pointer: '/products/0',
      schema: { set: 'released', file: 'media-buy/get-products-response.json', line: '3.0', version: '3.0.0-fixture' },
    });
  });

  it("judges with the harness's own at the target when the set is of another line, or has no schema of the task, saying why", () => {
    expect(judged(ctx('3.1'), step('get_products'))).toMatchObject({
      outcome: 'passed',
      message:
        "valid against the harness's schema get_products-response.json (line 3.1) (the released 3.0.0-fixture schemas (line 3.0) were not applied: the run targets 3.1)",
      schema: { set: 'harness', id: 'https://proto-comply.local/schemas/get_products-response.json', line: '3.1' },
    });
    expect(judged(ctx('3.0'), step('list_creative_formats'), { ok: true, payload: { formats: [] } })).toMatchObject({
      outcome: 'passed',
      message: expect.stringMatching(
        /^valid against the harness's schema list_creative_formats-response\.json \(line 3\.0\) \(the released 3\.0\.0-fixture schemas have no response schema of list_creative_formats\)$/,
      ),
      schema: { set: 'harness' },
    });
  });

  it('is not applicable, naming the file, when the released schema cannot be compiled; and judges no error reply', () => {
    const broken = mkdtempSync(join(tmpdir(), 'schema-set-'));
    try {
      cpSync(SCHEMA_SET_FIXTURE, broken, { recursive: true });
      writeFileSync(join(broken, 'core/product.json'), '{');
      expect(judged(ctx('3.0', openSchemaSet(broken)), step('get_products'))).toMatchObject({
        outcome: 'not_applicable',
        message: expect.stringMatching(/^the released 3\.0\.0-fixture schema of get_products could not be used: core\/product\.json: not JSON/),
      });
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
    expect(responseSchemaOf(ctx('3.0'), step('get_products'), { ok: false, payload: {} })).toBeUndefined();
  });
});
