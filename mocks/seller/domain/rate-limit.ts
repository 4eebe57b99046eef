/**
 * The optional limit on idempotency-cache inserts (digest 3.2 rule 8): at most `inserts` new keys per
 * (principal, account) in any rolling window of `windowMs`. A request over the limit is refused with
 * RATE_LIMITED and an integer `retry_after` (digest 3.6: 1-3600 s) saying when the oldest insert of the
 * window leaves it; the refusal itself is never cached. Off unless the seller is started with `rateLimit`.
 */
import type { ErrorBody } from './errors.js';

export interface InsertRateLimit {
  /** New idempotency keys admitted per (principal, account) within one window. */
  inserts: number;
  /** The rolling window, ms. */
  windowMs: number;
}

/** Most (principal, account) scopes tracked at once; the least recently used is forgotten beyond it. */
const MAX_SCOPES = 10_000;

/** Throws a RangeError naming the member that is out of bounds. */
export function checkInsertRateLimit(limit: InsertRateLimit): void {
  if (!Number.isInteger(limit.inserts) || limit.inserts < 1) throw new RangeError(`rateLimit.inserts must be a positive integer, got ${limit.inserts}`);
  if (!Number.isInteger(limit.windowMs) || limit.windowMs < 1 || limit.windowMs > 3_600_000)
    throw new RangeError(`rateLimit.windowMs must be an integer of 1-3600000, got ${limit.windowMs}`);
}

export class InsertRateLimiter {
  private readonly seen = new Map<string, number[]>();

  constructor(readonly limit: InsertRateLimit) {
    checkInsertRateLimit(limit);
  }

  /** Admits one insert in the scope (and counts it), or gives the RATE_LIMITED refusal. */
  admit(principal: string, account: string, nowMs = Date.now()): ErrorBody | undefined {
    const id = `${principal}\u0000${account}`;
    const times = (this.seen.get(id) ?? []).filter((t) => t > nowMs - this.limit.windowMs);
    this.seen.delete(id);
    if (this.seen.size >= MAX_SCOPES) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(id, times);
    if (times.length < this.limit.inserts) {
      times.push(nowMs);
      return undefined;
    }
    const retryAfter = Math.min(3600, Math.max(1, Math.ceil((times[0] + this.limit.windowMs - nowMs) / 1000)));
    return {
      code: 'RATE_LIMITED',
      message: `too many new idempotency keys for this account; retry after ${retryAfter} s`,
      recovery: 'transient',
      retry_after: retryAfter,
    };
  }
}
