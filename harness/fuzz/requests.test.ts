/**
 * The fuzzer's requests as an agent sees them: near-valid cases never carry a defect whose refusal
 * the spec leaves open, and idempotency keys are well-formed and never repeat, within a run or
 * across runs against the same seller.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { FuzzContext } from './property.js';
import { materializeKeys, NEAR_VALID_TASKS, nearValidRequests, validRequests } from './requests.js';

function context(nonce: string): FuzzContext {
  return {
    transport: { kind: 'mcp' } as FuzzContext['transport'],
    token: 'proto',
    account: { brand: { domain: 'example.com' }, operator: 'pc-0123456789ab.example' },
    product: { product_id: 'p1', pricing_option_id: 'po1', min_budget: 500 },
    mediaBuy: { media_buy_id: 'mb_1' },
    brand: { domain: 'example.com' },
    signal: new AbortController().signal,
    runSeed: 7,
    nonce,
  };
}

describe('near-valid requests', () => {
  it.each(NEAR_VALID_TASKS)('%s: no defect the spec leaves open (context, host-name syntax, budget bound, a read key)', (task) => {
    const samples = fc.sample(nearValidRequests(task, context('a')), { seed: 3, numRuns: 800 });
    const open = samples.filter(
      ({ defect: d }) =>
        d.pointer.startsWith('/context') ||
        d.kind === 'malformed-host' ||
        (d.pointer === '/packages/0/budget' && d.kind === 'out-of-range') ||
        (['get_products', 'get_media_buys'].includes(task) && d.pointer === '/idempotency_key'),
    );
    expect(open.map((s) => s.defect)).toEqual([]);
    expect(new Set(samples.map((s) => s.defect.pointer)).size).toBeGreaterThan(1);
  });

  it('leaves out the capabilities task, which takes no parameters', () => {
    expect(NEAR_VALID_TASKS).not.toContain('capabilities');
  });
});

describe('valid get_products requests', () => {
  it('name their buying_mode, send refine actions only on product scope, and never an empty ask', () => {
    for (const r of fc.sample(validRequests('get_products', context('a')), { seed: 5, numRuns: 500 })) {
      expect(['brief', 'refine']).toContain(r.buying_mode);
      for (const item of (r.refine as Array<Record<string, unknown>> | undefined) ?? []) {
        if (item.scope === 'request') expect(item).not.toHaveProperty('action');
        if (item.ask !== undefined) expect(String(item.ask).trim()).not.toBe('');
      }
    }
  });
});

describe('materialised idempotency keys', () => {
  it('are well-formed (digest 3.1; UUID v4 for the uuid shape) and unique within and across runs', () => {
    const seen = new Set<string>();
    for (const nonce of ['run-one', 'run-two']) {
      const ctx = context(nonce);
      for (let i = 0; i < 3000; i++) {
        const shape = ['uuid', 'min', 'max'][i % 3];
        const key = materializeKeys({ idempotency_key: `\u0000fuzz-key:${shape}` }, ctx).idempotency_key as string;
        expect(key).toMatch(/^[A-Za-z0-9_.:-]{16,255}$/);
        if (shape === 'uuid') expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
        if (shape === 'min') expect(key).toHaveLength(16);
        if (shape === 'max') expect(key).toHaveLength(255);
        expect(seen.has(key), key).toBe(false);
        seen.add(key);
      }
    }
  });
});
