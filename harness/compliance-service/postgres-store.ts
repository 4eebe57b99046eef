/**
 * The registry store in PostgreSQL, shared by any number of `registry serve` and `registry worker`
 * processes. Same contract as the SQLite store (types.ts), plus what the job queue needs: an agent
 * is marked queued when its probe job is sent (so it is sent once), and a run belongs to the job
 * that started it (a retried job first declares its dead attempt's run interrupted). A partial
 * unique index allows one running run per agent: no agent is probed twice at once, whatever the
 * queue does.
 */
import pg from 'pg';
import type { RunResult } from '../core/engine/result.js';
import { registryStatus } from '../../reports/compliance-detail.js';
import { declaredTasksOf, failingChecksOf, runSummaryOf } from './run-summary.js';
import { KEPT_REPORTS } from './sqlite-store.js';
import { AGENT_COLUMNS_ADDED, agentOf, RUN_COLUMNS_ADDED, changeOf, iso, type Row, runOf, settingsUpdate, standingSet } from './rows.js';
import { type RefreshDecision, refreshDecision, STANDING_COLUMNS, STANDING_KEYS, standingAfter } from './standing.js';
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

const SCHEMA = `
CREATE TABLE IF NOT EXISTS registry_agents (
  id BIGSERIAL PRIMARY KEY,
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
  last_run_id BIGINT,
  headline TEXT,
  next_due_at BIGINT NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  problem TEXT,
  capabilities TEXT NOT NULL DEFAULT '[]',
  host TEXT NOT NULL,
  queued_job TEXT,
  queued_at BIGINT
);
CREATE TABLE IF NOT EXISTS registry_runs (
  id BIGSERIAL PRIMARY KEY,
  agent_id BIGINT NOT NULL REFERENCES registry_agents(id) ON DELETE CASCADE,
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
  job_id TEXT,
  report TEXT
);
CREATE INDEX IF NOT EXISTS registry_runs_by_agent ON registry_runs(agent_id, id);
CREATE UNIQUE INDEX IF NOT EXISTS registry_runs_one_running ON registry_runs(agent_id) WHERE state = 'running';
CREATE TABLE IF NOT EXISTS registry_organizations (
  member TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  company_type TEXT,
  revenue_tier TEXT,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS registry_refreshes (
  agent_url TEXT NOT NULL,
  caller TEXT NOT NULL,
  at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS registry_refreshes_by_agent ON registry_refreshes(agent_url, at);
CREATE INDEX IF NOT EXISTS registry_refreshes_by_caller ON registry_refreshes(caller, at);
CREATE TABLE IF NOT EXISTS registry_changes (
  seq BIGSERIAL PRIMARY KEY,
  agent_url TEXT NOT NULL,
  from_status TEXT NOT NULL,
  to_status TEXT NOT NULL,
  at TEXT NOT NULL,
  run_id BIGINT NOT NULL
);
`;

const AGENT_COLUMNS = `a.*, (SELECT id FROM registry_runs WHERE agent_id = a.id AND state = 'running' LIMIT 1) AS running_run_id`;

export class PostgresRegistryStore implements RegistryStore {
  private constructor(private readonly pool: pg.Pool) {}

  static async open(url: string): Promise<PostgresRegistryStore> {
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    // A server that goes away mid-idle must not crash the process; the next query reports it.
    pool.on('error', () => {});
    const client = await pool.connect();
    try {
      // Several processes may start at once: one creates the schema.
      await client.query('SELECT pg_advisory_lock(7231001)');
      await client.query(SCHEMA);
      for (const c of AGENT_COLUMNS_ADDED) await client.query(`ALTER TABLE registry_agents ADD COLUMN IF NOT EXISTS ${c.name} ${c.pg}`);
      for (const c of RUN_COLUMNS_ADDED) await client.query(`ALTER TABLE registry_runs ADD COLUMN IF NOT EXISTS ${c.name} ${c.pg}`);
      await client.query('SELECT pg_advisory_unlock(7231001)');
    } finally {
      client.release();
    }
    return new PostgresRegistryStore(pool);
  }

