/**
 * The storyboard side-by-side tables, `storyboards-<agent>.md` beside this file: for each example
 * agent of @adcp/sdk (served over MCP and A2A), the SDK's 3.0.6 bundle run by the SDK's reference
 * runner (MCP) and by proto-comply (MCP, then A2A), each against a fresh copy of the agent
 * (testing/storyboard-tables.ts). Each regenerated table must equal the committed one, every
 * disagreement must have a reason in storyboard-reasons.yaml, and every reason there must explain
 * a disagreement of some agent. `UPDATE_INTEROP_TABLES=1` writes the tables instead of comparing
 * (the same as `node --import tsx suites/interop/testing/storyboard-tables.ts`). Skipped when
 * @adcp/sdk is not installed in adcp-sdk-sellers/.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunnerOutputDocument } from '../../reports/runner-output.js';
import { contractProblems, readContract } from '../../reports/testing/runner-output-contract.js';
import { INTEROP_AGENTS } from './testing/agents.js';
import { BUNDLE_DIR, SDK_DIR, sdkInstalled } from './testing/storyboard-runs.js';
import { RUNNER_CAPABILITY_VERSION } from '../../harness/core/storyboards/runner-capability.js';
import { reasonRef, renderStoryboardTable, tableRowsOf, unexplained, type Reasons, type SideBySide } from './testing/storyboard-table.js';
import { committedTable, forAgents, runBoth, sideBySide, tableFile, writeTable } from './testing/storyboard-tables.js';

const UPDATE = process.env.UPDATE_INTEROP_TABLES === '1';
const installed = sdkInstalled();
if (!installed) console.warn('storyboards.test.ts skipped: @adcp/sdk is not installed (npm ci in suites/interop/adcp-sdk-sellers)');

describe.skipIf(!installed)(`storyboards side by side with the reference runner of @adcp/sdk${installed ? '' : ' (skipped: @adcp/sdk not installed)'}`, () => {
  const tables = new Map<string, SideBySide>();
  const outputs = new Map<string, RunnerOutputDocument>();

  beforeAll(async () => {
    await forAgents(INTEROP_AGENTS, async (agent) => {
      const runs = await runBoth(agent);
      tables.set(agent.id, sideBySide(agent, runs));
      outputs.set(agent.id, runs.runnerOutput);
    });
  }, 240_000);

  for (const agent of INTEROP_AGENTS) {
    it(`${agent.id}: the committed table is the regenerated one`, () => {
      const table = renderStoryboardTable(tables.get(agent.id)!);
      if (UPDATE) return writeTable(agent, table);
      const committed = committedTable(agent);
      expect(committed, `${tableFile(agent)}: no table (UPDATE_INTEROP_TABLES=1 writes it)`).toBeDefined();
      const lines = (t: string) => new Set(t.split('\n'));
      const [now, then] = [lines(table), lines(committed!)];
      expect({ missing: [...then].filter((l) => !now.has(l)), extra: [...now].filter((l) => !then.has(l)) }, tableFile(agent)).toEqual({
        missing: [],
        extra: [],
      });
    });

    it(`${agent.id}: the runner output of our run follows the contract the bundle ships, over both transports`, () => {
      const doc = outputs.get(agent.id)!;
      expect(new Set(doc.step_results.map((s) => s.transport))).toEqual(new Set(['mcp', 'a2a']));
      expect(doc.harness_error).toBeUndefined();
      expect(contractProblems(doc, readContract(readFileSync(join(BUNDLE_DIR, 'universal', 'runner-output-contract.yaml'), 'utf8')))).toEqual([]);
    });

    it(`${agent.id}: every disagreement has a reason`, () => {
      expect(unexplained(tableRowsOf(tables.get(agent.id)!)).map((r) => r.key)).toEqual([]);
    });
  }

  it('judges at the capability version of the pinned reference runner (the version its tables hold us to)', () => {
    expect(RUNNER_CAPABILITY_VERSION).toBe((JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it('every reason explains a disagreement of some agent', () => {
    const all = [...tables.values()];
    const used = new Set<string>();
    for (const t of all)
      for (const r of tableRowsOf(t).filter((x) => x.agree.startsWith('no'))) {
        const ref = reasonRef(t.reasons, r.key, t.agent);
        if (ref) used.add(`${ref.key} #${ref.index}`);
      }
    const reasons: Reasons = all[0]?.reasons ?? new Map();
    const written = [...reasons].flatMap(([key, list]) => list.map((_, i) => `${key} #${i}`));
    expect(written.filter((k) => !used.has(k))).toEqual([]);
  });
});
