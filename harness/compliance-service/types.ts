/**
 * The registry backend's records and its store contract: the agents it probes, their runs (the
 * history), and the change feed of status transitions. One contract, two stores: one SQLite file
 * (sqlite-store.ts, the embedded default) and, for scale-out, PostgreSQL.
 */
import type { RunResult } from '../core/engine/result.js';
import type { RegistryComplianceStatus, RegistryTrackStatus } from '../../reports/compliance-detail.js';
import type { AgentTransportKind } from '../core/transport/types.js';
import type { LifecycleStage } from '../core/engine/lifecycle.js';

export type AgentStatus = RegistryComplianceStatus;

export interface AgentInput {
  url: string;
  transports: AgentTransportKind[];
  /** Protocol token of its task names (default proto). */
  token: string;
  /** Bearer sent to the agent; stored, never served. */
  authToken?: string;
  /** Where the owner keeps the agent's credential (free text, shown). */
  authRef?: string;
  owner?: string;
  /** Task names the registration declared (interface spec 2.4), searched until a probe lists the agent's own. */
  declaredCapabilities?: string[];
  /** Channel codes the registration declared. */
  channels?: string[];
}

/** What the owner sets on an agent (digest 6.3 writes): monitoring, lifecycle, opting out. */
export interface AgentSettings {
  /** The owner's declaration; absent: the stage the latest run found. */
  lifecycleStage?: LifecycleStage;
  monitoringPaused: boolean;
  monitoringPausedAt?: string;
  /** 6 to 168; absent: the service's interval. */
  checkIntervalHours?: number;
  /** Opted out of compliance monitoring: not probed, badges revoked, the minimal public view. */
  optOut: boolean;
  /** Set on opting out; cleared by the next full passing run (badges come back only then). */
  requalificationRequired: boolean;
}

export type SettingsPatch = Partial<Pick<AgentSettings, 'lifecycleStage' | 'monitoringPaused' | 'checkIntervalHours' | 'optOut'>>;

export interface AgentRow extends AgentInput, AgentSettings {
  id: number;
  createdAt: string;
  status: AgentStatus;
  previousStatus?: AgentStatus;
  statusChangedAt?: string;
  lastCheckedAt?: string;
  lastRunId?: number;
  headline?: string;
  /** Unix ms: not probed before then. */
  nextDueAt: number;
  /** Consecutive probes that could not reach the agent (backoff). */
  failures: number;
  /** Why the last probe could not run or reach the agent (a refused private address, a timeout). */
  problem?: string;
  /** Tasks the agent declared in its last run. */
  capabilities: string[];
  /** A probe of it is running now (its run id). */
  runningRunId?: number;
  lastPassedAt?: string;
  lastFailedAt?: string;
  /** When its current unbroken passing streak began (absent: not passing). */
  passingSince?: string;
  /** When it stopped passing, while it has not passed again (the badge grace period runs from here). */
  regressedAt?: string;
}

export type RunState = 'running' | 'done' | 'interrupted';

/**
 * `triggered_by` of a run of one storyboard (`POST …/storyboard/{sid}/run`): in the history with
 * its report, but not a full run, so it never changes the agent's status, standing, due time or
 * the report its compliance detail is read from (finishRun, latestReport).
 */
export const STORYBOARD_RUN = 'storyboard_run';

export interface RunRow {
  id: number;
  agentUrl: string;
  state: RunState;
  startedAt: string;
  finishedAt?: string;
  /** The run's overall_status (passing, partial, failing, error, unreachable, auth_required). */
  overallStatus?: string;
  status?: AgentStatus;
  headline?: string;
  failingChecks: string[];
  durationMs?: number;
  triggeredBy: string;
  /** Who ran it (a process id, a worker). */
  runner: string;
  /** What the history shows of a finished run (absent on runs recorded before it existed). */
  summary?: RunSummary;
}