  private async tx<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const out = await work(c);
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      c.release();
    }
  }

  async addAgent(a: AgentInput, now: number): Promise<AgentRow> {
    try {
      await this.pool.query(
        `INSERT INTO registry_agents (url, transports, token, auth_token, auth_ref, owner, created_at, next_due_at, host, declared_capabilities, channels)
           VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
        [
          a.url,
          JSON.stringify(a.transports),
          a.token,
          a.authToken ?? null,
          a.authRef ?? null,
          a.owner ?? null,
          iso(now),
          now,
          new URL(a.url).hostname,
          JSON.stringify(a.declaredCapabilities ?? []),
          JSON.stringify(a.channels ?? []),
        ],
      );
    } catch (e) {
      if ((e as { code?: string }).code === '23505') throw new DuplicateAgentError(`agent ${a.url} is already registered`);
      throw e;
    }
    return (await this.getAgent(a.url)) as AgentRow;
  }

  async removeAgent(url: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM registry_agents WHERE url = $1', [url])).rowCount ?? 0) > 0;
  }

  async getAgent(url: string): Promise<AgentRow | undefined> {
    const r = await this.pool.query(`SELECT ${AGENT_COLUMNS} FROM registry_agents a WHERE a.url = $1`, [url]);
    return r.rows[0] ? agentOf(r.rows[0]) : undefined;
  }

  async getAgentById(id: number): Promise<AgentRow | undefined> {
    const r = await this.pool.query(`SELECT ${AGENT_COLUMNS} FROM registry_agents a WHERE a.id = $1`, [id]);
    return r.rows[0] ? agentOf(r.rows[0]) : undefined;
  }

  async listAgents(): Promise<AgentRow[]> {
    return (await this.pool.query(`SELECT ${AGENT_COLUMNS} FROM registry_agents a ORDER BY a.id`)).rows.map(agentOf);
  }

  async dueAgents(now: number, limit: number): Promise<AgentRow[]> {
    const r = await this.pool.query(
      `SELECT ${AGENT_COLUMNS} FROM registry_agents a WHERE a.next_due_at <= $1 AND a.queued_job IS NULL AND NOT a.monitoring_paused AND NOT a.opt_out
         AND NOT EXISTS (SELECT 1 FROM registry_runs r WHERE r.agent_id = a.id AND r.state = 'running') ORDER BY a.next_due_at, a.id LIMIT $2`,
      [now, limit],
    );
    return r.rows.map(agentOf);
  }

  /** Probes sent or running, per host (the producer's fairness and global limit). */
  async inFlightByHost(): Promise<Map<string, number>> {
    const r = await this.pool.query(
      `SELECT host, COUNT(*) AS n FROM registry_agents a WHERE a.queued_job IS NOT NULL OR EXISTS (SELECT 1 FROM registry_runs r WHERE r.agent_id = a.id AND r.state = 'running') GROUP BY host`,
    );
    return new Map(r.rows.map((x: Row) => [x.host as string, Number(x.n)]));
  }

  /** Marks the agent queued if nobody else did (true: the caller sends its job). */
  async markQueued(agentId: number, now: number): Promise<boolean> {
    const r = await this.pool.query(`UPDATE registry_agents SET queued_job = 'sending', queued_at = $2 WHERE id = $1 AND queued_job IS NULL`, [agentId, now]);
    return (r.rowCount ?? 0) === 1;
  }

  async setQueuedJob(agentId: number, jobId: string | null): Promise<void> {
    await this.pool.query(`UPDATE registry_agents SET queued_job = $2, queued_at = CASE WHEN $2::text IS NULL THEN NULL ELSE queued_at END WHERE id = $1`, [
      agentId,
      jobId,
    ]);
  }

  /** Queue marks older than `staleMs` with no running run (a job that gave up, a producer that died between mark and send) are cleared. */
  async clearStaleQueued(now: number, staleMs: number): Promise<number> {
    const r = await this.pool.query(
      `UPDATE registry_agents a SET queued_job = NULL, queued_at = NULL WHERE a.queued_job IS NOT NULL AND a.queued_at < $1
         AND NOT EXISTS (SELECT 1 FROM registry_runs r WHERE r.agent_id = a.id AND r.state = 'running')`,
      [now - staleMs],
    );
    return r.rowCount ?? 0;
  }

  async startRun(agentId: number, now: number, runner: string, triggeredBy: string, jobId?: string): Promise<number | undefined> {
    return this.tx(async (c) => {
      const agent = await c.query('SELECT id FROM registry_agents WHERE id = $1 FOR UPDATE', [agentId]);
      if (!agent.rows[0]) return undefined;
      // A retried job: the attempt that died left its run running.
      if (jobId) await c.query(`UPDATE registry_runs SET state = 'interrupted', finished_at = $2 WHERE job_id = $1 AND state = 'running'`, [jobId, iso(now)]);
      const busy = await c.query(`SELECT 1 FROM registry_runs WHERE agent_id = $1 AND state = 'running'`, [agentId]);
      if (busy.rows[0]) return undefined;
      const r = await c.query(
        `INSERT INTO registry_runs (agent_id, state, started_at, triggered_by, runner, job_id) VALUES ($1, 'running', $2, $3, $4, $5) RETURNING id`,
        [agentId, iso(now), triggeredBy, runner, jobId ?? null],
      );
      return Number(r.rows[0].id);
    });
  }

  async finishRun(runId: number, o: { result: RunResult; now: number; nextDueAt: number; failures: number; problem?: string }): Promise<void> {
    const r = o.result;
    const status = registryStatus(r.overall_status);
    await this.tx(async (c) => {
      const run = (await c.query('SELECT agent_id, state, triggered_by FROM registry_runs WHERE id = $1 FOR UPDATE', [runId])).rows[0] as Row | undefined;
      // Removed meanwhile, or declared interrupted (a retry took over): this result is not recorded.
      if (!run || run.state !== 'running') return;
      const agentId = Number(run.agent_id);
      const partial = run.triggered_by === STORYBOARD_RUN;
      const agent = (await c.query(`SELECT url, status, ${STANDING_COLUMNS} FROM registry_agents WHERE id = $1 FOR UPDATE`, [agentId])).rows[0] as Row;
      const standing = standingAfter(agent, status, iso(o.now));
      await c.query(
        `UPDATE registry_runs SET state = 'done', finished_at = $1, overall_status = $2, status = $3, headline = $4, failing_checks = $5, duration_ms = $6, report = $7, summary = $9 WHERE id = $8`,
        [
          iso(o.now),
          r.overall_status,
          status,
          r.headline,
          JSON.stringify(failingChecksOf(r)),
          Math.round(r.duration_ms),
          JSON.stringify(r),
          runId,
          JSON.stringify(runSummaryOf(r)),
        ],
      );
      // The newest full reports are kept, and apart the newest single-storyboard runs'.
      await c.query(
        `UPDATE registry_runs SET report = NULL WHERE agent_id = $1 AND report IS NOT NULL AND (triggered_by = '${STORYBOARD_RUN}') = $3 AND id NOT IN (SELECT id FROM registry_runs WHERE agent_id = $1 AND report IS NOT NULL AND (triggered_by = '${STORYBOARD_RUN}') = $3 ORDER BY id DESC LIMIT $2)`,
        [agentId, KEPT_REPORTS, partial],
      );
      // A run of one storyboard is not a full run: the agent's status and standing stay as they are.
      if (partial) return;
      const before = agent.status as AgentStatus;
      const changed = before !== status;
      await c.query(
        `UPDATE registry_agents SET status = $1, previous_status = CASE WHEN $2 THEN $3 ELSE previous_status END, status_changed_at = CASE WHEN $2 THEN $4 ELSE status_changed_at END,
           last_checked_at = $4, last_run_id = $5, headline = $6, next_due_at = $7, failures = $8, problem = $9, capabilities = $10, queued_job = NULL, queued_at = NULL, ${standingSet((i) => `$${i}`, 12)} WHERE id = $11`,
        [
          status,
          changed,
          before,
          iso(o.now),
          runId,
          r.headline,
          o.nextDueAt,
          o.failures,
          o.problem ?? null,
          JSON.stringify(declaredTasksOf(r)),
          agentId,
          ...STANDING_KEYS.map((k) => standing[k]),
        ],
      );
      if (changed)
        await c.query(`INSERT INTO registry_changes (agent_url, from_status, to_status, at, run_id) VALUES ($1, $2, $3, $4, $5)`, [
          agent.url,
          before,
          status,
          iso(o.now),
          runId,
        ]);
    });
  }

  async recoverInterrupted(now: number, runner?: string): Promise<number> {
    // Shared by many processes: only the runs of this runner (a process that knows it stopped).
    if (runner === undefined) return 0;
    return this.tx(async (c) => {
      const r = await c.query(`UPDATE registry_runs SET state = 'interrupted', finished_at = $2 WHERE state = 'running' AND runner = $1 RETURNING agent_id`, [
        runner,
        iso(now),
      ]);
      for (const row of r.rows)
        await c.query('UPDATE registry_agents SET next_due_at = $2, queued_job = NULL, queued_at = NULL WHERE id = $1', [row.agent_id, now]);
      return r.rowCount ?? 0;
    });
  }

  async updateSettings(url: string, patch: SettingsPatch, now: number): Promise<AgentRow | undefined> {
    const u = settingsUpdate(patch, now, (i) => `$${i + 1}`);
    if (u.sets.length) await this.pool.query(`UPDATE registry_agents SET ${u.sets.join(', ')} WHERE url = $1`, [url, ...u.args]);
    return this.getAgent(url);
  }

  async requeue(url: string, now: number): Promise<boolean> {
    return ((await this.pool.query('UPDATE registry_agents SET next_due_at = $2 WHERE url = $1', [url, now])).rowCount ?? 0) > 0;
  }

  async takeRefresh(url: string, caller: string, now: number, l: RefreshLimits): Promise<RefreshDecision> {
    return this.tx(async (c) => {
      // One decision at a time across every process serving the API.
      await c.query('SELECT pg_advisory_xact_lock(7231002)');
      await c.query('DELETE FROM registry_refreshes WHERE at <= $1', [now - Math.max(l.agentWindowMs, l.callerWindowMs)]);
      const last = (await c.query('SELECT MAX(at) AS at FROM registry_refreshes WHERE agent_url = $1 AND at > $2', [url, now - l.agentWindowMs])).rows[0]?.at;
      const mine = (await c.query('SELECT at FROM registry_refreshes WHERE caller = $1 AND at > $2 ORDER BY at', [caller, now - l.callerWindowMs])).rows.map(
        (r: Row) => Number(r.at),
      );
      const d = refreshDecision(last === null || last === undefined ? undefined : Number(last), mine, now, l);
      if (d.ok) await c.query('INSERT INTO registry_refreshes (agent_url, caller, at) VALUES ($1, $2, $3)', [url, caller, now]);
      return d;
    });
  }

  async putOrganization(o: Omit<Organization, 'updatedAt'>, now: number): Promise<Organization> {
    await this.pool.query(
      `INSERT INTO registry_organizations (member, name, company_type, revenue_tier, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (member) DO UPDATE SET name = EXCLUDED.name, company_type = EXCLUDED.company_type, revenue_tier = EXCLUDED.revenue_tier, updated_at = EXCLUDED.updated_at`,
      [o.member, o.name, o.companyType ?? null, o.revenueTier ?? null, iso(now)],
    );
    return { ...o, updatedAt: iso(now) };
  }

  async history(url: string, limit: number): Promise<RunRow[]> {
    const r = await this.pool.query(
      `SELECT r.*, a.url AS agent_url FROM registry_runs r JOIN registry_agents a ON a.id = r.agent_id WHERE a.url = $1 ORDER BY r.id DESC LIMIT $2`,
      [url, limit],
    );
    return r.rows.map(runOf);
  }

  async latestReport(url: string): Promise<RunResult | undefined> {
    const r = await this.pool.query(
      `SELECT r.report FROM registry_runs r JOIN registry_agents a ON a.id = r.agent_id WHERE a.url = $1 AND r.report IS NOT NULL AND r.triggered_by <> '${STORYBOARD_RUN}' ORDER BY r.id DESC LIMIT 1`,
      [url],
    );
    return r.rows[0] ? (JSON.parse(r.rows[0].report as string) as RunResult) : undefined;
  }

  async lastPassingRun(url: string): Promise<RunRow | undefined> {
    const r = await this.pool.query(
      `SELECT r.*, a.url AS agent_url FROM registry_runs r JOIN registry_agents a ON a.id = r.agent_id WHERE a.url = $1 AND r.state = 'done' AND r.status = 'passing' ORDER BY r.id DESC LIMIT 1`,
      [url],
    );
    return r.rows[0] ? runOf(r.rows[0]) : undefined;
  }

  async runReport(url: string, runId: number): Promise<RunReport | undefined> {
    const r = await this.pool.query(
      `SELECT r.report FROM registry_runs r JOIN registry_agents a ON a.id = r.agent_id WHERE a.url = $1 AND r.id = $2 AND r.state = 'done'`,
      [url, runId],
    );
    if (!r.rows[0]) return undefined;
    const report = r.rows[0].report;
    return typeof report === 'string' ? { kept: true, report: JSON.parse(report) as RunResult } : { kept: false };
  }

  async changes(cursor: number, limit: number): Promise<ChangeRow[]> {
    const r = await this.pool.query(`SELECT * FROM registry_changes WHERE seq > $1 ORDER BY seq LIMIT $2`, [cursor, limit]);
    return r.rows.map(changeOf);
  }

  async counts(): Promise<Record<AgentStatus, number> & { agents: number; runs: number }> {
    const out = { passing: 0, degraded: 0, failing: 0, unknown: 0, agents: 0, runs: 0 };
    for (const r of (await this.pool.query('SELECT status, COUNT(*) AS n FROM registry_agents GROUP BY status')).rows) {
      out[r.status as AgentStatus] = Number(r.n);
      out.agents += Number(r.n);
    }
    out.runs = Number((await this.pool.query(`SELECT COUNT(*) AS n FROM registry_runs WHERE state = 'done'`)).rows[0].n);
    return out;
  }

  /** NOTIFY on `channel` (best effort: its listeners poll too). */
  async notify(channel: string): Promise<void> {
    await this.pool.query('SELECT pg_notify($1, $2)', [channel, '']).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
