/** The diff renderings in process: section order, caps, the verdict line, inert and escaped text. */
import { describe, expect, it } from 'vitest';
import type { CheckResult, RunResult } from '../harness/core/engine/result.js';
import { diffRuns } from '../harness/core/engine/run-diff.js';
import { buildDiffJson, renderDiffMarkdown, renderDiffText } from './run-diff.js';
import { buildRunFixture } from './testing/run-result.js';

function withOutcomes(run: RunResult, outcome: (c: CheckResult, i: number) => CheckResult['outcome']): RunResult {
  return { ...run, checks: run.checks.map((c, i) => ({ ...c, outcome: outcome(c, i), message: `message ${i}` })) };
}

describe('renderDiffText / renderDiffMarkdown / buildDiffJson', () => {
  const base = buildRunFixture({ withoutHarnessError: true });
  const before = withOutcomes(base, () => 'pass');
  // every check but the first: pass → not_applicable (changed); the first: pass → fail (regressed)
  const after = withOutcomes(base, (_c, i) => (i === 0 ? 'fail' : 'not_applicable'));
  const input = { before: { file: 'a.json', run: before }, after: { file: 'b.json', run: after }, diff: diffRuns(before, after) };

  it('lists regressions in full, caps the other sections, and ends with the verdict', () => {
    expect(input.diff.regressed).toHaveLength(1);
    expect(input.diff.changed.length).toBeGreaterThan(3);
    const text = renderDiffText(input, { maxRows: 2 });
    const first = after.checks[0];
    expect(text).toContain(`Regressed (1):\n  ✗ ${first.check_id} [${first.transport}]: pass → fail — message 0\n`);
    expect(text).toContain(`  … and ${input.diff.changed.length - 2} more (--format json lists them all)`);
    expect(text.indexOf('Regressed (')).toBeLessThan(text.indexOf('Changed ('));
    expect(text.trimEnd().split('\n').at(-1)).toBe('Verdict: 1 regression');
    const md = renderDiffMarkdown(input, { maxRows: 2 });
    expect(md).toMatch(/^## proto-comply diff: ❌ 1 regression\n/);
    expect(md).toContain(`… and ${input.diff.changed.length - 2} more`);
    const json = buildDiffJson(input) as { counts: Record<string, number>; changed: unknown[] };
    expect(json.counts.changed).toBe(input.diff.changed.length);
    expect(json.changed).toHaveLength(input.diff.changed.length);
  });

  it('a removed check shows the before run message; no regression reads "no regressions"', () => {
    const fewer = { ...before, checks: before.checks.slice(1) };
    const diff = diffRuns(before, fewer);
    const text = renderDiffText({ before: { file: 'a', run: before }, after: { file: 'b', run: fewer }, diff });
    expect(text).toContain(`Removed (only in the before run) (1):\n  - ${before.checks[0].check_id} [${before.checks[0].transport}]: was pass — message 0`);
    expect(text).toMatch(/Verdict: no regressions\n$/);
  });
});
