/**
 * The registry store in one SQLite file (better-sqlite3, WAL, synchronous=FULL): every write is
 * one transaction, committed before the caller hears of it, so a kill -9 at any moment leaves
 * either the run `running` (then recovered as interrupted and retried, never a pass) or finished
 * with its result, the agent's status and the change-feed row together.
 */
import { chmodSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { RunResult } from '../core/engine/result.js';
import { registryStatus } from '../../reports/compliance-detail.js';
import { AGENT_COLUMNS_ADDED, agentOf, RUN_COLUMNS_ADDED, changeOf, iso, type Row, runOf, settingsUpdate, standingSet } from './rows.js';
import {
  type AgentInput,
  type AgentRow,
  type AgentStatus,
  type ChangeRow,
  DuplicateAgentError,
  type RefreshLimits,
  type Organization,
  type RegistryStore,
  type RunReport,
  type RunRow,
  type SettingsPatch,
  STORYBOARD_RUN,
} from './types.js';
import { type RefreshDecision, refreshDecision, STANDING_COLUMNS, STANDING_KEYS, standingAfter } from './standing.js';

/** SQLite has no booleans: 1 and 0. */
const sqliteValue = (v: unknown) => (typeof v === 'boolean' ? (v ? 1 : 0) : v);
import { failingChecksOf, declaredTasksOf, runSummaryOf } from './run-summary.js';

/** Full reports kept per agent (older runs keep their summary only). */
export const KEPT_REPORTS = 3;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agents (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL UNIQUE,
  transports TEXT NOT NULL,
  token TEXT NOT NULL,
  auth_token TEXT,
  auth_ref TEXT,
  owner TEXT,
  created_at TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'unknown',
  previous_status TEXT,
  status_changed_at TEXT,
  last_checked_at TEXT,
  last_run_id INTEGER,
  headline TEXT,
  next_due_at INTEGER NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  problem TEXT,
  capabilities TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  state TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  overall_status TEXT,
  status TEXT,
  headline TEXT,
  failing_checks TEXT NOT NULL DEFAULT '[]',
  duration_ms INTEGER,
  triggered_by TEXT NOT NULL,
  runner TEXT NOT NULL,
  report TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_agent ON runs(agent_id, id);
CREATE INDEX IF NOT EXISTS runs_running ON runs(state) WHERE state = 'running';
CREATE TABLE IF NOT EXISTS organizations (
  member TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  company_type TEXT,
  revenue_tier TEXT,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS refreshes (
  agent_url TEXT NOT NULL,
  caller TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS refreshes_by_agent ON refreshes(agent_url, at);
CREATE INDEX IF NOT EXISTS refreshes_by_caller ON refreshes(caller, at);
CREATE TABLE IF NOT EXISTS changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  agent_url TEXT NOT NULL,
  from_status TEXT NOT NULL,
  to_status TEXT NOT NULL,
  at TEXT NOT NULL,
  run_id INTEGER NOT NULL
);
`;

const AGENT_COLUMNS = `a.*, (SELECT id FROM runs WHERE agent_id = a.id AND state = 'running' LIMIT 1) AS running_run_id`;

export class SqliteRegistryStore implements RegistryStore {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = new Database(file);
    // It holds the agents' bearer tokens: owner-only (SQLite gives its -wal and -shm files the same mode).
    if (file !== ':memory:') chmodSync(file, 0o600);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    const have = new Set((this.db.prepare('PRAGMA table_info(agents)').all() as Row[]).map((c) => c.name as string));
    for (const c of AGENT_COLUMNS_ADDED) if (!have.has(c.name)) this.db.exec(`ALTER TABLE agents ADD COLUMN ${c.name} ${c.sqlite}`);
    const runColumns = new Set((this.db.prepare('PRAGMA table_info(runs)').all() as Row[]).map((c) => c.name as string));
    for (const c of RUN_COLUMNS_ADDED) if (!runColumns.has(c.name)) this.db.exec(`ALTER TABLE runs ADD COLUMN ${c.name} ${c.sqlite}`);
  }

  async addAgent(a: AgentInput, now: number): Promise<AgentRow> {
    try {
      this.db
        .prepare(
          `INSERT INTO agents (url, transports, token, auth_token, auth_ref, owner, created_at, next_due_at, declared_capabilities, channels) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          a.url,
          JSON.stringify(a.transports),
          a.token,
          a.authToken ?? null,
          a.authRef ?? null,
          a.owner ?? null,
          iso(now),
          now,
          JSON.stringify(a.declaredCapabilities ?? []),
          JSON.stringify(a.channels ?? []),
        );
    } catch (e) {
      if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new DuplicateAgentError(`agent ${a.url} is already registered`);
      throw e;
    }
    return (await this.getAgent(a.url)) as AgentRow;
  }

  async removeAgent(url: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM agents WHERE url = ?').run(url).changes > 0;
  }

  async getAgent(url: string): Promise<AgentRow | undefined> {
    const r = this.db.prepare(`SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.url = ?`).get(url) as Row | undefined;
    return r ? agentOf(r) : undefined;
  }

  async listAgents(): Promise<AgentRow[]> {
    return (this.db.prepare(`SELECT ${AGENT_COLUMNS} FROM agents a ORDER BY a.id`).all() as Row[]).map(agentOf);
  }

  async dueAgents(now: number, limit: number): Promise<AgentRow[]> {
    const rows = this.db
      .prepare(
        `SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.next_due_at <= ? AND a.monitoring_paused = 0 AND a.opt_out = 0 AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.agent_id = a.id AND r.state = 'running') ORDER BY a.next_due_at, a.id LIMIT ?`,
      )
      .all(now, limit) as Row[];
    return rows.map(agentOf);
  }

  async startRun(agentId: number, now: number, runner: string, triggeredBy: string): Promise<number | undefined> {
    const start = this.db.transaction((): number | undefined => {
      const agent = this.db.prepare('SELECT id FROM agents WHERE id = ?').get(agentId);
      if (!agent) return undefined;
      const busy = this.db.prepare(`SELECT 1 FROM runs WHERE agent_id = ? AND state = 'running'`).get(agentId);
      if (busy) return undefined;
      return Number(
        this.db
          .prepare(`INSERT INTO runs (agent_id, state, started_at, triggered_by, runner) VALUES (?, 'running', ?, ?, ?)`)
          .run(agentId, iso(now), triggeredBy, runner).lastInsertRowid,
      );
    });
    return start.immediate();
  }

  async finishRun(runId: number, o: { result: RunResult; now: number; nextDueAt: number; failures: number; problem?: string }): Promise<void> {
    const r = o.result;
    const status = registryStatus(r.overall_status);
    const finish = this.db.transaction(() => {
      const run = this.db.prepare(`SELECT agent_id, state, triggered_by FROM runs WHERE id = ?`).get(runId) as Row | undefined;
      // The agent was removed meanwhile (its runs went with it), or the run was declared interrupted.
      if (!run || run.state !== 'running') return;
      const agentId = run.agent_id as number;
      const partial = run.triggered_by === STORYBOARD_RUN;
      const agent = this.db.prepare(`SELECT url, status, ${STANDING_COLUMNS} FROM agents WHERE id = ?`).get(agentId) as Row;
      const standing = standingAfter(agent, status, iso(o.now));
      this.db
        .prepare(
          `UPDATE runs SET state = 'done', finished_at = ?, overall_status = ?, status = ?, headline = ?, failing_checks = ?, duration_ms = ?, report = ?, summary = ? WHERE id = ?`,
        )
        .run(
          iso(o.now),
          r.overall_status,
          status,
          r.headline,
          JSON.stringify(failingChecksOf(r)),
          Math.round(r.duration_ms),
          JSON.stringify(r),
          JSON.stringify(runSummaryOf(r)),
          runId,
        );
      // Only the newest full reports are kept (and, apart, the newest single-storyboard runs'); older runs keep their summary.
      this.db
        .prepare(
          `UPDATE runs SET report = NULL WHERE agent_id = ? AND report IS NOT NULL AND (triggered_by = '${STORYBOARD_RUN}') = ? AND id NOT IN (SELECT id FROM runs WHERE agent_id = ? AND report IS NOT NULL AND (triggered_by = '${STORYBOARD_RUN}') = ? ORDER BY id DESC LIMIT ?)`,
        )
        .run(agentId, partial ? 1 : 0, agentId, partial ? 1 : 0, KEPT_REPORTS);
      // A run of one storyboard is not a full run: the agent's status and standing stay as they are.
      if (partial) return;
      const before = agent.status as AgentStatus;
      const changed = before !== status;
      this.db
        .prepare(
          `UPDATE agents SET status = ?, previous_status = CASE WHEN ? THEN ? ELSE previous_status END, status_changed_at = CASE WHEN ? THEN ? ELSE status_changed_at END,
             last_checked_at = ?, last_run_id = ?, headline = ?, next_due_at = ?, failures = ?, problem = ?, capabilities = ?, ${standingSet(() => '?', 0)} WHERE id = ?`,
        )
        .run(
          status,
          changed ? 1 : 0,
          before,
          changed ? 1 : 0,
          iso(o.now),
          iso(o.now),
          runId,
          r.headline,
          o.nextDueAt,
          o.failures,
          o.problem ?? null,
          JSON.stringify(declaredTasksOf(r)),
          ...STANDING_KEYS.map((k) => sqliteValue(standing[k])),
          agentId,
        );
      if (changed)
        this.db
          .prepare(`INSERT INTO changes (agent_url, from_status, to_status, at, run_id) VALUES (?, ?, ?, ?, ?)`)
          .run(agent.url, before, status, iso(o.now), runId);
    });
    finish.immediate();
  }

  async recoverInterrupted(now: number, runner?: string): Promise<number> {
    const recover = this.db.transaction(() => {
      const where = runner === undefined ? `state = 'running'` : `state = 'running' AND runner = ?`;
      const args = runner === undefined ? [] : [runner];
      const ids = (this.db.prepare(`SELECT agent_id FROM runs WHERE ${where}`).all(...args) as Row[]).map((r) => r.agent_id as number);
      this.db.prepare(`UPDATE runs SET state = 'interrupted', finished_at = ? WHERE ${where}`).run(iso(now), ...args);
      for (const id of ids) this.db.prepare('UPDATE agents SET next_due_at = ? WHERE id = ?').run(now, id);
      return ids.length;
    });
    return recover.immediate();
  }

  async updateSettings(url: string, patch: SettingsPatch, now: number): Promise<AgentRow | undefined> {
    const u = settingsUpdate(patch, now, () => '?');
    if (u.sets.length) this.db.prepare(`UPDATE agents SET ${u.sets.join(', ')} WHERE url = ?`).run(...u.args.map(sqliteValue), url);
    return this.getAgent(url);
  }

  async requeue(url: string, now: number): Promise<boolean> {
    return this.db.prepare('UPDATE agents SET next_due_at = ? WHERE url = ?').run(now, url).changes > 0;
  }

  async takeRefresh(url: string, caller: string, now: number, l: RefreshLimits): Promise<RefreshDecision> {
    const take = this.db.transaction((): RefreshDecision => {
      this.db.prepare('DELETE FROM refreshes WHERE at <= ?').run(now - Math.max(l.agentWindowMs, l.callerWindowMs));
      const last = (this.db.prepare('SELECT MAX(at) AS at FROM refreshes WHERE agent_url = ? AND at > ?').get(url, now - l.agentWindowMs) as Row).at;
      const mine = (this.db.prepare('SELECT at FROM refreshes WHERE caller = ? AND at > ? ORDER BY at').all(caller, now - l.callerWindowMs) as Row[]).map((r) =>
        Number(r.at),
      );
      const d = refreshDecision(last === null || last === undefined ? undefined : Number(last), mine, now, l);
      if (d.ok) this.db.prepare('INSERT INTO refreshes (agent_url, caller, at) VALUES (?, ?, ?)').run(url, caller, now);
      return d;
    });
    return take.immediate();
  }

  async putOrganization(o: Omit<Organization, 'updatedAt'>, now: number): Promise<Organization> {
    this.db
      .prepare(
        `INSERT INTO organizations (member, name, company_type, revenue_tier, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(member) DO UPDATE SET name = excluded.name, company_type = excluded.company_type, revenue_tier = excluded.revenue_tier, updated_at = excluded.updated_at`,
      )
      .run(o.member, o.name, o.companyType ?? null, o.revenueTier ?? null, iso(now));
    return { ...o, updatedAt: iso(now) };
  }

  async history(url: string, limit: number): Promise<RunRow[]> {
    const rows = this.db
      .prepare(`SELECT r.*, a.url AS agent_url FROM runs r JOIN agents a ON a.id = r.agent_id WHERE a.url = ? ORDER BY r.id DESC LIMIT ?`)
      .all(url, limit) as Row[];
    return rows.map(runOf);
  }

  async latestReport(url: string): Promise<RunResult | undefined> {
    const r = this.db
      .prepare(
        `SELECT r.report FROM runs r JOIN agents a ON a.id = r.agent_id WHERE a.url = ? AND r.report IS NOT NULL AND r.triggered_by <> '${STORYBOARD_RUN}' ORDER BY r.id DESC LIMIT 1`,
      )
      .get(url) as Row | undefined;
    return r ? (JSON.parse(r.report as string) as RunResult) : undefined;
  }

  async lastPassingRun(url: string): Promise<RunRow | undefined> {
    const r = this.db
      .prepare(
        `SELECT r.*, a.url AS agent_url FROM runs r JOIN agents a ON a.id = r.agent_id WHERE a.url = ? AND r.state = 'done' AND r.status = 'passing' ORDER BY r.id DESC LIMIT 1`,
      )
      .get(url) as Row | undefined;
    return r ? runOf(r) : undefined;
  }

  async runReport(url: string, runId: number): Promise<RunReport | undefined> {
    const r = this.db
      .prepare(`SELECT r.report FROM runs r JOIN agents a ON a.id = r.agent_id WHERE a.url = ? AND r.id = ? AND r.state = 'done'`)
      .get(url, runId) as Row | undefined;
    if (!r) return undefined;
    return typeof r.report === 'string' ? { kept: true, report: JSON.parse(r.report) as RunResult } : { kept: false };
  }

  async changes(cursor: number, limit: number): Promise<ChangeRow[]> {
    const rows = this.db.prepare(`SELECT * FROM changes WHERE seq > ? ORDER BY seq LIMIT ?`).all(cursor, limit) as Row[];
    return rows.map(changeOf);
  }

  async counts(): Promise<Record<AgentStatus, number> & { agents: number; runs: number }> {
    const out = { passing: 0, degraded: 0, failing: 0, unknown: 0, agents: 0, runs: 0 };
    for (const r of this.db.prepare('SELECT status, COUNT(*) AS n FROM agents GROUP BY status').all() as Row[]) {
      out[r.status as AgentStatus] = r.n as number;
      out.agents += r.n as number;
    }
    out.runs = (this.db.prepare(`SELECT COUNT(*) AS n FROM runs WHERE state = 'done'`).get() as Row).n as number;
    return out;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
