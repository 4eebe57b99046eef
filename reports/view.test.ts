import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../harness/core/engine/result.js';
import { buildRunFixture } from './testing/run-result.js';
import { displayOutcome, groupChecks, groupsByLevel, severityRank, verdictsDiffer } from './view.js';

function result(outcome: CheckResult['outcome'], extra: Partial<CheckResult> = {}): CheckResult {
  return { ...buildRunFixture().checks[0], outcome, ...extra };
}

describe('view helpers', () => {
  it('shows a check cut short by the budget as not run', () => {
    expect(displayOutcome(result('gap', { not_run: true }))).toBe('not_run');
    expect(displayOutcome(result('gap'))).toBe('gap');
  });

  it('ranks new MUST failures first, baselined ones after, passes last', () => {
    const ranks = [
      severityRank(result('fail'), false),
      severityRank(result('error'), false),
      severityRank(result('fail', { baselined: true }), false),
      severityRank(result('warn', { level: 'SHOULD' }), false),
      severityRank(result('blocked', { level: 'MUST' }), false),
      severityRank(result('gap', { level: 'SHOULD' }), false),
      severityRank(result('gap', { not_run: true }), false),
      severityRank(result('info'), false),
      severityRank(result('not_applicable'), false),
      severityRank(result('pass'), false),
    ];
    expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
    expect(severityRank(result('warn', { level: 'SHOULD' }), true)).toBeLessThan(severityRank(result('warn', { level: 'SHOULD' }), false));
  });

  it('flags disagreement only between transports on which the check ran', () => {
    expect(verdictsDiffer([result('pass', { transport: 'mcp' }), result('fail', { transport: 'a2a' })])).toBe(true);
    expect(verdictsDiffer([result('fail'), result('warn', { transport: 'a2a' })])).toBe(true);
    expect(verdictsDiffer([result('fail'), result('error', { transport: 'a2a' })])).toBe(false);
    expect(verdictsDiffer([result('pass'), result('blocked', { transport: 'a2a' })])).toBe(false);
    expect(verdictsDiffer([result('pass'), result('not_applicable', { transport: 'a2a' })])).toBe(false);
    expect(verdictsDiffer([result('pass'), result('gap', { transport: 'a2a', not_run: true })])).toBe(false);
    expect(verdictsDiffer([result('pass')])).toBe(false);
  });

  it('groups a check across transports in the run transport order', () => {
    const run = buildRunFixture();
    run.checks.reverse();
    const groups = groupChecks(run);
    expect(groups).toHaveLength(10);
    for (const g of groups) expect(g.results.map((c) => c.transport)).toEqual(['mcp', 'a2a']);
    const byLevel = groupsByLevel(run, { onlyProblems: true });
    expect(byLevel.map((l) => l.level)).toEqual(['MUST', 'SHOULD', 'MAY']);
    expect(byLevel[0].groups.some((g) => g.check_id === 'capabilities.task.answers')).toBe(false);
  });
});
