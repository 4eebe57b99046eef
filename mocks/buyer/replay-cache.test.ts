/** The replay cache wrapper of fault accepts-expired-window keeps the receiver's clock. */
import { describe, expect, it } from 'vitest';
import { InMemoryReplayCache, type ReplayCache } from '../../harness/core/signing/verify/replay-cache.js';
import { ClockedReplayCache } from './replay-cache.js';

describe('ClockedReplayCache', () => {
  it('reads and writes at the receiver clock whatever time the verifier judges at', () => {
    const inner = new InMemoryReplayCache({ perKeyidCap: 10 });
    inner.insert('k', 'live', 62, 1_000); // live until 1062
    const cache: ReplayCache = new ClockedReplayCache(inner, () => 1_000);
    // A future-dated signature judged at its own time (1121) must not sweep the live nonce.
    expect(cache.insert('k', 'future', 359, 1_121)).toBe('inserted');
    expect(inner.has('k', 'live', 1_001)).toBe(true);
    expect(cache.has('k', 'future', 5_000)).toBe(true);
    expect(inner.has('k', 'future', 1_358)).toBe(true);
    expect(inner.has('k', 'future', 1_359)).toBe(false);
  });

  it('without it, the same insert at the future time sweeps the live nonce (the fault the wrapper keeps out)', () => {
    const inner = new InMemoryReplayCache({ perKeyidCap: 10 });
    inner.insert('k', 'live', 62, 1_000);
    inner.insert('k', 'future', 359, 1_121);
    expect(inner.has('k', 'live', 1_001)).toBe(false);
  });
});
