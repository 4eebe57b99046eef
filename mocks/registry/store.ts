/**
 * The mock registry's embedded database (better-sqlite3): organizations, the API keys that act
 * for them (only their SHA-256 is stored), and the registered agents with their capabilities and
 * channels, their compliance runs and what their owners set (digest 6.3: lifecycle stage, opt-out,
 * monitoring pause and interval, requeues). `:memory:` by default; a file keeps the registry
 * across restarts.
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS organizations (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL,
  company_type  TEXT,
  revenue_tier  TEXT,
  created_at    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
  key_hash  TEXT PRIMARY KEY,
  org_id    INTEGER REFERENCES organizations (id)
);
CREATE TABLE IF NOT EXISTS agents (
  agent_url     TEXT PRIMARY KEY,
  domain        TEXT NOT NULL,
  capabilities  TEXT NOT NULL,
  channels      TEXT NOT NULL,
  org_id        INTEGER REFERENCES organizations (id),
  indexed       INTEGER NOT NULL DEFAULT 1,
  created_at    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS compliance_runs (
  id              INTEGER PRIMARY KEY,
  agent_url       TEXT NOT NULL,
  overall_status  TEXT NOT NULL,
  tested_at       INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS compliance_runs_agent ON compliance_runs (agent_url, tested_at);
CREATE TABLE IF NOT EXISTS agent_settings (
  agent_url             TEXT PRIMARY KEY,
  lifecycle_stage       TEXT NOT NULL DEFAULT 'production',
  opt_out               INTEGER NOT NULL DEFAULT 0,
  monitoring_paused     INTEGER NOT NULL DEFAULT 0,
  monitoring_paused_at  INTEGER,
  check_interval_hours  INTEGER NOT NULL DEFAULT 24,
  requeued_at           INTEGER
);
`;

/** What an agent's owner sets (digest 6.3 writes). */
export interface AgentSettings {
  lifecycle_stage: string;
  opt_out: boolean;
  monitoring_paused: boolean;
  monitoring_paused_at: number | null;
  check_interval_hours: number;
  requeued_at: number | null;
}

const DEFAULT_SETTINGS: AgentSettings = {
  lifecycle_stage: 'production',
  opt_out: false,
  monitoring_paused: false,
  monitoring_paused_at: null,
  check_interval_hours: 24,
  requeued_at: null,
};

export interface RegistryAgent {
  domain: string;
  agent_url: string;
  capabilities: string[];
  channels: string[];
}

/** One recorded compliance run of an agent (digest 6.3 `ComplianceRun`, the fields the mock keeps). */
export interface ComplianceRunRow {
  id: number;
  agent_url: string;
  overall_status: 'passing' | 'failing' | 'partial';
  tested_at: number;
}

export interface Organization {
  id: number;
  name: string;
  company_type?: string;
  revenue_tier?: string;
}

interface AgentRow {
  agent_url: string;
  domain: string;
  capabilities: string;
  channels: string;
}

const hashOf = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

export class MockRegistryStore {
  private readonly db: Database.Database;

  constructor(file = ':memory:') {
    this.db = new Database(file);
    if (file !== ':memory:') this.db.pragma('journal_mode = WAL');
    this.db.exec(SCHEMA);
  }

  addApiKey(key: string): void {
    this.db.prepare('INSERT OR IGNORE INTO api_keys (key_hash, org_id) VALUES (?, NULL)').run(hashOf(key));
  }

  /** The key's organization id (null before its first use), or undefined for an unknown key. */
  keyOrg(key: string): { orgId: number | null } | undefined {
    const row = this.db.prepare('SELECT org_id FROM api_keys WHERE key_hash = ?').get(hashOf(key)) as { org_id: number | null } | undefined;
    return row ? { orgId: row.org_id } : undefined;
  }

  /** Creates an organization for the key (or replaces its name and tiers), as POST /api/organizations does. */
  createOrganization(key: string | undefined, o: Omit<Organization, 'id'>, now: number): Organization {
    const id = Number(
      this.db
        .prepare('INSERT INTO organizations (name, company_type, revenue_tier, created_at) VALUES (?, ?, ?, ?)')
        .run(o.name, o.company_type ?? null, o.revenue_tier ?? null, now).lastInsertRowid,
    );
    if (key !== undefined) this.db.prepare('UPDATE api_keys SET org_id = ? WHERE key_hash = ?').run(id, hashOf(key));
    return { id, ...o };
  }

  /** The key's organization, created with a derived name when absent (spec 4.1: registration auto-creates it). */
  orgFor(key: string | undefined, now: number): number | null {
    if (key === undefined) return null;
    const known = this.keyOrg(key);
    if (known?.orgId != null) return known.orgId;
    return this.createOrganization(key, { name: `organization ${hashOf(key).slice(0, 8)}` }, now).id;
  }

