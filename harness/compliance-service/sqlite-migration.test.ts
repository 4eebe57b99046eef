/** A registry file written before the owner's settings existed opens with them added, its agents and runs kept. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { SqliteRegistryStore } from './sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'registry-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('adds the new agent columns to an older file and keeps its rows', async () => {
  const file = join(dir, 'old.sqlite');
  const old = new Database(file);
  old.exec(`CREATE TABLE agents (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, transports TEXT NOT NULL, token TEXT NOT NULL, auth_token TEXT,
    auth_ref TEXT, owner TEXT, created_at TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'unknown', previous_status TEXT, status_changed_at TEXT,
    last_checked_at TEXT, last_run_id INTEGER, headline TEXT, next_due_at INTEGER NOT NULL, failures INTEGER NOT NULL DEFAULT 0, problem TEXT,
    capabilities TEXT NOT NULL DEFAULT '[]')`);
  old
    .prepare(
      `INSERT INTO agents (url, transports, token, created_at, next_due_at) VALUES ('https://a.example/mcp', '["mcp"]', 'proto', '2026-01-01T00:00:00.000Z', 0)`,
    )
    .run();
  old.close();
  const store = new SqliteRegistryStore(file);
  try {
    const a = await store.getAgent('https://a.example/mcp');
    expect(a).toMatchObject({ monitoringPaused: false, optOut: false, requalificationRequired: false });
    const paused = await store.updateSettings('https://a.example/mcp', { monitoringPaused: true, checkIntervalHours: 24 }, 1_000);
    expect(paused).toMatchObject({ monitoringPaused: true, checkIntervalHours: 24, monitoringPausedAt: new Date(1_000).toISOString() });
    expect(await store.dueAgents(10_000, 10)).toEqual([]);
  } finally {
    await store.close();
  }
});
