/**
 * Group commit: units of work submitted in the same turn of the event loop run in one SQLite
 * transaction (each in its own savepoint, so one failing unit does not undo the others), and
 * every submitter learns its result only after COMMIT returned — with synchronous=FULL that is
 * after the WAL reached the disk. This is what lets the receiver send its 200 only once the
 * dedup row is durable, without paying one fsync per webhook under load.
 */
import type { Transaction } from 'better-sqlite3';
import type { Db } from './db.js';

interface Unit {
  work: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** Units per transaction; more wait for the next one. */
export const MAX_BATCH = 512;

export class GroupCommitter {
  private queue: Unit[] = [];
  private scheduled = false;
  private closed = false;
  private readonly batch: Transaction<(units: Unit[]) => Array<{ ok: true; value: unknown } | { ok: false; error: unknown }>>;

  constructor(db: Db) {
    const unit = db.transaction((work: () => unknown) => work());
    this.batch = db.transaction((units: Unit[]) =>
      units.map((u) => {
        try {
          return { ok: true as const, value: unit(u.work) };
        } catch (error) {
          return { ok: false as const, error };
        }
      }),
    );
  }

  /** Run `work` inside the next batch transaction; resolves with its result after COMMIT. */
  run<T>(work: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Units waiting for the next commit. */
  get waiting(): number {
    return this.queue.length;
  }

  private flush(): void {
    this.scheduled = false;
    const units = this.queue.splice(0, MAX_BATCH);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (units.length === 0) return;
    let results;
    try {
      results = this.batch.immediate(units);
    } catch (error) {
      for (const u of units) u.reject(error);
      return;
    }
    units.forEach((u, i) => {
      const r = results[i]!;
      if (r.ok) u.resolve(r.value);
      else u.reject(r.error);
    });
  }

  /** Commit what is queued, then refuse new work. */
  close(): void {
    while (this.queue.length > 0) this.flush();
    this.closed = true;
  }
}