  /** Registers (or updates) an agent; `indexed: false` stores it without making it searchable. */
  putAgent(a: RegistryAgent, orgId: number | null, now: number, indexed = true): 'created' | 'updated' {
    const existed = this.db.prepare('SELECT 1 FROM agents WHERE agent_url = ?').get(a.agent_url) !== undefined;
    this.db
      .prepare(
        `INSERT INTO agents (agent_url, domain, capabilities, channels, org_id, indexed, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (agent_url) DO UPDATE SET domain = excluded.domain, capabilities = excluded.capabilities,
           channels = excluded.channels, org_id = excluded.org_id, indexed = excluded.indexed`,
      )
      .run(a.agent_url, a.domain, JSON.stringify(a.capabilities), JSON.stringify(a.channels), orgId, indexed ? 1 : 0, now);
    return existed ? 'updated' : 'created';
  }

  /** Searchable agents, oldest first. */
  agents(): RegistryAgent[] {
    const rows = this.db
      .prepare('SELECT agent_url, domain, capabilities, channels FROM agents WHERE indexed = 1 ORDER BY created_at, rowid')
      .all() as AgentRow[];
    return rows.map((r) => ({ domain: r.domain, agent_url: r.agent_url, capabilities: JSON.parse(r.capabilities), channels: JSON.parse(r.channels) }));
  }

  /** A registered agent (indexed or not) with its owning organization, or undefined. */
  agent(url: string): (RegistryAgent & { orgId: number | null }) | undefined {
    const r = this.db.prepare('SELECT agent_url, domain, capabilities, channels, org_id FROM agents WHERE agent_url = ?').get(url) as
      | (AgentRow & { org_id: number | null })
      | undefined;
    return r && { domain: r.domain, agent_url: r.agent_url, capabilities: JSON.parse(r.capabilities), channels: JSON.parse(r.channels), orgId: r.org_id };
  }

  addRun(agentUrl: string, overallStatus: ComplianceRunRow['overall_status'], testedAt: number): void {
    this.db.prepare('INSERT INTO compliance_runs (agent_url, overall_status, tested_at) VALUES (?, ?, ?)').run(agentUrl, overallStatus, testedAt);
  }

  /** The agent's runs, newest first, at most `limit`. */
  runs(agentUrl: string, limit: number): ComplianceRunRow[] {
    return this.db
      .prepare('SELECT id, agent_url, overall_status, tested_at FROM compliance_runs WHERE agent_url = ? ORDER BY tested_at DESC, id DESC LIMIT ?')
      .all(agentUrl, limit) as ComplianceRunRow[];
  }

  /** The agent's settings (the defaults until its owner sets one). */
  settings(agentUrl: string): AgentSettings {
    const r = this.db.prepare('SELECT * FROM agent_settings WHERE agent_url = ?').get(agentUrl) as Record<string, unknown> | undefined;
    if (!r) return { ...DEFAULT_SETTINGS };
    return {
      lifecycle_stage: r.lifecycle_stage as string,
      opt_out: r.opt_out === 1,
      monitoring_paused: r.monitoring_paused === 1,
      monitoring_paused_at: (r.monitoring_paused_at as number | null) ?? null,
      check_interval_hours: r.check_interval_hours as number,
      requeued_at: (r.requeued_at as number | null) ?? null,
    };
  }

  /** Changes some of the agent's settings and answers them all. */
  updateSettings(agentUrl: string, patch: Partial<AgentSettings>): AgentSettings {
    const next = { ...this.settings(agentUrl), ...patch };
    this.db
      .prepare(
        `INSERT INTO agent_settings (agent_url, lifecycle_stage, opt_out, monitoring_paused, monitoring_paused_at, check_interval_hours, requeued_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (agent_url) DO UPDATE SET lifecycle_stage = excluded.lifecycle_stage, opt_out = excluded.opt_out,
           monitoring_paused = excluded.monitoring_paused, monitoring_paused_at = excluded.monitoring_paused_at,
           check_interval_hours = excluded.check_interval_hours, requeued_at = excluded.requeued_at`,
      )
      .run(
        agentUrl,
        next.lifecycle_stage,
        next.opt_out ? 1 : 0,
        next.monitoring_paused ? 1 : 0,
        next.monitoring_paused_at,
        next.check_interval_hours,
        next.requeued_at,
      );
    return next;
  }

  counts(): { agents: number; organizations: number } {
    const agents = (this.db.prepare('SELECT COUNT(*) AS n FROM agents WHERE indexed = 1').get() as { n: number }).n;
    const organizations = (this.db.prepare('SELECT COUNT(*) AS n FROM organizations').get() as { n: number }).n;
    return { agents, organizations };
  }

  close(): void {
    this.db.close();
  }
}
