/** The stateful chain as steps run: what breaks it, what leaves it whole, and what it says of later steps. */
import { describe, expect, it } from 'vitest';
import type { StoryboardPhase, StoryboardStep } from './model.js';
import { chainAfter, chainVerdict } from './stateful-chain.js';

const step = (id: string, stateful = true): StoryboardStep => ({ id, task: 't', stateful, expectError: false, contextOutputs: [], validations: [], raw: {} });
const phase = (steps: StoryboardStep[], optional = false): StoryboardPhase => ({ id: 'p', dependsOn: [], optional, steps, raw: {} });

describe('the stateful chain', () => {
  const a = step('a');
  const b = step('b');
  const two = phase([a, b]);

  it('is broken by a failure or a block (later stateful steps blocked by that step) and by a gap (later ones gaps)', () => {
    const failed = chainAfter(a, two, 'storyboard.s.p.a', { status: 'failed', message: 'no' }, undefined);
    expect(chainVerdict(b, two, failed)).toEqual({
      status: 'unmet',
      message: 'the stateful step before it did not hold (no)',
      blocked_by: 'storyboard.s.p.a',
    });
    const gap = chainAfter(a, two, 'storyboard.s.p.a', { status: 'gap', gap: 'x', message: 'not run' }, undefined);
    expect(chainVerdict(b, two, gap)).toMatchObject({ status: 'gap', message: 'the stateful step before it was not verified (not run)' });
    expect(chainVerdict(step('c', false), two, failed)).toBeUndefined();
  });

  it('makes later steps not applicable after a stateful step the agent does not offer, unless it was its phase only stateful step', () => {
    const absent = chainAfter(a, two, 'storyboard.s.p.a', { status: 'not_applicable', message: 'missing_tool: the agent does not list t' }, undefined);
    expect(chainVerdict(b, two, absent)).toMatchObject({ status: 'not_applicable' });
    const alone = phase([a, step('x', false)]);
    expect(
      chainAfter(a, alone, 'storyboard.s.p.a', { status: 'not_applicable', message: 'missing_tool: the agent does not list t' }, undefined),
    ).toBeUndefined();
  });

  it('stays whole after a pass, another not-applicable step, or any step of an optional phase', () => {
    expect(chainAfter(a, two, 'id', { status: 'ok' }, undefined)).toBeUndefined();
    expect(chainAfter(a, two, 'id', { status: 'not_applicable', message: 'optional phase p: a path the agent did not take' }, undefined)).toBeUndefined();
    const optional = phase([a, b], true);
    expect(chainAfter(a, optional, 'id', { status: 'failed', message: 'no' }, undefined)).toBeUndefined();
    expect(chainVerdict(b, optional, { kind: 'blocked', by: 'x', why: 'y' })).toBeUndefined();
  });
});
