import { describe, expect, it } from 'vitest';
import { listFaults } from '../../../mocks/seller/faults.js';
import { openMockContext } from '../testing/mock-context.js';
import { stateMachineModel } from './media-buy-property.js';

/** Faults of the two suites the model covers that it cannot reach: key expiry, the capability declaration. */
const OUT_OF_REACH = new Set(['idempotency-not-declared', 'expired-key-reexecuted']);

/** concurrent-double-create holds every keyed call 500 ms: fewer sequences. */
const RUNS: Record<string, number> = { 'concurrent-double-create': 8 };

const targeted = listFaults().filter((f) => f.targets.some((t) => t.startsWith('state-machine.') || t.startsWith('idempotency.')));

describe('fuzz.model.media-buy finds the state-machine and idempotency faults of the mock', () => {
  it('kills every fault in reach, with a short shrunk sequence that replays', { timeout: 120_000 }, async () => {
    const killed: string[] = [];
    const missed: string[] = [];
    const t0 = Date.now();
    for (const fault of targeted) {
      if (OUT_OF_REACH.has(fault.name)) continue;
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
        // The setup create, then at most 4 generated commands for a single-rule fault.
        expect(seq.length - 1, `${fault.name} shrinks`).toBeLessThanOrEqual(4);
      } finally {
        await m.close();
      }
    }
    console.log(
      `fuzz model kill rate: ${killed.length}/${targeted.length} (${targeted.length - killed.length - missed.length} out of reach, not run: ${[...OUT_OF_REACH].join(', ')}; ${Date.now() - t0} ms); missed: ${missed.join(', ') || 'none'}`,
    );
    expect(missed).toEqual([]);
  });
});
