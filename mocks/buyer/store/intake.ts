/**
 * Admission of a verified delivery, in one durable transaction (interface spec 6.5):
 * - dedup on (verified sender identity, idempotency_key), shared across every endpoint, kept for
 *   the retention window (at least 24 h) measured from the first delivery;
 * - a duplicate is acknowledged (200, never 409) and not queued again: the first copy wins and
 *   payloads are not compared;
 * - a new key beyond the sender's bound is refused (429) instead of growing the store;
 * - a known `notification_id` under a new idempotency_key is a re-emission (queued and processed),
 *   not a transport retry (acknowledged only);
 * - a new delivery is written to the durable queue (inbox) in the same transaction.
 */
import { bumpCounter, type Db } from './db.js';
import type { GroupCommitter } from './commit.js';

export interface IntakeItem {
  /** Verified sender identity (never a payload field). */
  sender: string;
  /** Dedup scope: the sender identity (a fault may narrow it to sender + endpoint). */
  scope: string;
  endpoint: string;
  mode: string;
  idemKey: string;
  notificationId?: string;
  body: Buffer;
  /** Live dedup rows allowed for this scope. */
  bound: number;
  /** Milliseconds. */
  receivedAt: number;
  /** Fault `no-dedup`: duplicates are queued (and processed) again. */
  requeueDuplicates?: boolean;
  /** Fault `last-copy-wins`: this copy's task status; a duplicate whose first copy was processed with another status is processed again. */
  requeueIfStatusDiffers?: string;
  /** Fault `notification-id-dedup`: a re-emission (known notification_id, new key) is taken for a retry and dropped. */
  dedupOnNotificationId?: boolean;
}

export type IntakeOutcome =
  | { kind: 'accepted'; seq: number; deliveryKind: 'first' | 're-emission' }
  | { kind: 'duplicate'; seq: number; deliveries: number }
  | { kind: 'bound'; limit: number };

export class Intake {
  private readonly s;
  private readonly bump;

  constructor(
    private readonly db: Db,
    private readonly committer: GroupCommitter,
  ) {
    this.bump = bumpCounter(db);
    this.s = {
      dedup: db.prepare<[string, string], { seq: number; deliveries: number }>('SELECT seq, deliveries FROM dedup WHERE scope = ? AND idem_key = ?'),
      delivered: db.prepare('UPDATE dedup SET deliveries = deliveries + 1 WHERE scope = ? AND idem_key = ?'),
      count: db.prepare<[string], { n: number }>('SELECT n FROM sender_counts WHERE scope = ?'),
      countUp: db.prepare('INSERT INTO sender_counts (scope, n) VALUES (?, 1) ON CONFLICT(scope) DO UPDATE SET n = n + 1'),
      notification: db.prepare<[string, string], { idem_key: string }>('SELECT idem_key FROM notifications WHERE sender = ? AND notification_id = ?'),
      addNotification: db.prepare('INSERT INTO notifications (sender, notification_id, idem_key, first_seen) VALUES (?, ?, ?, ?)'),
      enqueue: db.prepare(
        'INSERT INTO inbox (sender, endpoint, mode, idem_key, delivery_kind, received_at, body) VALUES (@sender, @endpoint, @mode, @idem_key, @delivery_kind, @received_at, @body)',
      ),
      addDedup: db.prepare('INSERT INTO dedup (scope, idem_key, first_seen, endpoint, seq) VALUES (?, ?, ?, ?, ?)'),
      processedStatus: db.prepare<[number], { status: string | null }>('SELECT status FROM events WHERE seq = ?'),
    };
  }

  /** Admit a delivery; resolves after the transaction committed. */
  submit(item: IntakeItem): Promise<IntakeOutcome> {
    return this.committer.run(() => this.admit(item));
  }

  private enqueue(item: IntakeItem, deliveryKind: string): number {
    const r = this.s.enqueue.run({
      sender: item.sender,
      endpoint: item.endpoint,
      mode: item.mode,
      idem_key: item.idemKey,
      delivery_kind: deliveryKind,
      received_at: item.receivedAt,
      body: item.body,
    });
    return Number(r.lastInsertRowid);
  }

  private admit(item: IntakeItem): IntakeOutcome {
    const seen = this.s.dedup.get(item.scope, item.idemKey);
    if (seen) {
      this.s.delivered.run(item.scope, item.idemKey);
      this.bump('duplicates');
      if (item.requeueDuplicates) return { kind: 'accepted', seq: this.enqueue(item, 'retry'), deliveryKind: 'first' };
      if (item.requeueIfStatusDiffers !== undefined) {
        const first = this.s.processedStatus.get(seen.seq);
        if (first && first.status !== item.requeueIfStatusDiffers) return { kind: 'accepted', seq: this.enqueue(item, 'retry'), deliveryKind: 'first' };
      }
      return { kind: 'duplicate', seq: seen.seq, deliveries: seen.deliveries + 1 };
    }
    const live = this.s.count.get(item.scope)?.n ?? 0;
    if (live >= item.bound) {
      this.bump('bound_rejections');
      return { kind: 'bound', limit: item.bound };
    }
    let deliveryKind: 'first' | 're-emission' = 'first';
    if (item.notificationId !== undefined) {
      const prev = this.s.notification.get(item.sender, item.notificationId);
      if (!prev) this.s.addNotification.run(item.sender, item.notificationId, item.idemKey, item.receivedAt);
      else if (prev.idem_key !== item.idemKey) {
        if (item.dedupOnNotificationId) {
          this.bump('duplicates');
          return { kind: 'duplicate', seq: 0, deliveries: 2 };
        }
        deliveryKind = 're-emission';
        this.bump('re_emissions');
      }
    }
    const seq = this.enqueue(item, deliveryKind);
    this.s.addDedup.run(item.scope, item.idemKey, item.receivedAt, item.endpoint, seq);
    this.s.countUp.run(item.scope);
    return { kind: 'accepted', seq, deliveryKind };
  }

  /** Drop state older than the retention window (dedup measured from the first delivery). */
  prune(nowMs: number, retentionMs: number): Promise<number> {
    return this.committer.run(() => {
      const cutoff = nowMs - retentionMs;
      const dropped = this.db.prepare('DELETE FROM dedup WHERE first_seen < ?').run(cutoff).changes;
      if (dropped > 0) {
        this.db.prepare('DELETE FROM sender_counts').run();
        this.db.prepare('INSERT INTO sender_counts (scope, n) SELECT scope, COUNT(*) FROM dedup GROUP BY scope').run();
      }
      this.db.prepare('DELETE FROM notifications WHERE first_seen < ?').run(cutoff);
      this.db.prepare('DELETE FROM events WHERE received_at < ?').run(cutoff);
      this.db.prepare('DELETE FROM task_state WHERE updated_at < ?').run(cutoff);
      this.db.prepare('DELETE FROM nonces WHERE expires_at < ?').run(Math.floor(nowMs / 1000));
      return dropped;
    });
  }
}
