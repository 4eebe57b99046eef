/**
 * The fuzzer against the reference mock seller on loopback, fixed seeds: nothing found on the
 * clean seller (no false positives), and each fault profile that breaks request validation or a
 * response rule is found by the property that covers it (the kill rate is printed).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startMockSeller } from '../../mocks/seller/index.js';
import type { TransportKind } from '../transport/types.js';
import { FUZZ_PROPERTIES } from './properties/index.js';
import { nearValidRefused } from './properties/near-valid-refused.js';
import { validAccepted } from './properties/valid-accepted.js';
import type { FuzzProperty } from './property.js';
import { runFuzz } from './run.js';

const AUTH = 'fuzz-test-token-0123456789';

async function fuzzMock(o: {
  faults?: string[];
  transports: TransportKind[];
  runs: number;
  seed: number;
  tasks?: string[];
  properties?: readonly FuzzProperty[];
}) {
  const seller = await startMockSeller({ authToken: AUTH, faults: o.faults ?? [] });
  try {
    return await runFuzz({
      agentUrl: seller.baseUrl,
      transports: o.transports,
      token: 'proto',
      authToken: AUTH,
      seed: o.seed,
      runs: o.runs,
      tasks: o.tasks,
      properties: o.properties ?? FUZZ_PROPERTIES,
      reportFile: 'fuzz-report/agent-compliance.json',
      command: 'test',
    });
  } finally {
    await seller.close();
  }
}

describe('fuzz against the reference mock seller', () => {
  // The model and signature properties have clean-seller tests of their own (harness/fuzz/model, harness/fuzz/signatures).
  it('finds nothing on the clean seller (MCP and A2A, fixed seed)', async () => {
    for (const [transport, runs] of [
      ['mcp', 100],
      ['a2a', 30],
    ] as const) {
      const run = await fuzzMock({ transports: [transport], runs, seed: 20261125, properties: [nearValidRefused, validAccepted] });
      const bad = run.checks.filter((c) => c.outcome !== 'pass').map((c) => `${c.check_id}: ${c.message}`);
      expect(bad, transport).toEqual([]);
      expect(run.checks).toHaveLength(8);
      expect(run.overall_status).toBe('passing');
    }
  }, 60_000);

  it('gives the same verdicts when the same long-lived seller is fuzzed twice with the same seed (fresh accounts and keys)', async () => {
    const seller = await startMockSeller({ authToken: AUTH });
    try {
      const once = () =>
        runFuzz({
          agentUrl: seller.baseUrl,
          transports: ['mcp'],
          token: 'proto',
          authToken: AUTH,
          seed: 99,
          runs: 30,
          properties: FUZZ_PROPERTIES,
          reportFile: 'r',
          command: 'test',
        });
      const [a, b] = [await once(), await once()];
      const verdicts = (r: typeof a) => r.checks.map((c) => `${c.check_id} ${c.outcome}`);
      expect(verdicts(b)).toEqual(verdicts(a));
      expect(a.checks.every((c) => c.outcome === 'pass')).toBe(true);
    } finally {
      await seller.close();
    }
  }, 30_000);

  const FAULTS: Array<{ fault: string; property: FuzzProperty; tasks: string[] }> = [
    { fault: 'missing-key-accepted', property: nearValidRefused, tasks: ['create_media_buy'] },
    { fault: 'malformed-key-accepted', property: nearValidRefused, tasks: ['create_media_buy'] },
    { fault: 'context-not-echoed', property: validAccepted, tasks: ['get_products'] },
    { fault: 'sandbox-flag-string', property: validAccepted, tasks: ['get_media_buys'] },
    { fault: 'product-schema-invalid', property: validAccepted, tasks: ['get_products'] },
    { fault: 'initial-revision-zero', property: validAccepted, tasks: ['create_media_buy'] },
    { fault: 'read-rejects-idempotency-key', property: validAccepted, tasks: ['get_media_buys'] },
  ];
  const found: string[] = [];
  afterAll(() => {
    console.log(`fuzz kill rate: ${found.length}/${FAULTS.length} faults found`);
  });

  it.each(FAULTS)(
    'finds the $fault fault with $property.id',
    async ({ fault, property, tasks }) => {
      const run = await fuzzMock({ faults: [fault], transports: ['mcp'], runs: 100, seed: 7, tasks, properties: [property] });
      const failed = run.checks.filter((c) => c.outcome === 'fail');
      expect(failed.map((c) => c.check_id)).toEqual(tasks.map((t) => `${property.id}.${t}`));
      found.push(fault);
      // The shrunk counterexample, its seed and path, and the replay command are the evidence.
      const actual = failed[0].evidence?.actual as { fuzz: { seed: number; path: string; counterexample: unknown } } | undefined;
      expect(actual).toBeDefined();
      const fz = actual!.fuzz;
      expect(fz.seed).toBe(7);
      expect(fz.path).toMatch(/^\d+(:\d+)*$/);
      expect(fz.counterexample).toBeDefined();
      expect(failed[0].evidence?.notes?.[0]).toMatch(/^replay: npx proto-comply fuzz --replay '.*#.*@mcp'$/);
    },
    30_000,
  );
});
