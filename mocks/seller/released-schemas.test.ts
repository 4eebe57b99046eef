/**
 * The reference mock seller answers in shapes valid under the protocol's released 3.0 JSON
 * Schemas (the bundled schemas shipped in the pinned @adcp/sdk package, read in place, never
 * copied), not only under the harness's own schemas written from the interface spec's field
 * tables. Every task with a released response schema is called with minimal valid arguments and
 * its answer validated; so are the answers the storyboards lean on most (an error's envelope).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMockSeller } from './index.js';
import { McpTestClient } from './testing/wire-client.js';
import { createArgs, startTestSeller } from './testing/seller-fixtures.js';
import { taskCases } from './testing/task-cases.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const BUNDLED = join(import.meta.dirname, '../../suites/interop/adcp-sdk-sellers/node_modules/@adcp/sdk/dist/lib/schemas-data/3.0/bundled');
const present = existsSync(BUNDLED);
if (!present) console.warn(`released-schemas.test.ts: skipped, the pinned @adcp/sdk package is not installed (${BUNDLED})`);

const LINE_DIR = join(BUNDLED, '..');

/**
 * Where the released response schema of a task lives: bundled/<domain>/<task-with-dashes>-response.json
 * (the media-buy copy first), else the unbundled <domain>/ file, whose $refs the whole line resolves.
 */
function schemaFileOf(task: string): string | undefined {
  const file = `${task.replaceAll('_', '-')}-response.json`;
  const firstMediaBuy = (dir: string) => readdirSync(dir).sort((a, b) => (a === 'media-buy' ? -1 : b === 'media-buy' ? 1 : a.localeCompare(b)));
  for (const d of firstMediaBuy(BUNDLED)) if (existsSync(join(BUNDLED, d, file))) return join(BUNDLED, d, file);
  for (const d of firstMediaBuy(LINE_DIR)) if (d !== 'bundled' && existsSync(join(LINE_DIR, d, file))) return join(LINE_DIR, d, file);
  return undefined;
}

/** Every unbundled schema of the line, registered by its $id so cross-file $refs resolve. */
function addLine(ajv: Ajv): void {
  for (const d of readdirSync(LINE_DIR, { withFileTypes: true })) {
    if (!d.isDirectory() || d.name === 'bundled') continue;
    for (const f of readdirSync(join(LINE_DIR, d.name), { recursive: true, encoding: 'utf8' })) {
      if (!f.endsWith('.json')) continue;
      const schema = JSON.parse(readFileSync(join(LINE_DIR, d.name, f), 'utf8')) as { $id?: string };
      if (schema.$id && !ajv.getSchema(schema.$id)) ajv.addSchema(schema);
    }
  }
}

/**
 * Where the interface spec (authoritative here) and the released 3.0 schema disagree, the mock
 * follows the interface spec. Interface spec 2.6 and 6.3 give delivery `spend` as
 * {amount, currency}; the released 3.0 delivery schema types it as a number.
 */
const INTERFACE_SPEC_OVER_RELEASED = [
  'get_media_buy_delivery /aggregated_totals/spend must be number',
  'get_media_buy_delivery /media_buy_deliveries/0/totals/spend must be number',
  'get_media_buy_delivery /media_buy_deliveries/0/by_package/0/spend must be number',
];

describe.skipIf(!present)('the mock seller under the released 3.0 schemas', () => {
  let seller: RunningMockSeller;
  let client: McpTestClient;
  let buyId: string;
  const ajv = present ? addFormats(new Ajv({ allErrors: true, strict: false })) : undefined;
  const compiled = new Map<string, ValidateFunction>();
  let lineAdded = false;
  const validate = (task: string, payload: unknown): string[] => {
    const file = schemaFileOf(task);
    if (!file || !ajv) return [`no released schema for ${task}`];
    let fn = compiled.get(file);
    if (!fn) {
      const schema = JSON.parse(readFileSync(file, 'utf8')) as { $id?: string };
      if (!file.includes('/bundled/') && !lineAdded) {
        addLine(ajv);
        lineAdded = true;
      }
      fn = (schema.$id && ajv.getSchema(schema.$id)) || ajv.compile(schema);
      compiled.set(file, fn);
    }
    return fn(payload) ? [] : (fn.errors ?? []).map((e) => `${task} ${e.instancePath || '/'} ${e.message}`);
  };

  beforeAll(async () => {
    seller = await startTestSeller({ token: 'adcp' });
    client = new McpTestClient(seller.mcpUrl);
    await client.initialize();
    buyId = (await client.ok('create_media_buy', createArgs())).media_buy_id as string;
  });
  afterAll(() => seller?.close());

  it('answers every task that has a released schema in a valid shape', async () => {
    // Every answer first, then the validation: compiling a line's schemas takes long enough on a
    // loaded machine for the server to close an idle keep-alive connection between two calls.
    const answers: [string, unknown][] = [];
    for (const [task, args] of taskCases(seller.baseUrl, buyId, 'adcp')) {
      if (schemaFileOf(task)) answers.push([task, await client.ok(task, { ...args, context: { correlation_id: 'released-schemas' } })]);
    }
    const judged = answers.map(([task]) => task);
    const errors = answers.flatMap(([task, payload]) => validate(task, payload));
    expect(errors).toEqual(INTERFACE_SPEC_OVER_RELEASED);
    expect(judged.length).toBeGreaterThanOrEqual(15);
  });
});
