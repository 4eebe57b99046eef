/** The insert rate limit: a rolling window per (principal, account), the refusal's retry_after, the bounds. */
import { describe, expect, it } from 'vitest';
import { InsertRateLimiter, checkInsertRateLimit } from './rate-limit.js';

describe('insert rate limit', () => {
  it('admits `inserts` new keys per scope in the rolling window, then answers RATE_LIMITED until the oldest leaves it', () => {
    const l = new InsertRateLimiter({ inserts: 2, windowMs: 10_000 });
    expect(l.admit('p', 'a', 0)).toBeUndefined();
    expect(l.admit('p', 'a', 4_000)).toBeUndefined();
    expect(l.admit('p', 'a', 5_000)).toEqual({
      code: 'RATE_LIMITED',
      message: 'too many new idempotency keys for this account; retry after 5 s',
      recovery: 'transient',
      retry_after: 5,
    });
    // Another account and another principal have their own budget.
    expect(l.admit('p', 'b', 5_000)).toBeUndefined();
    expect(l.admit('q', 'a', 5_000)).toBeUndefined();
    // A refusal is not counted: once the first insert leaves the window, one more is admitted.
    expect(l.admit('p', 'a', 10_001)).toBeUndefined();
    expect(l.admit('p', 'a', 10_002)?.retry_after).toBe(4);
  });

  it('gives retry_after as whole seconds of 1-3600', () => {
    const l = new InsertRateLimiter({ inserts: 1, windowMs: 200 });
    l.admit('p', 'a', 0);
    expect(l.admit('p', 'a', 100)?.retry_after).toBe(1);
  });

  it('refuses limits out of bounds', () => {
    expect(() => checkInsertRateLimit({ inserts: 0, windowMs: 1000 })).toThrow(/inserts/);
    expect(() => checkInsertRateLimit({ inserts: 1, windowMs: 3_600_001 })).toThrow(/windowMs/);
    expect(() => checkInsertRateLimit({ inserts: 1.5, windowMs: 1000 })).toThrow(/inserts/);
  });
});
