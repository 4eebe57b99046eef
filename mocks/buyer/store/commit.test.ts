import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommitter } from './commit.js';
import { openDatabase, type Db } from './db.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fresh(): { db: Db; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'commit-test-'));
  dirs.push(dir);
  const file = join(dir, 'buyer.sqlite');
  return { db: openDatabase(file), file };
}

const count = (db: Db) => (db.prepare("SELECT n FROM counters WHERE name = 't'").get() as { n: number } | undefined)?.n ?? 0;
const bump = (db: Db) => () => db.prepare("INSERT INTO counters (name, n) VALUES ('t', 1) ON CONFLICT(name) DO UPDATE SET n = n + 1").run().changes;

describe('GroupCommitter', () => {
  it('commits the units of one turn together and resolves each with its value once the WAL is synced', async () => {
    const { db, file } = fresh();
    const c = new GroupCommitter(db);
    const values = await Promise.all(Array.from({ length: 50 }, (_, i) => c.run(() => (bump(db)(), i))));
    expect(values).toEqual(Array.from({ length: 50 }, (_, i) => i));
    // Another connection (as a restarted process would) sees every acknowledged unit.
    const other = new Database(file, { readonly: true });
    expect((other.prepare("SELECT n FROM counters WHERE name = 't'").get() as { n: number }).n).toBe(50);
    other.close();
    c.close();
    db.close();
  });

  it('a unit that throws is refused alone: the others of its batch are committed', async () => {
    const { db } = fresh();
    const c = new GroupCommitter(db);
    const ok1 = c.run(bump(db));
    const bad = c.run(() => {
      bump(db)();
      throw new Error('unit broke');
    });
    const ok2 = c.run(bump(db));
    await expect(bad).rejects.toThrow('unit broke');
    await expect(Promise.all([ok1, ok2])).resolves.toEqual([1, 1]);
    expect(count(db)).toBe(2); // the failing unit's own write was rolled back with it
    c.close();
    db.close();
  });

  it('close commits what is queued, resolves it, and refuses new work', async () => {
    const { db, file } = fresh();
    const c = new GroupCommitter(db);
    const queued = c.run(bump(db));
    c.close();
    await expect(queued).resolves.toBe(1);
    await expect(c.run(bump(db))).rejects.toThrow('closed');
    db.close();
    const again = new Database(file, { readonly: true });
    expect((again.prepare("SELECT n FROM counters WHERE name = 't'").get() as { n: number }).n).toBe(1);
    again.close();
  });

  it('works on an in-memory database (nothing to sync)', async () => {
    const db = openDatabase(':memory:');
    const c = new GroupCommitter(db);
    await expect(c.run(bump(db))).resolves.toBe(1);
    c.close();
    db.close();
  });
});

describe('GroupCommitter without a WAL', () => {
  it('syncs the database file when the journal is not a WAL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'commit-test-'));
    dirs.push(dir);
    const db = openDatabase(join(dir, 'buyer.sqlite'));
    db.pragma('journal_mode = DELETE');
    const c = new GroupCommitter(db);
    await expect(Promise.all([c.run(bump(db)), c.run(bump(db))])).resolves.toEqual([1, 1]);
    expect(count(db)).toBe(2);
    c.close();
    db.close();
  });
});
