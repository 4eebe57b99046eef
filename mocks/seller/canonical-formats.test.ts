/**
 * The mock seller's canonical formats (domain/format-selectors.ts): on line 3.1 a seeded product
 * keeps its format_options, inline pricing options and vendor metrics, get_products filters on
 * them, declares its cache layer and flags divergent declarations, and create_media_buy judges
 * package selectors against the declarations; on line 3.0 none of it is spoken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpTestClient } from './testing/wire-client.js';
import { createArgs, key, startTestSeller } from './testing/seller-fixtures.js';

const AAO = 'https://creative.example/';
const metric = (id: string) => ({ vendor: { domain: 'probe.example' }, metric_id: id });
const fixture = (metricId: string, extra: Record<string, unknown> = {}) => ({
  channels: ['display'],
  format_options: [{ format_kind: 'image', format_option_id: 'mrec', v1_format_ref: [{ agent_url: AAO, id: 'mrec_v1' }], params: { width: 300, height: 250 } }],
  format_ids: [{ agent_url: AAO, id: 'mrec_v1' }],
  pricing_options: [{ pricing_option_id: 'cpm', pricing_model: 'cpm', currency: 'USD', fixed_price: 5 }],
  reporting_capabilities: { vendor_metrics: [metric(metricId)] },
  ...extra,
});

async function open(line: '3.0' | '3.1') {
  const seller = await startTestSeller({ protocolLine: line });
  const client = new McpTestClient(seller.mcpUrl);
  await client.initialize();
  const seed = (product_id: string, f: Record<string, unknown>) =>
    client.ok('comply_test_controller', { scenario: 'seed_product', params: { product_id, fixture: f }, account: { sandbox: true } });
  const read = (metricId: string) => client.ok('get_products', { buying_mode: 'wholesale', filters: { required_vendor_metrics: [metric(metricId)] } });
  return { seller, client, seed, read };
}

describe('the mock seller on line 3.1', () => {
  let s: Awaited<ReturnType<typeof open>>;
  beforeAll(async () => {
    s = await open('3.1');
    await s.seed('cf_ok', fixture('m_ok'));
    await s.seed('cf_drift', fixture('m_drift', { format_ids: [{ agent_url: AAO, id: 'other_v1' }] }));
  });
  afterAll(() => s?.seller.close());

  it('lists a seeded product by its vendor metric with its declarations, and declares the cache layer', async () => {
    const r = await s.read('m_ok');
    expect((r.products as { product_id: string }[]).map((p) => p.product_id)).toEqual(['cf_ok']);
    expect(r).toMatchObject({ cache_scope: 'public', products: [{ format_options: [{ format_option_id: 'mrec' }] }] });
    expect(r.errors).toBeUndefined();
  });

  it('flags a product whose format_ids and v1_format_ref disagree, as the producer', async () => {
    expect((await s.read('m_drift')).errors).toEqual([
      expect.objectContaining({ code: 'FORMAT_DECLARATION_DIVERGENT', field: 'products[0]', source: 'producer' }),
    ]);
  });

  it('buys with a linked legacy id, a ref or a complete direct selector, and refuses a bare or unknown one naming the field', async () => {
    const create = (pkg: Record<string, unknown>) =>
      s.client.call('create_media_buy', createArgs({ packages: [{ product_id: 'cf_ok', pricing_option_id: 'cpm', budget: 100, ...pkg }] }));
    for (const pkg of [
      { format_ids: [{ agent_url: AAO, id: 'mrec_v1' }] },
      { format_option_refs: [{ scope: 'product', format_option_id: 'mrec' }] },
      { format_kind: 'image', params: { width: 300, height: 250 } },
    ])
      expect((await create(pkg)).isError, JSON.stringify(pkg)).toBe(false);
    expect((await create({ format_kind: 'image' })).payload).toMatchObject({ code: 'UNSUPPORTED_FEATURE', field: 'packages[0].format_kind' });
    expect((await create({ format_option_refs: [{ format_option_id: 'nope' }] })).payload).toMatchObject({
      code: 'UNSUPPORTED_FEATURE',
      field: 'packages[0].format_option_refs[0]',
    });
    expect((await create({ format_ids: [{ agent_url: AAO, id: 'x' }] })).payload).toMatchObject({
      code: 'UNSUPPORTED_FEATURE',
      field: 'packages[0].format_ids[0]',
    });
  });
});

describe('the mock seller on line 3.0', () => {
  it('keeps no canonical declarations, vendor metrics or cache layer', async () => {
    const s = await open('3.0');
    try {
      const id = `cf_${key().slice(0, 8)}`;
      await s.seed(id, fixture('m_old'));
      expect((await s.read('m_old')).products).toEqual([]);
      const all = await s.client.ok('get_products', { buying_mode: 'wholesale' });
      const p = (all.products as Record<string, unknown>[]).find((x) => x.product_id === id);
      expect(p).toBeDefined();
      expect(p?.format_options).toBeUndefined();
      expect(all.cache_scope).toBeUndefined();
    } finally {
      await s.seller.close();
    }
  });
});
