/**
 * Why a step was not run, from its result alone: the step's own reason first, then the engine's
 * (blocked, inherited, the budget, and the run's selection, counted apart as not selected).
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../harness/core/engine/result.js';
import { skipOf } from './runner-output-skip.js';

const step = (over: Partial<CheckResult>): CheckResult => ({
  check_id: 'storyboard.sb.p.s',
  suite_id: 'storyboard.sb',
  title: 's',
  level: 'MUST',
  spec_ref: { doc: 'digest', section: '6.1', rule: 'r' },
  transport: 'mcp',
  outcome: 'not_applicable',
  duration_ms: 0,
  message: '',
  storyboard_step: { storyboard_id: 'sb', phase_id: 'p', step_id: 's', task: 'get_products' },
  ...over,
});
const none = () => undefined;

describe('the skip of a storyboard step', () => {
  it("is the step's own when it gave one, and none when it ran", () => {
    const own = { reason: 'missing_tool' as const, detail: 'the step calls x' };
    expect(skipOf(step({ storyboard_step: { ...step({}).storyboard_step!, skip: own } }), none)).toEqual(own);
    expect(skipOf(step({ outcome: 'pass' }), none)).toBeUndefined();
  });

  it('names the budget as the unsatisfied contract, and a block as the failed prerequisite', () => {
    expect(skipOf(step({ not_run: true, message: 'budget' }), none)?.reason).toBe('unsatisfied_contract');
    expect(skipOf(step({ outcome: 'blocked', blocked_by: 'storyboard.sb.p.a', message: 'blocked by storyboard.sb.p.a: x' }), none)).toEqual({
      reason: 'prerequisite_failed',
      detail: 'storyboard.sb.p.a did not pass: x',
    });
  });

  it("is not selected when the run's selection excluded it before it ran (its line, a transport not offered)", () => {
    expect(skipOf(step({ message: 'a rule of the 3.1 line; the run judges 3.0' }), none)).toEqual({
      reason: 'not_applicable',
      detail: 'a rule of the 3.1 line; the run judges 3.0',
      not_selected: true,
    });
  });
});
