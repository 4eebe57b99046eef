/**
 * `--fixtures FILE`: agent-specific setup values a certifier supplies without editing suites
 * (issue 11): the buyer's brand and brief, the account(s) to use, which product and pricing
 * option to buy and with what budget, and extra arguments for every call of a task. YAML,
 * validated strictly: an unknown or malformed field is an error naming the field.
 *
 * ```yaml
 * brand: { domain: acme-outdoor.example }
 * brief: Outdoor gear campaign, 25-44, US
 * account: { account_id: acc_123 }        # or { brand: { domain: … }, operator: … }
 * second_account: { account_id: acc_456 } # for checks that need two accounts
 * product: { product_id: prod_1, pricing_option_id: po_cpm, budget: 5000 }
 * tasks:
 *   get_products: { filters: { channels: [olv] } }
 * ```
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

export interface AccountRef {
  account_id?: string;
  brand?: { domain: string };
  operator?: string;
  [member: string]: unknown;
}

export interface Fixtures {
  brand?: { domain: string };
  brief?: string;
  account?: AccountRef;
  second_account?: AccountRef;
  product?: { product_id?: string; pricing_option_id?: string; budget?: number };
  /** A signals agent's destinations the run may activate segments to (interface spec 4.3 activate_signal destinations[]). */
  signals?: { destinations?: Array<Record<string, unknown> & { type: string }> };
  tasks?: Record<string, Record<string, unknown>>;
}

export class FixturesError extends Error {}

const MAX_FIXTURE_BYTES = 256 * 1024;
const DOMAIN = { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$' };
const ACCOUNT = {
  type: 'object',
  oneOf: [
    { required: ['account_id'], not: { anyOf: [{ required: ['brand'] }, { required: ['operator'] }] } },
    { required: ['brand', 'operator'], not: { required: ['account_id'] } },
  ],
  properties: {
    account_id: { type: 'string', minLength: 1, maxLength: 255 },
    brand: { type: 'object', required: ['domain'], additionalProperties: false, properties: { domain: DOMAIN } },
    operator: { type: 'string', minLength: 1, maxLength: 255 },
  },
  additionalProperties: false,
};

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    brand: { type: 'object', required: ['domain'], additionalProperties: false, properties: { domain: DOMAIN } },
    brief: { type: 'string', minLength: 1, maxLength: 20_000 },
    account: ACCOUNT,
    second_account: ACCOUNT,
    product: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        product_id: { type: 'string', minLength: 1 },
        pricing_option_id: { type: 'string', minLength: 1 },
        budget: { type: 'number', exclusiveMinimum: 0 },
      },
      dependentRequired: { pricing_option_id: ['product_id'] },
    },
    signals: {
      type: 'object',
      additionalProperties: false,
      properties: {
        destinations: {
          type: 'array',
          minItems: 1,
          maxItems: 16,
          items: { type: 'object', required: ['type'], properties: { type: { type: 'string', minLength: 1 }, platform: { type: 'string', minLength: 1 } } },
        },
      },
    },
    tasks: {
      type: 'object',
      propertyNames: { pattern: '^[a-z][a-z0-9_]*$' },
      additionalProperties: { type: 'object' },
    },
  },
  dependentRequired: { second_account: ['account'] },
};

const validate = new Ajv2020({ allErrors: true, strict: false }).compile(SCHEMA);

function describe(errors: ErrorObject[]): string {
  const e =
    errors.find((x) => x.keyword === 'additionalProperties') ??
    errors.find((x) => x.keyword === 'oneOf') ??
    errors.find((x) => x.keyword !== 'not' && x.keyword !== 'required') ??
    errors[0];
  const at = e.instancePath || '(top level)';
  if (e.keyword === 'additionalProperties')
    return `${at === '(top level)' ? '' : `${at}: `}unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  if (e.keyword === 'oneOf' || e.keyword === 'not') return `${at}: an account is either {account_id} or {brand: {domain}, operator}`;
  if (e.keyword === 'dependentRequired') {
    const p = e.params as { property: string; missingProperty: string };
    return `${at}: ${p.property} needs ${p.missingProperty}`;
  }
  return `${at}: ${e.message}`;
}

/** Validates parsed fixtures; throws FixturesError naming the bad field. */
export function validateFixtures(data: unknown, source = 'fixtures'): Fixtures {
  if (data === null || data === undefined) return {};
  if (!validate(data)) throw new FixturesError(`${source}: ${describe(validate.errors ?? [])}`);
  return data as Fixtures;
}

/** Reads and validates a fixtures file (YAML or JSON). */
export function loadFixtures(path: string): Fixtures {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new FixturesError(`fixtures ${path}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (Buffer.byteLength(text) > MAX_FIXTURE_BYTES) throw new FixturesError(`fixtures ${path}: larger than ${MAX_FIXTURE_BYTES} bytes`);
  let data: unknown;
  try {
    data = parse(text, { uniqueKeys: true, maxAliasCount: 100 });
  } catch (e) {
    throw new FixturesError(`fixtures ${path}: not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  return validateFixtures(data, `fixtures ${path}`);
}

/** The fixtures a run was given (RunFacts.fixtures), or none. */
export function fixturesOf(run: { fixtures?: unknown }): Fixtures {
  return (run.fixtures as Fixtures | undefined) ?? {};
}

export const DEFAULT_BRAND_DOMAIN = 'example.com';
export const DEFAULT_BRIEF = 'Video campaign for a sports drink, 25-34 year olds, United States';