/** Kept with every finished run, whatever happens to its full report. */
export interface RunSummary {
  requested_compliance_target: string;
  /** The concrete version tested: the released schema set's, else the target line. */
  proto_version: string;
  tracks: Record<string, RegistryTrackStatus>;
  /** Each check's outcome, `<check_id>@<transport>` → outcome (run-diff.ts), so two runs can be compared whatever became of their reports. */
  outcomes?: Record<string, string>;
  /** The run judged strictly (a SHOULD warning fails it): how its outcomes are compared. */
  strict?: boolean;
}

/** A run's report, when asked for by id: kept (the newest runs), pruned (only the summary is left), or no such run of the agent. */
export type RunReport = { kept: true; report: RunResult } | { kept: false };

export interface ChangeRow {
  seq: number;
  agentUrl: string;
  from: AgentStatus;
  to: AgentStatus;
  at: string;
  runId: number;
}

export interface RefreshLimits {
  agentWindowMs: number;
  perCaller: number;
  callerWindowMs: number;
}

/** A member's organization as it overrides what the registry derives (interface spec 4.1: name, company type, revenue tier). */
export interface Organization {
  member: string;
  name: string;
  companyType?: string;
  revenueTier?: string;
  updatedAt: string;
}

export class DuplicateAgentError extends Error {
  override name = 'DuplicateAgentError';
}

export interface RegistryStore {
  addAgent(a: AgentInput, now: number): Promise<AgentRow>;
  /** False when no such agent. */
  removeAgent(url: string): Promise<boolean>;
  getAgent(url: string): Promise<AgentRow | undefined>;
  listAgents(): Promise<AgentRow[]>;
  /** Agents due at `now` with no probe running, soonest first. */
  dueAgents(now: number, limit: number): Promise<AgentRow[]>;
  /** Records a probe as started (state running); undefined when the agent is gone or already being probed. */
  startRun(agentId: number, now: number, runner: string, triggeredBy: string): Promise<number | undefined>;
  /**
   * Records a probe's result, the agent's new status, a change-feed row on a transition, and when it is next due: one transaction.
   * A run started as STORYBOARD_RUN records its result only (the agent is left as it was).
   */
  finishRun(runId: number, o: { result: RunResult; now: number; nextDueAt: number; failures: number; problem?: string }): Promise<void>;
  /** Runs left `running` by a process that died: marked interrupted (never a result), their agents due at once. */
  recoverInterrupted(now: number, runner?: string): Promise<number>;
  /** Applies the owner's settings (resuming monitoring or opting back in makes the agent due now); undefined when no such agent. */
  updateSettings(url: string, patch: SettingsPatch, now: number): Promise<AgentRow | undefined>;
  /** Makes the agent due now; false when no such agent. */
  requeue(url: string, now: number): Promise<boolean>;
  /**
   * Records a manual refresh by `caller` unless a limit holds: one per agent per `agentWindowMs`,
   * `perCaller` per caller per `callerWindowMs`. Atomic (several processes may serve the API).
   */
  takeRefresh(
    url: string,
    caller: string,
    now: number,
    limits: RefreshLimits,
  ): Promise<{ ok: true } | { ok: false; retryAfterS: number; limit: 'agent' | 'caller' }>;
  /** Creates or replaces the member's organization. */
  putOrganization(org: Omit<Organization, 'updatedAt'>, now: number): Promise<Organization>;
  history(url: string, limit: number): Promise<RunRow[]>;
  /** The latest full agent-compliance report of the agent (never a STORYBOARD_RUN's). */
  latestReport(url: string): Promise<RunResult | undefined>;
  /** The agent's latest finished run that passed (its badges' version). */
  lastPassingRun(url: string): Promise<RunRow | undefined>;
  /** The report of one of the agent's runs; undefined when the agent has no such finished run. */
  runReport(url: string, runId: number): Promise<RunReport | undefined>;
  changes(cursor: number, limit: number): Promise<ChangeRow[]>;
  counts(): Promise<Record<AgentStatus, number> & { agents: number; runs: number }>;
  close(): Promise<void>;
}
