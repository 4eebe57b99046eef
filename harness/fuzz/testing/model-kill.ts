/** Test support: run fuzz.model.media-buy against the mock with one fault, and judge detection, shrinking and replay. */
import { expect } from 'vitest';
import type { FaultDef } from '../../../mocks/seller/faults.js';
import { stateMachineModel, validActionsModel } from '../model/media-buy-property.js';
import { openMockContext } from './mock-context.js';

/**
 * Faults of the model's two suites it cannot reach, with the reason; the request properties hunt them instead.
 * A seller without idempotency declared is judged by the model on the state machine alone (digest 3.5: replay
 * semantics are the seller's only with idempotency.supported true), so the model cannot tell the missing
 * declaration from a seller without replays; the capabilities schema can (fuzz.schemas.valid-accepted.capabilities).
 */
export const MODEL_OUT_OF_REACH: Readonly<Record<string, string>> = {
  'idempotency-not-declared':
    'without the declaration the model checks the state machine only (digest 3.5), so a missing block is not a disagreement with it; fuzz.schemas.valid-accepted.capabilities judges the declaration',
};

/** concurrent-double-create holds every keyed call 500 ms: fewer sequences. */
const RUNS: Record<string, number> = { 'concurrent-double-create': 8 };

/**
 * Runs the model against the mock with `fault`; a violation must shrink to the setup create plus at
 * most 4 commands and replay from its seed and path. Returns the one-line finding, or undefined.
 */
export async function modelFinds(fault: FaultDef): Promise<string | undefined> {
  const m = await openMockContext({ faults: [fault.name] });
  try {
    // The MUST rules first; valid_actions (SHOULD) is the other property's.
    let property = stateMachineModel;
    let out = await property.run(m.ctx, { seed: 1302, numRuns: RUNS[fault.name] ?? 200 });
    if (out.outcome !== 'violated') {
      property = validActionsModel;
      out = await property.run(m.ctx, { seed: 1302, numRuns: RUNS[fault.name] ?? 200 });
    }
    if (out.outcome !== 'violated') return undefined;
    const seq = out.counterexample as string[];
    const replay = await property.run(m.ctx, { seed: out.seed, numRuns: 1, path: out.path! });
    expect(replay.outcome, `${fault.name} replays`).toBe('violated');
    expect(replay.counterexample).toEqual(seq);
    expect(seq.length - 1, `${fault.name} shrinks`).toBeLessThanOrEqual(4);
    return `${out.check_id}: ${seq.length} commands ${JSON.stringify(seq)} :: ${out.message}`;
  } finally {
    await m.close();
  }
}
