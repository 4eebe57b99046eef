/**
 * The released 3.0 schemas shipped in the pinned @adcp/sdk (suites/interop/adcp-sdk-sellers), read
 * in place: every response schema its manifest names compiles, and they are stricter than the
 * harness's own, which were written from the interface spec's partial field lists.
 */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSchemaValidator } from '../validator.js';
import { openSchemaSet } from './compile.js';

const SDK = fileURLToPath(new URL('../../../../suites/interop/adcp-sdk-sellers/node_modules/@adcp/sdk/', import.meta.url));
const SDK_SET = join(SDK, 'dist/lib/schemas-data/3.0');
const present = existsSync(join(SDK_SET, 'manifest.json'));

/** A get_products reply valid against the released 3.0 schemas. */
const product = {
  product_id: 'display_ron',
  name: 'Display Run of Network',
  description: 'Standard display across the network',
  publisher_properties: [{ publisher_domain: 'news.example', selection_type: 'all' }],
  format_ids: [{ agent_url: 'https://creative.example/mcp', id: 'display_300x250' }],
  delivery_type: 'non_guaranteed',
  pricing_options: [{ pricing_option_id: 'cpm_usd', pricing_model: 'cpm', currency: 'USD', floor_price: 2 }],
  reporting_capabilities: {
    available_reporting_frequencies: ['daily'],
    expected_delay_minutes: 240,
    timezone: 'UTC',
    supports_webhooks: false,
    available_metrics: ['impressions'],
    date_range_support: 'date_range',
  },
};

describe.skipIf(!present)(
  `the released 3.0 schemas of @adcp/sdk${present ? '' : ' (skipped: @adcp/sdk not installed in suites/interop/adcp-sdk-sellers)'}`,
  () => {
    const set = present ? openSchemaSet(SDK_SET) : undefined;

    it('are a 3.0 set whose every response schema the manifest names compiles (one it names is missing: the test controller’s)', () => {
      expect(set?.line).toBe('3.0');
      expect(set?.version).toMatch(/^3\.0\.\d+$/);
      expect(set?.responses.size).toBeGreaterThan(50);
      expect([...(set?.missing.keys() ?? [])]).toEqual(['comply_test_controller']);
      for (const task of set?.responses.keys() ?? []) expect(() => set?.validateTaskResponse(task, {}), task).not.toThrow();
    });

    it('fail a get_products reply whose product lacks publisher_properties, which the harness’s own 3.0 schemas pass', () => {
      const ours = createSchemaValidator({ token: 'adcp', target: '3.0' });
      expect(set?.validateTaskResponse('get_products', { products: [product] })?.valid).toBe(true);
      const { publisher_properties: _, ...lacking } = product;
      const reply = { products: [lacking] };
      expect(ours.validateTaskResponse('get_products', reply)).toEqual({ valid: true, errors: [] });
      expect(set?.validateTaskResponse('get_products', reply)).toMatchObject({
        valid: false,
        errors: [
          {
            pointer: '/products/0',
            message: "must have required property 'publisher_properties'",
            keyword: 'required',
            schemaPath: 'core/product.json#/required',
          },
        ],
        schema: { id: `/schemas/${set?.version}/media-buy/get-products-response.json`, file: 'media-buy/get-products-response.json' },
      });
    });
  },
);

if (!present)
  console.warn('harness/core/schemas/schema-set: @adcp/sdk is not installed (suites/interop/adcp-sdk-sellers, npm ci), so its 3.0 schema tests skip');
