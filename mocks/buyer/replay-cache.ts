/**
 * Replay cache for webhook signatures (digest 1.12, 1.16): one cache for every endpoint of the
 * receiver (cross-endpoint replay), answered from memory and written behind to the database in
 * the same group commit as the delivery it belongs to, and reloaded at start, so a restart
 * does not reopen the window for a live (keyid, nonce). Per-keyid and aggregate caps reject
 * (`webhook_signature_rate_abuse`) instead of evicting.
 */
import { InMemoryReplayCache, type ReplayCache, type ReplayInsertOutcome } from '../../harness/core/signing/verify/replay-cache.js';
import type { GroupCommitter } from './store/commit.js';
import type { Db } from './store/db.js';

export const DEFAULT_AGGREGATE_CAP = 1_000_000;

export class DurableReplayCache implements ReplayCache {
  private readonly mem: InMemoryReplayCache;
  private readonly persist;
  private readonly log: (line: string) => void;

  constructor(
    db: Db,
    private readonly committer: GroupCommitter,
    opts: { perKeyidCap: number; aggregateCap?: number; nowSeconds: number; log?: (line: string) => void },
  ) {
    this.mem = new InMemoryReplayCache({ perKeyidCap: opts.perKeyidCap, aggregateCap: opts.aggregateCap ?? DEFAULT_AGGREGATE_CAP });
    this.persist = db.prepare('INSERT OR REPLACE INTO nonces (keyid, nonce, expires_at) VALUES (?, ?, ?)');
    const now = opts.nowSeconds;
    const rows = db
      .prepare<[number], { keyid: string; nonce: string; expires_at: number }>(
        'SELECT keyid, nonce, expires_at FROM nonces WHERE expires_at > ? ORDER BY expires_at',
      )
      .all(now);
    for (const r of rows) this.mem.insert(r.keyid, r.nonce, r.expires_at - now, now);
    this.log = opts.log ?? (() => {});
  }

  capReached(keyid: string, now: number): boolean {
    return this.mem.capReached(keyid, now);
  }

  has(keyid: string, nonce: string, now: number): boolean {
    return this.mem.has(keyid, nonce, now);
  }

  insert(keyid: string, nonce: string, ttlSeconds: number, now: number): ReplayInsertOutcome {
    const outcome = this.mem.insert(keyid, nonce, ttlSeconds, now);
    if (outcome === 'inserted') {
      this.committer
        .run(() => this.persist.run(keyid, nonce, now + ttlSeconds))
        .catch((err: Error) => this.log(`replay cache: cannot persist nonce: ${err.message}`));
    }
    return outcome;
  }

  /** Live entries (all keyids). */
  size(): number {
    return this.mem.size();
  }
}

/** Fault `accepts-replayed-nonce`: a receiver without any replay cache. */
export class NoReplayCache implements ReplayCache {
  capReached(): boolean {
    return false;
  }
  has(): boolean {
    return false;
  }
  insert(): ReplayInsertOutcome {
    return 'inserted';
  }
}

/** Fault `replay-ttl-no-grace`: entries live until `expires` only, without the 60 s of digest 1.12. */
export class NoGraceReplayCache implements ReplayCache {
  constructor(private readonly inner: ReplayCache) {}
  capReached(keyid: string, now: number) {
    return this.inner.capReached(keyid, now);
  }
  has(keyid: string, nonce: string, now: number) {
    return this.inner.has(keyid, nonce, now);
  }
  insert(keyid: string, nonce: string, ttlSeconds: number, now: number) {
    return this.inner.insert(keyid, nonce, Math.max(1, ttlSeconds - 60), now);
  }
}

/**
 * A replay cache read and written at the receiver's own clock whatever time the verifier judges
 * at (fault `accepts-expired-window` judges the window at the signature's own time): a
 * future-dated signature must not sweep live nonces of other deliveries out of the cache.
 */
export class ClockedReplayCache implements ReplayCache {
  constructor(
    private readonly inner: ReplayCache,
    private readonly now: () => number,
  ) {}
  capReached(keyid: string) {
    return this.inner.capReached(keyid, this.now());
  }
  has(keyid: string, nonce: string) {
    return this.inner.has(keyid, nonce, this.now());
  }
  insert(keyid: string, nonce: string, ttlSeconds: number) {
    return this.inner.insert(keyid, nonce, ttlSeconds, this.now());
  }
}
