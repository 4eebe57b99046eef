/**
 * The fuzzer against the reference mock seller on loopback, fixed seeds: nothing found on the
 * clean seller (no false positives), and the same verdicts when a long-lived seller is fuzzed
 * twice. The fault profiles are in kill-rate.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { startMockSeller } from '../../mocks/seller/index.js';
import type { TransportKind } from '../core/transport/types.js';
import { FUZZ_PROPERTIES, REQUEST_PROPERTIES } from './properties/index.js';
import { nearValidRefused } from './properties/near-valid-refused.js';
import { validAccepted } from './properties/valid-accepted.js';
import type { FuzzProperty } from './property.js';
import { runFuzz } from './run.js';
import { FUZZ_TASKS, MUTATING_RECORD_TASKS } from './requests.js';

const AUTH = 'fuzz-test-token-0123456789';

async function fuzzMock(o: {
  faults?: string[];
  transports: TransportKind[];
  runs: number;
  seed: number;
  tasks?: string[];
  properties?: readonly FuzzProperty[];
  observe?: (task: string, args: Record<string, unknown>) => void;
}) {
  const seller = await startMockSeller({ authToken: AUTH, faults: o.faults ?? [], bookingLatencyMs: 0 });
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
      observe: o.observe,
    });
  } finally {
    await seller.close();
  }
}

describe('fuzz against the reference mock seller', () => {
  // The model and signature properties have clean-seller tests of their own (harness/fuzz/model, harness/fuzz/signatures).
  it('finds nothing on the clean seller in thousands of cases (MCP and A2A, fixed seed)', async () => {
    let cases = 0;
    for (const [transport, runs] of [
      ['mcp', 200],
      ['a2a', 60],
    ] as const) {
      const run = await fuzzMock({ transports: [transport], runs, seed: 20261125, tasks: [...FUZZ_TASKS], properties: REQUEST_PROPERTIES });
      const bad = run.checks.filter((c) => c.outcome !== 'pass').map((c) => `${c.check_id}: ${c.message}`);
      expect(bad, transport).toEqual([]);
      // near-valid on the 2 mutating tasks (digest 3.2 rule 1), valid on 5, unknown tasks, push config on 3 read tasks, auth
      expect(run.checks).toHaveLength(12);
      expect(run.overall_status).toBe('passing');
      for (const c of run.checks) cases += Number(/^(\d+) case\(s\)/.exec(c.message)?.[1] ?? 0);
    }
    console.log(`fuzz on the clean mock: ${cases} request cases over MCP and A2A, nothing found`);
    expect(cases).toBeGreaterThanOrEqual(3000);
  }, 120_000);

  it('finds nothing on the clean seller in the other mutating tasks of spec 4.3 (near-valid requests, MCP and A2A)', async () => {
    for (const [transport, runs] of [
      ['mcp', 60],
      ['a2a', 15],
    ] as const) {
      const run = await fuzzMock({ transports: [transport], runs, seed: 20261129, tasks: [...MUTATING_RECORD_TASKS], properties: [nearValidRefused] });
      expect(
        run.checks.map((c) => `${c.check_id} ${c.outcome}`),
        transport,
      ).toEqual(MUTATING_RECORD_TASKS.map((t) => `fuzz.errors.near-valid-refused.${t} pass`));
    }
  }, 120_000);

  it('creates a media buy in setup only when a planned check may involve one', async () => {
    const perTask = [nearValidRefused, validAccepted];
    for (const [tasks, properties, creates] of [
      [['get_products'], perTask, false],
      [['capabilities', 'get_products'], perTask, false],
      [['get_products', 'update_media_buy'], perTask, true],
      [['get_media_buys'], perTask, true],
      // a check without a task draws from every task the agent lists, update_media_buy among them
      [['get_products'], REQUEST_PROPERTIES, true],
    ] as const) {
      const sent: string[] = [];
      const run = await fuzzMock({ transports: ['mcp'], runs: 2, seed: 7, tasks: [...tasks], properties, observe: (task) => sent.push(task) });
      const what = `${tasks.join(',')} (${properties.length} properties)`;
      expect(run.overall_status, what).toBe('passing');
      expect(sent.includes('create_media_buy'), what).toBe(creates);
    }
  });

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
          tasks: [...FUZZ_TASKS],
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
  }, 120_000);
});
