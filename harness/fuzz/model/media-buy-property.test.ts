import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockContext, openMockContext } from '../testing/mock-context.js';
import { stateMachineModel } from './media-buy-property.js';

describe('fuzz.model.media-buy against the reference mock', () => {
  let m: MockContext;
  beforeAll(async () => {
    m = await openMockContext();
  });
  afterAll(async () => {
    await m?.close();
  });

  it('passes with fixed seeds', async () => {
    const t0 = Date.now();
    const out = await stateMachineModel.run(m.ctx, { seed: 1301, numRuns: 60 });
    console.log(
      `fuzz model mock: ${out.outcome} ${out.runs} sequences ${m.ctx.transport.stats().calls} calls in ${Date.now() - t0} ms`,
      out.message ?? '',
      JSON.stringify(out.counterexample ?? ''),
    );
    expect(out.outcome).toBe('pass');
    expect(out.runs).toBe(60);
  });
});
