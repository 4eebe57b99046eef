/**
 * The seller's embedded database (better-sqlite3, WAL). Holds the idempotency cache (durable for
 * the declared replay window, digest 3.2 rule 6) and the domain records, so a seller restarted on
 * the same file still replays and still knows its media buys.
 */
import Database from 'better-sqlite3';

export type Db = Database.Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS idempotency (
  principal   TEXT NOT NULL,
  account     TEXT NOT NULL,
  key_hash    TEXT NOT NULL,
  task        TEXT NOT NULL,
  hash        TEXT NOT NULL,
  state       TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
  response    TEXT,
  created_at  INTEGER NOT NULL,
  claimed_at  INTEGER NOT NULL,
  claim_id    TEXT NOT NULL,
  PRIMARY KEY (principal, account, key_hash)
);
CREATE TABLE IF NOT EXISTS records (
  kind        TEXT NOT NULL,
  principal   TEXT NOT NULL,
  id          TEXT NOT NULL,
  account     TEXT NOT NULL,
  data        TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (kind, principal, id)
);
CREATE INDEX IF NOT EXISTS records_by_account ON records (kind, principal, account, created_at);
`;

export function openDatabase(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  return db;
}
