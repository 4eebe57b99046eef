/** Database rows → records, for both stores (PostgreSQL returns BIGINT columns as strings, SQLite as numbers). */
import type { AgentTransportKind } from '../core/transport/types.js';
import type { AgentRow, AgentStatus, ChangeRow, RunRow } from './types.js';

export type Row = Record<string, unknown>;

export const iso = (ms: number): string => new Date(ms).toISOString();
const opt = <T>(v: unknown): T | undefined => (v === null || v === undefined ? undefined : (v as T));
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
