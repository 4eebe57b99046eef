import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockContext, openMockContext } from '../testing/mock-context.js';
import { signatureMutations } from './signature-property.js';

describe('fuzz.signatures.mutation-refused against the reference mock', () => {
  let m: MockContext;
  beforeAll(async () => {
    m = await openMockContext();
  });
  afterAll(async () => {
    await m?.close();
  });

  it('passes with a fixed seed', async () => {
    const t0 = Date.now();
    const out = await signatureMutations.run(m.ctx, { seed: 1303, numRuns: 300 });
    console.log(
      `fuzz signatures mock: ${out.outcome} ${out.runs} mutations in ${Date.now() - t0} ms`,
      out.message ?? '',
      JSON.stringify(out.counterexample ?? ''),
    );
    expect(out.outcome).toBe('pass');
    expect(out.runs).toBe(300);
  });

  it('passes over A2A', async () => {
    const a2a = await openMockContext({}, 'a2a');
    try {
      const out = await signatureMutations.run(a2a.ctx, { seed: 1305, numRuns: 100 });
      expect(out.outcome, out.message).toBe('pass');
      expect(out.runs).toBe(100);
    } finally {
      await a2a.close();
    }
  });

  it('does not apply to an agent that does not verify signatures (as the signatures suite)', async () => {
    const plain = await openMockContext({ requestSigning: false });
    try {
      const out = await signatureMutations.run(plain.ctx, { seed: 1, numRuns: 5 });
      expect(out.outcome).toBe('not_applicable');
      expect(out.message).toMatch(/does not verify request signatures/);
    } finally {
      await plain.close();
    }
  });
});
