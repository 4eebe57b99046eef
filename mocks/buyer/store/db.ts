/**
 * The buyer's embedded database (better-sqlite3, WAL; the group committer makes a commit durable
 * before the 200 goes out, store/commit.ts). One database serves every endpoint: dedup state is shared
 * across endpoints (interface spec 6.5 rule 3).
 *
 * Tables:
 *   endpoints      registrations: which authentication each endpoint's seller was told to use
 *   dedup          (scope, idempotency_key) first-seen rows, kept for the retention window
 *   sender_counts  live dedup rows per scope (the per-sender bound, 429)
 *   notifications  (sender, notification_id) first idempotency_key: re-emission vs retry
 *   inbox          acknowledged deliveries waiting to be processed (the durable queue)
 *   events         processed deliveries (seq = inbox seq: a delivery is processed exactly once)
 *   task_state     newest status per (sender, task_id)
 *   nonces         (keyid, nonce) replay entries, so a restart does not forget live nonces
 *   counters       duplicate / re-emission / rejection tallies
 */
import Database from 'better-sqlite3';

export type Db = Database.Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS endpoints (
  id           TEXT PRIMARY KEY,
  path         TEXT NOT NULL UNIQUE,
  mode         TEXT NOT NULL,
  credentials  TEXT,
  sender_brand TEXT,
  created_at   INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS dedup (
  scope       TEXT NOT NULL,
  idem_key    TEXT NOT NULL,
  first_seen  INTEGER NOT NULL,
  endpoint    TEXT NOT NULL,
  seq         INTEGER NOT NULL,
  deliveries  INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (scope, idem_key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS dedup_by_age ON dedup (first_seen);
CREATE TABLE IF NOT EXISTS sender_counts (
  scope TEXT PRIMARY KEY,
  n     INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS notifications (
  sender          TEXT NOT NULL,
  notification_id TEXT NOT NULL,
  idem_key        TEXT NOT NULL,
  first_seen      INTEGER NOT NULL,
  PRIMARY KEY (sender, notification_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS inbox (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  sender        TEXT NOT NULL,
  endpoint      TEXT NOT NULL,
  mode          TEXT NOT NULL,
  idem_key      TEXT NOT NULL,
  delivery_kind TEXT NOT NULL,
  received_at   INTEGER NOT NULL,
  body          BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
  seq             INTEGER PRIMARY KEY,
  sender          TEXT NOT NULL,
  endpoint        TEXT NOT NULL,
  mode            TEXT NOT NULL,
  idem_key        TEXT NOT NULL,
  notification_id TEXT,
  delivery_kind   TEXT NOT NULL,
  format          TEXT NOT NULL,
  task_id         TEXT,
  status          TEXT,
  timestamp       TEXT,
  applied         INTEGER NOT NULL,
  note            TEXT,
  received_at     INTEGER NOT NULL,
  processed_at    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_task ON events (task_id);
CREATE INDEX IF NOT EXISTS events_by_key ON events (idem_key);
CREATE INDEX IF NOT EXISTS events_by_age ON events (received_at);
CREATE TABLE IF NOT EXISTS task_state (
  sender       TEXT NOT NULL,
  task_id      TEXT NOT NULL,
  status       TEXT NOT NULL,
  timestamp    TEXT,
  timestamp_ms INTEGER,
  idem_key     TEXT NOT NULL,
  format       TEXT NOT NULL,
  seq          INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (sender, task_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS nonces (
  keyid      TEXT NOT NULL,
  nonce      TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (keyid, nonce)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS nonces_by_expiry ON nonces (expires_at);
CREATE TABLE IF NOT EXISTS counters (
  name TEXT PRIMARY KEY,
  n    INTEGER NOT NULL
) WITHOUT ROWID;
`;

export function openDatabase(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // COMMIT does not wait for the disk; the group committer fsyncs the WAL off the event loop
  // before it acknowledges anything (commit.ts), which is as durable as synchronous=FULL.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  return db;
}

export function bumpCounter(db: Db): (name: string, by?: number) => void {
  const stmt = db.prepare('INSERT INTO counters (name, n) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n');
  return (name, by = 1) => void stmt.run(name, by);
}
