/**
 * Group commit: units of work submitted in the same turn of the event loop run in one SQLite
 * transaction, and one failing unit does not undo the others: the batch runs without savepoints
 * first (the common case: nothing fails), and when a unit throws, the whole transaction is rolled
 * back and the batch runs again with one savepoint per unit. Units are database work only, so
 * running one again after a rollback is safe.
 *
 * Units that arrive while an fsync runs are committed when it ends, all in one transaction, and
 * the next fsync starts at once: they could not have been released earlier anyway.
 *
 * Every submitter learns its result only once its transaction is on disk. The connection commits
 * with synchronous=NORMAL (COMMIT writes the WAL but does not wait for the disk), and the
 * committer then fsyncs the WAL file itself, on libuv's thread pool: the event loop keeps
 * verifying and admitting deliveries meanwhile, and every transaction committed before an fsync
 * started is released by that one fsync. The receiver therefore sends its 200 only once the dedup
 * row survives a power loss (as with synchronous=FULL), without one fsync per webhook and without
 * blocking on the disk. A checkpoint syncs the WAL before it copies it into the database file and
 * syncs that file after (SQLite, synchronous=NORMAL), so a frame moved out of the WAL is on disk too.
 */
import { closeSync, existsSync, fsync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Transaction } from 'better-sqlite3';
import type { Db } from './db.js';

interface Unit {
  work: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** Settles one submitter: with an error when its commit could not be made durable. */
type Settle = (syncError?: unknown) => void;

/** Units per transaction; more wait for the next one. */
export const MAX_BATCH = 512;

export class GroupCommitter {
  private queue: Unit[] = [];
  private scheduled = false;
  private closed = false;
  private readonly batch: Transaction<(units: Unit[]) => Array<{ ok: true; value: unknown } | { ok: false; error: unknown }>>;
  private readonly plain: Transaction<(units: Unit[]) => unknown[]>;
  /** Committed, waiting for the next fsync of the WAL. */
  private unsynced: Settle[] = [];
  private syncing = false;
  private walFd: number | undefined;

  constructor(private readonly db: Db) {
    const unit = db.transaction((work: () => unknown) => work());
    this.plain = db.transaction((units: Unit[]) => units.map((u) => u.work()));
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

  /** Run `work` inside the next batch transaction; resolves with its result once the commit is on disk. */
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
    // While an fsync runs, units wait for its end: none of them could be released before the
    // next fsync anyway, and waiting lets them commit together, in one larger transaction.
    if (this.syncing) return;
    const units = this.queue.splice(0, MAX_BATCH);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (units.length === 0) return;
    const settled = this.commit(units);
    this.unsynced.push(...settled);
    this.sync();
  }

  /** Commit the units; what settles each submitter once the commit is on disk. */
  private commit(units: Unit[]): Settle[] {
    try {
      const values = this.plain.immediate(units);
      return units.map((u, i) => (e) => (e ? u.reject(e) : u.resolve(values[i])));
    } catch {
      // A unit failed (or the database did): the transaction is rolled back; run the batch
      // again, each unit in its own savepoint.
    }
    try {
      const results = this.batch.immediate(units);
      return units.map((u, i) => {
        const r = results[i]!;
        return r.ok ? (e) => (e ? u.reject(e) : u.resolve(r.value)) : () => u.reject(r.error);
      });
    } catch (error) {
      // Nothing was committed: the submitters learn it at once.
      for (const u of units) u.reject(error);
      return [];
    }
  }

  /** Start an fsync of the WAL for every commit so far, unless one is running (its end starts the next). */
  private sync(): void {
    if (this.syncing || this.unsynced.length === 0) return;
    const settled = this.unsynced;
    this.unsynced = [];
    let fd: number | undefined;
    try {
      fd = this.wal();
    } catch (error) {
      // The file cannot be opened for syncing: nothing is known durable, the submitters are refused.
      for (const s of settled) s(error);
      return;
    }
    if (fd === undefined) {
      for (const s of settled) s();
      return;
    }
    this.syncing = true;
    fsync(fd, (err) => {
      this.syncing = false;
      // A failed fsync leaves nothing known durable: the submitters are refused (the sender retries).
      for (const s of settled) s(err ?? undefined);
      if (this.closed) this.closeWal();
      else if (this.queue.length > 0) this.flush();
      else this.sync();
    });
  }

  /** The WAL's file descriptor (opened once it exists); undefined for an in-memory database. */
  private wal(): number | undefined {
    if (this.walFd !== undefined || this.db.memory || this.closed) return this.walFd;
    // The WAL, or the database file itself when the journal is not a WAL (a file system without
    // WAL support leaves SQLite in rollback mode).
    const wal = `${this.db.name}-wal`;
    this.walFd = openSync(existsSync(wal) ? wal : this.db.name, 'r');
    // The WAL's directory entry must be durable too (once, when the file is first used).
    const dir = openSync(dirname(this.db.name), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    return this.walFd;
  }

  /** Commit what is queued, make it durable, then refuse new work. */
  close(): void {
    while (this.queue.length > 0) {
      this.scheduled = false;
      this.unsynced.push(...this.commit(this.queue.splice(0, MAX_BATCH)));
    }
    this.closed = true;
    const settled = this.unsynced;
    this.unsynced = [];
    if (this.walFd !== undefined) fsyncSync(this.walFd);
    for (const s of settled) s();
    // An fsync still running closes the file when it ends.
    if (!this.syncing) this.closeWal();
  }

  private closeWal(): void {
    if (this.walFd === undefined) return;
    closeSync(this.walFd);
    this.walFd = undefined;
  }
}
