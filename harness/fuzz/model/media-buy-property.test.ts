import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockContext, openMockContext } from '../testing/mock-context.js';
import { stateMachineModel, validActionsModel } from './media-buy-property.js';

describe('fuzz.model.media-buy against the reference mock', () => {
  let m: MockContext;
  beforeAll(async () => {
    m = await openMockContext();
  });
  afterAll(async () => {
    await m?.close();
  });

  it.each([1301, 1311])('passes with the fixed seed %i', async (seed) => {
    const t0 = Date.now();
    const calls = m.ctx.transport.stats().calls;
    const out = await stateMachineModel.run(m.ctx, { seed, numRuns: 80 });
    console.log(
      `fuzz model mock (seed ${seed}): ${out.outcome} ${out.runs} sequences ${m.ctx.transport.stats().calls - calls} calls in ${Date.now() - t0} ms`,
      out.message ?? '',
      JSON.stringify(out.counterexample ?? ''),
    );
    expect(out.outcome).toBe('pass');
    expect(out.runs).toBe(80);
  });

  it('fuzz.model.valid-actions passes with a fixed seed, every sequence judged to its end', async () => {
    const out = await validActionsModel.run(m.ctx, { seed: 1303, numRuns: 60 });
    expect(out.outcome, out.message).toBe('pass');
    expect(out.message ?? '').not.toMatch(/ended at a disagreement/);
  });

  it('stops at the run budget without reporting a violation', async () => {
    const budget = new AbortController();
    setTimeout(() => budget.abort(), 300);
    const out = await stateMachineModel.run({ ...m.ctx, signal: budget.signal }, { seed: 1321, numRuns: 100_000 });
    expect(out.outcome).toBe('pass');
    expect(out.message).toMatch(/run budget ran out after \d+ of 100000 sequences/);
  });
});

describe('fuzz.model.media-buy without declared idempotency', () => {
  it('checks the state machine only, and says so', async () => {
    const m = await openMockContext({ faults: ['idempotency-not-declared'] });
    try {
      const out = await stateMachineModel.run(m.ctx, { seed: 1331, numRuns: 30 });
      expect(out.outcome).toBe('pass');
      expect(out.message).toMatch(/replays and key rules were not checked/);
    } finally {
      await m.close();
    }
  });
});

describe('fuzz.model.media-buy over A2A', () => {
  it('passes against the reference mock', async () => {
    const m = await openMockContext({}, 'a2a');
    try {
      const out = await stateMachineModel.run(m.ctx, { seed: 1341, numRuns: 40 });
      expect(out.outcome, out.message).toBe('pass');
      expect(out.runs).toBe(40);
    } finally {
      await m.close();
    }
  });
});
