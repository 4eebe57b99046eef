import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/core/engine/result.js';
import type { FaultDef } from '../../mocks/seller/faults.js';
import { groupRecheck, judgeGroup, runFaultMatrix } from './mock-run.js';

const fault = (name: string, targets: string[], collateral?: string[]): FaultDef => ({
  name,
  rule: name,
  targets,
  ...(collateral ? { collateral } : {}),
  matrixGroup: 'g',
});
const run = (checks: { id: string; outcome: string; blocked_by?: string; transport?: string }[]) =>
  ({
    checks: checks.map((c) => ({ check_id: c.id, transport: c.transport ?? 'mcp', outcome: c.outcome, message: '', blocked_by: c.blocked_by })),
  }) as unknown as RunResult;

describe('a matrix group', () => {
  const group = [fault('a', ['x.target-a'], ['x.collateral-a']), fault('b', ['y.target-b'])];
  const shared = run([
    { id: 'x.target-a', outcome: 'fail' },
    { id: 'y.target-b', outcome: 'fail' },
    { id: 'x.target-a', outcome: 'fail', transport: 'a2a' },
    { id: 'y.target-b', outcome: 'warn', transport: 'a2a' },
    // The cascade of a's target: the shared run cannot tell whether b alone would fail it.
    { id: 'x.after-a', outcome: 'blocked', blocked_by: 'x.target-a', transport: 'a2a' },
    { id: 'z.not-applicable', outcome: 'not_applicable' },
    { id: 'z.passes', outcome: 'pass' },
    { id: 'z.blocked-elsewhere', outcome: 'blocked', blocked_by: 'z.other' },
  ]);

  it('reruns, for each fault alone, the checks it names and those its shared run did not judge on their own', () => {
    expect(groupRecheck(group, shared)).toEqual(['x.after-a', 'x.collateral-a', 'x.target-a', 'y.target-b', 'z.not-applicable']);
  });

  it('takes the cascade of its checks in the shared run and flags any other finding for every fault', () => {
    const judged = judgeGroup(group, shared);
    expect(Object.fromEntries(judged.missed)).toEqual({ a: [], b: [] });
    expect(judged.unexpected).toEqual([expect.stringContaining('mcp z.blocked-elsewhere (blocked')]);
  });
});

describe('a matrix group at a protocol line', () => {
  it('refuses faults of different targets in one group before any run starts', async () => {
    const at32: FaultDef = { ...fault('at-3.2', ['x.a']), target: '3.2' };
    const atDefault = fault('at-default', ['x.b']);
    await expect(runFaultMatrix([at32, atDefault], { parallel: 1 })).rejects.toThrow(/share matrix group g/);
  });
});
