/**
 * Storyboards compiled into suites and run by the engine against the real mock seller on loopback,
 * over MCP and A2A: one check per step, blocked by the stateful step before it when that failed,
 * not applicable where the storyboard or the step does not apply, a gap for what the harness does
 * not run yet, advisory validations in their own SHOULD check.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../engine/result.js';
import { toComplianceDetail } from '../../../reports/compliance-detail.js';
import { validateAgentCompliance } from '../../../reports/json.js';
import { runFixtureBundle } from './testing/fixture-bundle.js';

let run: RunResult;
beforeAll(async () => {
  ({ run } = await runFixtureBundle());
}, 120_000);

const outcome = (id: string, transport = 'mcp') => {
  const c = run.checks.find((x) => x.check_id === id && x.transport === transport);
  return c ? `${c.outcome}${c.blocked_by ? ` by ${c.blocked_by}` : ''}` : 'missing';
};

describe('a storyboard bundle run by the engine', () => {
  it('runs with no harness error, over both transports', () => {
    expect(run.harness_error).toBeUndefined();
    expect(run.transports).toEqual(['mcp', 'a2a']);
    expect(run.checks.filter((c) => c.outcome === 'error')).toEqual([]);
  });

  it.each(['mcp', 'a2a'])('judges steps, captured context and the chain of stateful steps (%s)', (t) => {
    expect(outcome('storyboard.flow.discover.products', t)).toBe('pass');
    expect(outcome('storyboard.flow.discover.again', t)).toBe('pass');
    expect(outcome('storyboard.flow.broken.wrong', t)).toBe('fail');
    expect(outcome('storyboard.flow.broken.after', t)).toBe('blocked by storyboard.flow.broken.wrong');
  });

  it('puts advisory validations in a SHOULD check of their own', () => {
    const c = run.checks.find((x) => x.check_id === 'storyboard.flow.discover.products.advisory' && x.transport === 'mcp')!;
    expect(c).toMatchObject({ level: 'SHOULD', outcome: 'warn' });
    expect(c.message).toMatch(/an advisory that fails/);
  });

  it('says what it did not judge', () => {
    const c = run.checks.find((x) => x.check_id === 'storyboard.flow.discover.products' && x.transport === 'mcp')!;
    expect(c.message).toBe('2 validations passed, 0 failed, 1 not applicable (some_future_check: the harness does not judge some_future_check validations)');
  });

  it('is not applicable where the storyboard or the step does not apply, and a gap for what the harness does not run yet', () => {
    expect(outcome('storyboard.signals_only.p.s')).toBe('not_applicable');
    expect(run.checks.find((x) => x.check_id === 'storyboard.signals_only.p.s')?.message).toMatch(/does not list signals in supported_protocols/);
    expect(outcome('storyboard.flow.runner_side.observe')).toBe('gap');
    expect(outcome('storyboard.flow.runner_side.unlisted')).toBe('not_applicable');
  });

  it("seeds a storyboard's fixtures first; a controller that does not take them leaves the storyboard a gap, never a failure", () => {
    for (const t of ['mcp', 'a2a']) {
      expect(outcome('storyboard.seeded.controller-seeding', t)).toBe('pass');
      expect(outcome('storyboard.seeded.p.buy', t)).toBe('pass');
    }
    const refused = run.checks.find((x) => x.check_id === 'storyboard.clashing.controller-seeding' && x.transport === 'mcp')!;
    expect(refused.outcome).toBe('gap');
    expect(refused.message).toMatch(/^seed_product ctv_sports_premium: the controller did not take the fixture/);
    expect(outcome('storyboard.clashing.p.buy')).toBe('gap');
    const wrong = run.checks.find((x) => x.check_id === 'storyboard.misseeded.controller-seeding' && x.transport === 'mcp')!;
    expect([wrong.outcome, wrong.message]).toEqual(['not_applicable', "the storyboard's fixtures cannot be seeded: fixtures.products[0] needs product_id"]);
  });

  it.each(['mcp', 'a2a'])('judges a branch set by its assertion: a path not taken is not applicable, never a failure (%s)', (t) => {
    expect(outcome('storyboard.branches.refuse_path.refused', t)).toBe('not_applicable');
    expect(run.checks.find((x) => x.check_id === 'storyboard.branches.refuse_path.refused' && x.transport === t)?.message).toMatch(
      /^optional phase refuse_path \(branch set handled\): a path the agent did not take/,
    );
    expect(outcome('storyboard.branches.answer_path.answered', t)).toBe('pass');
    expect(outcome('storyboard.branches.never_path.never', t)).toBe('not_applicable');
    expect(outcome('storyboard.branches.enforce.handled', t)).toBe('pass');
    expect(outcome('storyboard.branches.enforce.never_handled', t)).toBe('fail');
  });

  it('fails a step that got an error it does not expect when none of its validations holds on it', () => {
    const c = run.checks.find((x) => x.check_id === 'storyboard.refusal.p.refused' && x.transport === 'mcp')!;
    expect([c.outcome, c.message]).toEqual(['fail', 'get_products answered an error (INVALID_REQUEST) and no validation of the step holds on it']);
  });

  it("reports in the registry's terms: the storyboard's own id and track, none for a storyboard without one", () => {
    const detail = toComplianceDetail(run);
    expect(detail.storyboard_statuses.map((s) => [s.storyboard_id, s.track, s.status])).toEqual([
      ['flow', 'core', 'failing'],
      ['seeded', null, 'passing'],
      ['clashing', null, 'untested'],
      ['branches', null, 'failing'],
      ['refusal', null, 'failing'],
    ]);
    // One entry per storyboard that applies (misseeded and signals_only do not), its first failed step by its own id.
    expect([detail.storyboards_passing, detail.storyboards_total]).toEqual([1, 5]);
    expect(detail.storyboard_statuses.find((s) => s.storyboard_id === 'flow')).toMatchObject({
      steps_total: 14,
      steps_passed: 6,
      failure_count: 2,
      skipped_count: 6,
      first_failed_step_id: 'wrong',
      first_failed_step_task: 'get_products',
    });
    expect(detail.track_details.find((t) => t.track === 'core')).toEqual({
      track: 'core',
      status: 'fail',
      scenario_count: 14,
      passed_count: 6,
      duration_ms: expect.any(Number),
      has_coverage_gap_skip: true,
    });
    // The report with these members is a valid agent-compliance document.
    expect(validateAgentCompliance({ ...run, compliance_detail: detail }).errors).toEqual([]);
    // Only flow has a track; a storyboard its bundle puts in none counts in no track (its status has track null).
    expect(detail.tracks).toEqual({ core: 'fail' });
  });
});
