/** Database rows → records, for both stores (PostgreSQL returns BIGINT columns as strings, SQLite as numbers). */
import type { AgentTransportKind } from '../core/transport/types.js';
import type { AgentRow, AgentStatus, ChangeRow, RunRow, RunSummary, SettingsPatch } from './types.js';
import { STANDING_KEYS } from './standing.js';

export type Row = Record<string, unknown>;

export const iso = (ms: number): string => new Date(ms).toISOString();
const opt = <T>(v: unknown): T | undefined => (v === null || v === undefined ? undefined : (v as T));
/** A JSON list column as an optional member (absent when empty). */
function listColumn<K extends string>(key: K, v: unknown): Partial<Record<K, string[]>> {
  const list = typeof v === 'string' ? (JSON.parse(v) as string[]) : [];
  return list.length ? ({ [key]: list } as Partial<Record<K, string[]>>) : {};
}

/** SQLite stores booleans as 0/1, PostgreSQL as booleans. */
const truthy = (v: unknown): boolean => v === true || v === 1 || v === '1';
const optNum = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v));

export function agentOf(r: Row): AgentRow {
  return {
    id: Number(r.id),
    url: r.url as string,
    transports: JSON.parse(r.transports as string) as AgentTransportKind[],
    token: r.token as string,
    authToken: opt(r.auth_token),
    authRef: opt(r.auth_ref),
    owner: opt(r.owner),
    createdAt: r.created_at as string,
    status: r.status as AgentStatus,
    previousStatus: opt(r.previous_status),
    statusChangedAt: opt(r.status_changed_at),
    lastCheckedAt: opt(r.last_checked_at),
    lastRunId: optNum(r.last_run_id),
    headline: opt(r.headline),
    nextDueAt: Number(r.next_due_at),
    failures: Number(r.failures),
    problem: opt(r.problem),
    capabilities: JSON.parse(r.capabilities as string) as string[],
    runningRunId: optNum(r.running_run_id),
    lifecycleStage: opt(r.lifecycle_stage),
    monitoringPaused: truthy(r.monitoring_paused),
    monitoringPausedAt: opt(r.monitoring_paused_at),
    checkIntervalHours: optNum(r.check_interval_hours),
    optOut: truthy(r.opt_out),
    requalificationRequired: truthy(r.requalification_required),
    lastPassedAt: opt(r.last_passed_at),
    lastFailedAt: opt(r.last_failed_at),
    passingSince: opt(r.passing_since),
    regressedAt: opt(r.regressed_at),
    ...listColumn('declaredCapabilities', r.declared_capabilities),
    ...listColumn('channels', r.channels),
  };
}

export function runOf(r: Row): RunRow {
  return {
    id: Number(r.id),
    agentUrl: r.agent_url as string,
    state: r.state as RunRow['state'],
    startedAt: r.started_at as string,
    finishedAt: opt(r.finished_at),
    overallStatus: opt(r.overall_status),
    status: opt(r.status),
    headline: opt(r.headline),
    failingChecks: JSON.parse(r.failing_checks as string) as string[],
    durationMs: optNum(r.duration_ms),
    triggeredBy: r.triggered_by as string,
    runner: r.runner as string,
    ...(typeof r.summary === 'string' ? { summary: JSON.parse(r.summary) as RunSummary } : {}),
  };
}

export function changeOf(r: Row): ChangeRow {
  return {
    seq: Number(r.seq),
    agentUrl: r.agent_url as string,
    from: r.from_status as AgentStatus,
    to: r.to_status as AgentStatus,
    at: r.at as string,
    runId: Number(r.run_id),
  };
}

/**
 * Columns added to the agents table after its first release, with their SQLite and PostgreSQL
 * types: both stores add the missing ones to an existing database at open.
 */
export const AGENT_COLUMNS_ADDED: ReadonlyArray<{ name: string; sqlite: string; pg: string }> = [
  { name: 'lifecycle_stage', sqlite: 'TEXT', pg: 'TEXT' },
  { name: 'monitoring_paused', sqlite: 'INTEGER NOT NULL DEFAULT 0', pg: 'BOOLEAN NOT NULL DEFAULT FALSE' },
  { name: 'monitoring_paused_at', sqlite: 'TEXT', pg: 'TEXT' },
  { name: 'check_interval_hours', sqlite: 'INTEGER', pg: 'INTEGER' },
  { name: 'opt_out', sqlite: 'INTEGER NOT NULL DEFAULT 0', pg: 'BOOLEAN NOT NULL DEFAULT FALSE' },
  { name: 'requalification_required', sqlite: 'INTEGER NOT NULL DEFAULT 0', pg: 'BOOLEAN NOT NULL DEFAULT FALSE' },
  { name: 'last_passed_at', sqlite: 'TEXT', pg: 'TEXT' },
  { name: 'last_failed_at', sqlite: 'TEXT', pg: 'TEXT' },
  { name: 'passing_since', sqlite: 'TEXT', pg: 'TEXT' },
  { name: 'regressed_at', sqlite: 'TEXT', pg: 'TEXT' },
  { name: 'declared_capabilities', sqlite: "TEXT NOT NULL DEFAULT '[]'", pg: "TEXT NOT NULL DEFAULT '[]'" },
  { name: 'channels', sqlite: "TEXT NOT NULL DEFAULT '[]'", pg: "TEXT NOT NULL DEFAULT '[]'" },
];

/**
 * The SET clause and arguments of an owner's settings change (`ph(i)` is the i-th placeholder:
 * `?` or `$i`). Pausing records when; resuming, opting back in or a new interval makes the agent
 * due now; opting out requires requalification.
 */
export function settingsUpdate(patch: SettingsPatch, now: number, ph: (i: number) => string): { sets: string[]; args: unknown[] } {
  const sets: string[] = [];
  const args: unknown[] = [];
  const set = (column: string, value: unknown) => {
    args.push(value);
    sets.push(`${column} = ${ph(args.length)}`);
  };
  if (patch.lifecycleStage !== undefined) set('lifecycle_stage', patch.lifecycleStage);
  if (patch.monitoringPaused !== undefined) {
    set('monitoring_paused', patch.monitoringPaused);
    set('monitoring_paused_at', patch.monitoringPaused ? iso(now) : null);
  }
  if (patch.checkIntervalHours !== undefined) set('check_interval_hours', patch.checkIntervalHours);
  if (patch.optOut !== undefined) {
    set('opt_out', patch.optOut);
    if (patch.optOut) set('requalification_required', true);
  }
  if (patch.monitoringPaused === false || patch.optOut === false || patch.checkIntervalHours !== undefined) set('next_due_at', now);
  return { sets, args };
}

/** The SET clause of the standing columns (standing.ts), placeholders from `first`. */
export function standingSet(ph: (i: number) => string, first: number): string {
  return STANDING_KEYS.map((c, i) => `${c} = ${ph(first + i)}`).join(', ');
}

/** Columns added to the runs table after its first release (see AGENT_COLUMNS_ADDED). */
export const RUN_COLUMNS_ADDED: ReadonlyArray<{ name: string; sqlite: string; pg: string }> = [{ name: 'summary', sqlite: 'TEXT', pg: 'TEXT' }];
