/**
 * Replay cache keyed by (keyid, nonce) (digest 1.12). TTL = (expires - now) + 60 s. Each keyid
 * has a cap; when it is full the cache REJECTS (`*_rate_abuse`), it never evicts a live entry
 * to make room. An optional aggregate cap bounds the whole cache the same way.
 *
 * The interface may be implemented by a durable or shared store later; methods may return
 * promises. `insert` must be atomic with the cap check.
 */

type MaybePromise<T> = T | Promise<T>;

export type ReplayInsertOutcome = 'inserted' | 'replayed' | 'cap_reached';

export interface ReplayCache {
  /** Step 9a: read-only, true when the keyid's cap (or the aggregate cap) is reached. */
  capReached(keyid: string, now: number): MaybePromise<boolean>;
  /** Step 12: the (keyid, nonce) pair is live. */
  has(keyid: string, nonce: string, now: number): MaybePromise<boolean>;
  /** Step 13: insert atomically with the cap check. */
  insert(keyid: string, nonce: string, ttlSeconds: number, now: number): MaybePromise<ReplayInsertOutcome>;
}

export interface InMemoryReplayCacheOptions {
  /** Live entries allowed per keyid. Recommended 1,000,000 for requests, 100,000 for webhooks. */
  perKeyidCap: number;
  /** Live entries allowed in total (webhooks: min(memory budget, 10M)). Default: unbounded. */
  aggregateCap?: number;
}

export const REQUEST_PER_KEYID_CAP = 1_000_000;
export const WEBHOOK_PER_KEYID_CAP = 100_000;
/** Slack added to `expires - now` for the TTL. */
export const REPLAY_TTL_SLACK_SECONDS = 60;

/** Replay TTL for a signature: (expires - now) + 60 s, never negative. */
export function replayTtlSeconds(expires: number, now: number): number {
  return Math.max(0, expires - now) + REPLAY_TTL_SLACK_SECONDS;
}

/** One keyid's live nonces (nonce → expiry, unix seconds) in insertion order. */
interface KeyidNonces {
  nonces: Map<string, number>;
  /**
   * Expiry of the first (oldest) entry, Infinity when empty: before then the quick sweep has
   * nothing to drop, so inserts skip it.
   */
  headExpiry: number;
}

/** In-memory store: per keyid a Map nonce → expiry (unix seconds), swept lazily. */
export class InMemoryReplayCache implements ReplayCache {
  private readonly byKeyid = new Map<string, KeyidNonces>();
  /** The last keyid looked up and its entry (the cap read and the insert of one request). */
  private lastKeyid: string | undefined;
  private lastEntry: KeyidNonces | undefined;
  private total = 0;
  private readonly perKeyidCap: number;
  private readonly aggregateCap: number;

  constructor(opts: InMemoryReplayCacheOptions) {
    if (!Number.isInteger(opts.perKeyidCap) || opts.perKeyidCap < 1) {
      throw new RangeError('perKeyidCap must be a positive integer');
    }
    this.perKeyidCap = opts.perKeyidCap;
    this.aggregateCap = opts.aggregateCap ?? Number.POSITIVE_INFINITY;
  }

  /** Live entries for a keyid (after sweeping expired ones). */
  size(keyid?: string, now?: number): number {
    if (keyid === undefined) return this.total;
    const k = this.entry(keyid);
    if (!k) return 0;
    if (now !== undefined) this.sweep(k, now, true);
    this.dropIfEmpty(keyid, k);
    return k.nonces.size;
  }

  capReached(keyid: string, now: number): boolean {
    const k = this.entry(keyid);
    if (k && k.nonces.size >= this.perKeyidCap) {
      this.sweep(k, now, true);
      this.dropIfEmpty(keyid, k);
    }
    return (k !== undefined && k.nonces.size >= this.perKeyidCap) || this.total >= this.aggregateCap;
  }

  has(keyid: string, nonce: string, now: number): boolean {
    const exp = this.entry(keyid)?.nonces.get(nonce);
    return exp !== undefined && exp > now;
  }

  insert(keyid: string, nonce: string, ttlSeconds: number, now: number): ReplayInsertOutcome {
    let k = this.entry(keyid);
    if (!k) {
      k = { nonces: new Map(), headExpiry: Number.POSITIVE_INFINITY };
      this.byKeyid.set(keyid, k);
      this.lastKeyid = keyid;
      this.lastEntry = k;
    }
    const m = k.nonces;
    if (k.headExpiry <= now) this.sweep(k, now, false);
    const exp = m.get(nonce);
    if (exp !== undefined && exp > now) return 'replayed';
    if (m.size >= this.perKeyidCap) this.sweep(k, now, true);
    if (m.size >= this.perKeyidCap || this.total >= this.aggregateCap) {
      this.dropIfEmpty(keyid, k);
      return 'cap_reached';
    }
    if (exp !== undefined) {
      m.delete(nonce); // expired entry (never the head: the head is live after the sweep): re-insert at the tail
      this.total--;
    }
    m.set(nonce, now + ttlSeconds);
    if (m.size === 1) k.headExpiry = now + ttlSeconds;
    this.total++;
    return 'inserted';
  }

  /**
   * Drop expired entries. The quick sweep stops at the first live entry (insertion order is
   * nearly expiry order); the full sweep visits every entry of the keyid. Either way the head
   * expiry is brought up to date.
   */
  private sweep(k: KeyidNonces, now: number, full: boolean): void {
    let head = Number.POSITIVE_INFINITY;
    for (const [nonce, exp] of k.nonces) {
      if (exp <= now) {
        k.nonces.delete(nonce);
        this.total--;
      } else {
        if (head === Number.POSITIVE_INFINITY) head = exp;
        if (!full) break;
      }
    }
    k.headExpiry = head;
  }

  private entry(keyid: string): KeyidNonces | undefined {
    if (keyid === this.lastKeyid) return this.lastEntry;
    const k = this.byKeyid.get(keyid);
    this.lastKeyid = keyid;
    this.lastEntry = k;
    return k;
  }

  private dropIfEmpty(keyid: string, k: KeyidNonces): void {
    if (k.nonces.size > 0) return;
    this.byKeyid.delete(keyid);
    if (this.lastEntry === k) this.lastKeyid = this.lastEntry = undefined;
  }
}
