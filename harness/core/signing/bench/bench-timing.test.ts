import { describe, expect, it } from 'vitest';
import { pairedTiming } from './bench-timing.js';

// Structure only: timing values are never asserted in unit tests.
describe('pairedTiming', () => {
  it('alternates both contenders over the same call numbers and checks every result', async () => {
    const seenA: number[] = [];
    const seenB: number[] = [];
    const checked: number[] = [];
    const t = await pairedTiming(
      async (i) => {
        seenA.push(i);
        for (let k = 0; k < 20000; k++) Math.sqrt(k);
        return i * 2;
      },
      (i) => {
        seenB.push(i);
        for (let k = 0; k < 20000; k++) Math.sqrt(k);
        return i * 2;
      },
      {
        iterations: 40,
        block: 8,
        offset: 100,
        checkA: (v, i) => {
          expect(v).toBe(i * 2);
          checked.push(i);
        },
        checkB: (v, i) => expect(v).toBe(i * 2),
      },
    );
    const calls = Array.from({ length: 40 }, (_, k) => 100 + k);
    expect(seenA).toEqual(calls);
    expect(seenB).toEqual(calls);
    expect(checked).toEqual(calls);
    expect(t.blocks).toBe(5);
    expect(['cpu', 'wall']).toContain(t.clock);
    expect(t.iterations).toBe(40);
    expect(t.spread[0]).toBeLessThanOrEqual(t.ratio);
    expect(t.ratio).toBeLessThanOrEqual(t.spread[1]);
  });

  it('fails when a result does not pass its check', async () => {
    await expect(
      pairedTiming(
        () => false,
        () => true,
        { iterations: 4, block: 2, checkA: (v) => expect(v).toBe(true) },
      ),
    ).rejects.toThrow(/expected false to be true/);
  });
});
