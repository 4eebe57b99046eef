/**
 * Durable idempotency entries (digest 3.2, 3.4). One row per (principal, account, key hash); the
 * key itself is a secret (digest 3.7), so only its SHA-256 is stored. A row is claimed in flight
 * with INSERT ... ON CONFLICT DO NOTHING carrying the real payload hash, then completed with the
 * stored response or released when the first execution fails.
 */
import type { Db } from './db.js';

export interface IdemScope {
  principal: string;
  account: string;
  keyHash: string;
}

export interface IdemRow {
  task: string;
  hash: string;
  state: 'in_flight' | 'done';
  response: string | null;
  created_at: number;
  claimed_at: number;
}

export class IdempotencyStore {
  private readonly claimStmt;
  private readonly getStmt;
  private readonly completeStmt;
  private readonly releaseStmt;
  private readonly removeStmt;
  private readonly upsertStmt;

  constructor(db: Db) {
    this.claimStmt = db.prepare(
      `INSERT INTO idempotency (principal, account, key_hash, task, hash, state, response, created_at, claimed_at, claim_id)
       VALUES (@principal, @account, @keyHash, @task, @hash, 'in_flight', NULL, @now, @now, @claimId)
       ON CONFLICT (principal, account, key_hash) DO NOTHING`,
    );
    this.getStmt = db.prepare<[string, string, string], IdemRow>(
      `SELECT task, hash, state, response, created_at, claimed_at FROM idempotency
       WHERE principal = ? AND account = ? AND key_hash = ?`,
    );
    this.completeStmt = db.prepare(
      `UPDATE idempotency SET state = 'done', response = @response, created_at = @now
       WHERE principal = @principal AND account = @account AND key_hash = @keyHash AND state = 'in_flight' AND claim_id = @claimId`,
    );
    this.releaseStmt = db.prepare(
      `DELETE FROM idempotency WHERE principal = @principal AND account = @account AND key_hash = @keyHash AND state = 'in_flight'
       AND (@claimId IS NULL OR claim_id = @claimId)`,
    );
    this.removeStmt = db.prepare(`DELETE FROM idempotency WHERE principal = @principal AND account = @account AND key_hash = @keyHash`);
    this.upsertStmt = db.prepare(
      `INSERT INTO idempotency (principal, account, key_hash, task, hash, state, response, created_at, claimed_at, claim_id)
       VALUES (@principal, @account, @keyHash, @task, @hash, 'done', @response, @now, @now, '')
       ON CONFLICT (principal, account, key_hash) DO UPDATE SET
         task = excluded.task, hash = excluded.hash, state = 'done', response = excluded.response,
         created_at = excluded.created_at, claimed_at = excluded.claimed_at`,
    );
  }

  /** Claims the key in flight under `claimId`. True when this call inserted the row (first writer wins). */
  claim(scope: IdemScope, task: string, hash: string, now: number, claimId: string): boolean {
    return this.claimStmt.run({ ...scope, task, hash, now, claimId }).changes === 1;
  }

  get(scope: IdemScope): IdemRow | undefined {
    return this.getStmt.get(scope.principal, scope.account, scope.keyHash);
  }

  /** Stores the successful response of claim `claimId`; the replay window starts now. */
  complete(scope: IdemScope, claimId: string, response: string, now: number): void {
    this.completeStmt.run({ ...scope, claimId, response, now });
  }

  /**
   * Drops an in-flight claim: the key is "never seen" again. With `claimId`, only that claim
   * (a failed first execution); without, whatever claim is there (one that outlived its limit).
   */
  release(scope: IdemScope, claimId?: string): void {
    this.releaseStmt.run({ ...scope, claimId: claimId ?? null });
  }

  remove(scope: IdemScope): void {
    this.removeStmt.run(scope);
  }

  /** Writes a completed entry without a prior claim (only the `concurrent-double-create` fault does this). */
  upsertDone(scope: IdemScope, task: string, hash: string, response: string, now: number): void {
    this.upsertStmt.run({ ...scope, task, hash, response, now });
  }
}
