/** Small key/value settings persisted with the seller (e.g. the clock offset). */
import type { Db } from './db.js';

export class MetaStore {
  private readonly getStmt;
  private readonly setStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
    this.setStmt = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  }

  get(key: string): string | undefined {
    return this.getStmt.get(key)?.value;
  }

  set(key: string, value: string): void {
    this.setStmt.run(key, value);
  }
}
