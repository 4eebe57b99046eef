/**
 * The seller's clock: wall time plus offsets that the test controller's `advance_clock` scenario
 * moves forward. Every TTL, expiry and flight-date decision reads this clock. An advance made for
 * an identified account (principal + account) moves only that account's time, so concurrent
 * checks in other accounts are unaffected; an advance without an account moves every account.
 * Offsets are persisted so a restarted seller on the same database keeps its notion of time.
 */
import type { MetaStore } from '../store/meta-store.js';

const GLOBAL_KEY = 'clock_offset_ms';

/** Whose time: a principal's account (`account` empty = the principal's account-less requests). */
export interface ClockScope {
  principal: string;
  account: string;
}

export class SellerClock {
  private readonly offsets = new Map<string, number>();

  constructor(private readonly meta: MetaStore) {}

  private key(scope?: ClockScope): string {
    return scope?.account ? `${GLOBAL_KEY}:${scope.principal}|${scope.account}` : GLOBAL_KEY;
  }

  private offset(key: string): number {
    let value = this.offsets.get(key);
    if (value === undefined) {
      const stored = Number(this.meta.get(key) ?? '0');
      value = Number.isFinite(stored) ? stored : 0;
      this.offsets.set(key, value);
    }
    return value;
  }

  /** Milliseconds since the epoch, as the seller sees them for this scope. */
  now(scope?: ClockScope): number {
    const global = this.offset(GLOBAL_KEY);
    const scoped = scope?.account ? this.offset(this.key(scope)) : 0;
    return Date.now() + global + scoped;
  }

  iso(scope?: ClockScope): string {
    return new Date(this.now(scope)).toISOString();
  }

  /** Moves the clock forward (for the scope's account, or for everyone); returns before/after (ms). */
  advance(seconds: number, scope?: ClockScope): { previous: number; current: number } {
    if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('seconds must be a finite number >= 0');
    const previous = this.now(scope);
    const step = Math.round(seconds * 1000);
    const key = this.key(scope);
    const next = this.offset(key) + step;
    this.offsets.set(key, next);
    this.meta.set(key, String(next));
    return { previous, current: previous + step };
  }
}
