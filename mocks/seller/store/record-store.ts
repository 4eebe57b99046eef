/**
 * Domain records (media buys, accounts, creatives, tasks, ...) stored as JSON rows keyed by
 * (kind, principal, id). Every read is scoped to the principal, so another caller's record is
 * simply not found.
 */
import type { Db } from './db.js';

interface Row {
  data: string;
}

export class RecordStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly deleteStmt;
  private readonly listStmt;
  private readonly listByAccountStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string, string], Row>('SELECT data FROM records WHERE kind = ? AND principal = ? AND id = ?');
    this.putStmt = db.prepare<[string, string, string, string, string, number]>(
      `INSERT INTO records (kind, principal, id, account, data, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, principal, id) DO UPDATE SET data = excluded.data, account = excluded.account`,
    );
    this.deleteStmt = db.prepare<[string, string, string]>('DELETE FROM records WHERE kind = ? AND principal = ? AND id = ?');
    this.listStmt = db.prepare<[string, string], Row>('SELECT data FROM records WHERE kind = ? AND principal = ? ORDER BY created_at, rowid');
    this.listByAccountStmt = db.prepare<[string, string, string], Row>(
      'SELECT data FROM records WHERE kind = ? AND principal = ? AND account = ? ORDER BY created_at, rowid',
    );
  }

  get<T>(kind: string, principal: string, id: string): T | undefined {
    const row = this.getStmt.get(kind, principal, id);
    return row ? (JSON.parse(row.data) as T) : undefined;
  }

  put(kind: string, principal: string, id: string, account: string, value: unknown, createdAt: number): void {
    this.putStmt.run(kind, principal, id, account, JSON.stringify(value), createdAt);
  }

  delete(kind: string, principal: string, id: string): void {
    this.deleteStmt.run(kind, principal, id);
  }

  list<T>(kind: string, principal: string, account?: string): T[] {
    const rows = account === undefined ? this.listStmt.all(kind, principal) : this.listByAccountStmt.all(kind, principal, account);
    return rows.map((r) => JSON.parse(r.data) as T);
  }
}
