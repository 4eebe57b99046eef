import { describe, expect, it } from 'vitest';
import { withRootCauses } from './root-cause.js';
import type { CheckDef, SuiteDef } from './model.js';
import type { CheckResult, Outcome } from './result.js';

const def = (id: string, rests_on?: string[]): CheckDef => ({
  id,
  title: id,
  level: 'MUST',
  spec: { doc: 'digest', section: '3.2' },
  steps: [],
  ...(rests_on ? { rests_on } : {}),
});
const result = (check_id: string, outcome: Outcome, transport: 'mcp' | 'a2a' = 'mcp', extra: Partial<CheckResult> = {}): CheckResult => ({
  check_id,
  suite_id: 's',
  title: check_id,
  level: 'MUST',
  spec_ref: { doc: 'digest', section: '3.2' },
  transport,
  outcome,
  duration_ms: 0,
  message: outcome,
  ...extra,
});

describe('root causes: one defect, one root', () => {
  const suites: SuiteDef[] = [{ id: 's', title: 's', checks: [def('s.a'), def('s.b', ['s.a']), def('s.c', ['s.b']), def('s.d', ['s.a']), def('s.e')] }];

  it('a failing check is its own root; one that rests on a failing check shares its root, through chains', () => {
    const out = withRootCauses(
      [result('s.a', 'fail'), result('s.b', 'fail'), result('s.c', 'warn'), result('s.d', 'pass'), result('s.e', 'blocked', 'mcp', { blocked_by: 's.c' })],
      suites,
    );
    expect(out.map((c) => [c.check_id, c.root_cause])).toEqual([
      ['s.a', 's.a'],
      ['s.b', 's.a'],
      ['s.c', 's.a'],
      ['s.d', undefined],
      ['s.e', 's.a'],
    ]);
  });

  it('is per transport, and a check resting on one that passed is its own root', () => {
    const out = withRootCauses(
      [result('s.a', 'pass', 'mcp'), result('s.a', 'fail', 'a2a'), result('s.b', 'fail', 'mcp'), result('s.b', 'fail', 'a2a')],
      suites,
    );
    expect(out.map((c) => `${c.transport} ${c.check_id} ${c.root_cause}`)).toEqual(['mcp s.a undefined', 'a2a s.a s.a', 'mcp s.b s.b', 'a2a s.b s.a']);
  });

  it('a blocked check roots at what blocked it, also the transport itself', () => {
    const out = withRootCauses([result('s.e', 'blocked', 'mcp', { blocked_by: 'transport.mcp' })], suites);
    expect(out[0]!.root_cause).toBe('transport.mcp');
  });

  it('ends on cycles of rests_on', () => {
    const cyclic: SuiteDef[] = [{ id: 's', title: 's', checks: [def('s.x', ['s.y']), def('s.y', ['s.x'])] }];
    const out = withRootCauses([result('s.x', 'fail'), result('s.y', 'fail')], cyclic);
    expect(new Set(out.map((c) => c.root_cause)).size).toBe(1);
  });
});
