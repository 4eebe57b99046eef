/** Test support: run fuzz.model.media-buy against the mock once per fault and judge detection, shrinking and replay. */
import { expect } from 'vitest';
import { type FaultDef, listFaults } from '../../../mocks/seller/faults.js';
import { stateMachineModel } from '../model/media-buy-property.js';
import { openMockContext } from './mock-context.js';

/** Faults of the two suites the model covers that it cannot reach: key expiry, the capability declaration. */
export const MODEL_OUT_OF_REACH = new Set(['idempotency-not-declared', 'expired-key-reexecuted']);

/** concurrent-double-create holds every keyed call 500 ms: fewer sequences. */
const RUNS: Record<string, number> = { 'concurrent-double-create': 8 };

/** Mock faults whose targets include a check of the suite (`state-machine` or `idempotency`), first target deciding. */
export function faultsOf(suite: 'state-machine' | 'idempotency'): FaultDef[] {
  return listFaults().filter((f) => f.targets.some((t) => t.startsWith('state-machine.') || t.startsWith('idempotency.')) && firstSuite(f) === suite);
}

function firstSuite(f: FaultDef): string {
  const t = f.targets.find((x) => x.startsWith('state-machine.') || x.startsWith('idempotency.'))!;
  return t.slice(0, t.indexOf('.'));
}

/** Runs every fault in reach; each must be violated, shrunk to the setup create plus at most 4 commands, and replay from seed and path. */
export async function killFaults(faults: readonly FaultDef[], label: string): Promise<void> {
  const killed: string[] = [];
  const missed: string[] = [];
  const t0 = Date.now();
  for (const fault of faults) {
    if (MODEL_OUT_OF_REACH.has(fault.name)) continue;
    const f0 = Date.now();
    const m = await openMockContext({ faults: [fault.name] });
    try {
      const out = await stateMachineModel.run(m.ctx, { seed: 1302, numRuns: RUNS[fault.name] ?? 200 });
      if (out.outcome !== 'violated') {
        missed.push(fault.name);
        continue;
      }
      killed.push(fault.name);
      const seq = out.counterexample as string[];
      console.log(`${fault.name} (${Date.now() - f0} ms): ${seq.length} commands ${JSON.stringify(seq)} :: ${out.message}`);
      const replay = await stateMachineModel.run(m.ctx, { seed: out.seed, numRuns: 1, path: out.path! });
      expect(replay.outcome, `${fault.name} replays`).toBe('violated');
      expect(replay.counterexample).toEqual(seq);
      expect(seq.length - 1, `${fault.name} shrinks`).toBeLessThanOrEqual(4);
    } finally {
      await m.close();
    }
  }
  const unreached = faults.filter((f) => MODEL_OUT_OF_REACH.has(f.name)).map((f) => f.name);
  console.log(
    `fuzz model kill rate: ${killed.length}/${faults.length} (${label}; ${unreached.length} out of reach, not run${unreached.length ? `: ${unreached.join(', ')}` : ''}; ${Date.now() - t0} ms); missed: ${missed.join(', ') || 'none'}`,
  );
  expect(missed).toEqual([]);
}
