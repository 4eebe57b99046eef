/**
 * The canonical run result. Every report (agent-compliance JSON, JUnit, HTML, Allure, console)
 * is a rendering of this one object; nothing in reports/ calls an agent.
 */
import type { TransportKind, WireExchange } from '../transport/types.js';
import type { ProtocolLine } from '../protocol/lines.js';
import type { LifecycleStage } from './lifecycle.js';
import type { StoryboardStepInfo } from './storyboard-step.js';
import type { RunTiming } from './timing.js';

/**
 * The closed set of outcomes of one check on one transport:
 * - `pass`; `fail` / `warn` / `info`: the agent broke a MUST / SHOULD / MAY rule;
 * - `not_applicable`: the agent does not claim what the check is about;
 * - `blocked`: not verified because another check failed first (`blocked_by` names it);
 * - `gap`: not verified because the agent lacks an optional feature the check needs (a test
 *   controller, a controller scenario, an A2A card), or the run budget ran out (`not_run`);
 *   a gap never fails a run, it makes coverage incomplete;
 * - `error`: the harness itself broke.
 */
export const OUTCOMES = ['pass', 'fail', 'warn', 'info', 'not_applicable', 'blocked', 'gap', 'error'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Outcomes that verified the rule one way or the other. */
export const VERIFIED_OUTCOMES: ReadonlySet<Outcome> = new Set(['pass', 'fail', 'warn', 'info']);

export const LEVELS = ['MUST', 'SHOULD', 'MAY'] as const;
export type Level = (typeof LEVELS)[number];

/**
 * `passing`: every MUST that ran passed and coverage is complete; `failing`: a check failed
 * (a MUST, or a SHOULD under --strict); `partial`: nothing failed but coverage is incomplete
 * (gaps, budget); `error`: the harness broke (a check ended in error, or the run itself);
 * `unreachable` / `auth_required`: no transport could be used.
 */
export type OverallStatus = 'passing' | 'partial' | 'failing' | 'error' | 'unreachable' | 'auth_required';
export type SuiteStatus = 'passing' | 'failing' | 'partial' | 'not_applicable' | 'untested';

export interface SpecRef {
  /** `interface-spec` (authoritative) or `digest` (details the spec names). */
  doc: 'interface-spec' | 'digest';
  /** Section number, e.g. `4.4`. */
  section: string;
  /** GitHub-style anchor of the section's heading in the document, e.g. `44-idempotency-rules`. */
  anchor?: string;
  /** Rule within the section, e.g. `rule 2`, or a short name of the statement. */
  rule?: string;
}

/** The reading a check applies where the spec can be read more than one way. */
export interface Interpretation {
  /** The spec sentence (or sentences) the check rests on, quoted with its place. */
  spec_text: string;
  /** The reading chosen, and why. */
  reading: string;
}

export interface Evidence {
  /** What the check wanted. */
  expected?: unknown;
  /** What the agent did. */
  actual?: unknown;
  /** RFC 6901 pointer into the payload the expectation looked at. */
  pointer?: string;
  /** Wire exchanges of the check, secrets redacted. */
  exchanges: WireExchange[];
  /** Extra facts (e.g. where the payload was read from). */
  notes?: string[];
}

export interface CheckResult {
  check_id: string;
  suite_id: string;
  title: string;
  level: Level;
  spec_ref: SpecRef;
  transport: TransportKind;
  outcome: Outcome;
  duration_ms: number;
  /** One line: why it passed / failed / was skipped. */
  message: string;
  /** Present on every non-pass (and optionally on passes). */
  evidence?: Evidence;
  /** Outcome `blocked`: the check (same transport) whose failure kept this one from running. */
  blocked_by?: string;
  /** Outcome `gap`: the optional feature the agent lacks, in a few words (`test controller`). */
  gap?: string;
  /** True when the run budget ran out before this check finished (outcome is then `gap`). */
  not_run?: boolean;
  /** Outcome not_applicable or gap taken from this prerequisite (same transport), which did not apply or was not verified; the check did not run. */
  inherited_from?: string;
  /** True when a baseline entry expected this failure (issue 6). */
  baselined?: boolean;
  /**
   * A failing (fail, warn, info) or blocked result: the check whose failure is the first of the
   * same defect on this transport (itself when it is the first; for a blocked check, the root of
   * what blocked it). Reports group failures by it, so one defect reads as one defect.
   */
  root_cause?: string;
  /** The protocol lines the check's rule belongs to, when not every line. */
  lines?: ProtocolLine[];
  /** The reading the check applies where the spec can be read more than one way. */
  interpretation?: Interpretation;
  /** A check compiled from a storyboard step: the step, and what the step kind found (storyboard-step.ts). */
  storyboard_step?: StoryboardStepInfo;
}

export type OutcomeCounts = Record<Outcome, number>;

/**
 * What became of one expected-failures baseline entry in this run (issue 6):
 * `expected` — the check still fails and the entry excused it; `stale` — the check ran and no
 * longer fails, so the entry must be removed (a stale entry fails the run); `unused` — the check
 * was not in this run's selection or did not run (budget), so nothing can be said.
 */
export type BaselineEntryStatus = 'expected' | 'stale' | 'unused';

export interface BaselineEntryResult {
  check_id: string;
  /** Absent: the entry covers every transport. */
  transport?: TransportKind;
  reason: string;
  status: BaselineEntryStatus;
  /** Failing results this entry excused (marked `baselined`). */
  matched: number;
}

export interface BaselineSummary {
  /** The baseline file as given on the command line. */
  file: string;
  entries: BaselineEntryResult[];
}

export interface SuiteResult {
  suite_id: string;
  title: string;
  /** The compliance track it counts toward, when not its id (SuiteDef.track). */
  track?: string;
  /** The storyboard it was compiled from (SuiteDef.storyboard_id). */
  storyboard_id?: string;
  status: SuiteStatus;
  counts: OutcomeCounts;
  /** Per transport: the same summary restricted to that transport. */
  by_transport: Partial<Record<TransportKind, { status: SuiteStatus; counts: OutcomeCounts }>>;
  first_failure?: { check_id: string; transport: TransportKind; message: string };
}

export interface TransportInfo {
  transport: TransportKind;
  endpoint: string;
  reachable: boolean;
  auth_required: boolean;
  /** MCP session id (redacted to a prefix) or absent for stateless servers. */
  session?: string;
  /** MCP sessions opened during the run (1 when the server keeps sessions). */
  sessions_opened?: number;
  server?: string;
  /** Task names the agent lists. */
  declared_tasks: string[];
  /** Why the transport could not be used, if it could not. */
  problem?: string;
}

/** The protocol line the run judged against, and what the agent says it speaks. */
export interface TargetInfo {
  /** The line judged (digest 6.3 `requested_compliance_target`): `--target`, default DEFAULT_TARGET. */
  requested_compliance_target: ProtocolLine;
  /** The target was given by the user (false: the default, the newest released line). */
  explicit: boolean;
  /** What the agent declares in its capabilities (`<token>.supported_versions`, `major_versions`, `build_version`), from the first transport that answered. */
  agent_declared?: { supported_versions?: string[]; major_versions?: number[]; build_version?: string };
  /** The agent declares release versions and the target is not among them (its verdicts then judge a line it does not claim). */
  agent_lacks_target?: boolean;
  /** The response schemas judged with, when a released set was named (`--schemas`) or looked for (beside a storyboard bundle). */
  response_schemas?: ResponseSchemasInfo;
}

/** Which response schemas a run judged with: a released set of the target's line, or the harness's own (fixtures/schemas). */
export interface ResponseSchemasInfo {
  judged_with: 'released' | 'harness';
  /** The released set named or found: its directory, version and line, and how it was chosen. */
  released_set?: { dir: string; version: string; line: ProtocolLine; chosen: 'named' | 'beside the bundle' };
  /** One line: the set used and why, or why the harness's own schemas judge. */
  note: string;
}

/** The version of the agent-compliance document (reports/agent-compliance.schema.json). */
export const RESULT_SCHEMA_VERSION = '1.2';

export interface RunResult {
  schema_version: typeof RESULT_SCHEMA_VERSION;
  harness: { name: 'proto-comply'; version: string };
  agent_url: string;
  token: string;
  transports: TransportKind[];
  transport_info: TransportInfo[];
  overall_status: OverallStatus;
  coverage: Coverage;
  /** The protocol line judged against and the agent's own declaration. */
  target: TargetInfo;
  /** The agent's lifecycle stage as the registry records it (digest 6.3): given by the caller, or
   *  `testing` for an agent that declares a sandbox test controller and `production` otherwise. */
  lifecycle_stage: LifecycleStage;
  headline: string;
  seed: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /** Shell command that reproduces this run (same seed, same selection). */
  command: string;
  selection: { suites: string[]; check_glob?: string; budget_s?: number; strict: boolean; allow_gaps?: boolean; require_full_coverage?: boolean };
  counts: OutcomeCounts;
  suites: SuiteResult[];
  checks: CheckResult[];
  /** Present when the run was judged against an expected-failures baseline (`--baseline`). */
  baseline?: BaselineSummary;
  /** The harness itself broke mid-run (status `error`): the cause, one line. The checks finished before are kept. */
  harness_error?: string;
  /** A proxy report with `--inject`: the faults the proxy injected (harness/proxy/inject.ts). */
  injected?: InjectionSummary;
  /** Where the run's time went: waiting on the agent vs the rest (engine/timing.ts); set by `certify`. */
  timing?: RunTiming;
}

export interface InjectionSummary {
  seed: string;
  rules: string[];
  total: number;
  by_rule: Record<string, number>;
  /** The first 1,000 faults in detail. */
  faults: Array<{ seq: number; at: string; rule: string; what: string }>;
}

/** How much of what applies to the agent was verified, per transport and level. */
export interface CoverageCounts {
  /** Ran to a verdict (pass, fail, warn, info). */
  verified: number;
  blocked: number;
  gap: number;
  error: number;
  not_applicable: number;
}

/** A cascade: checks blocked by the same failing check on one transport, reported as one line. */
export interface BlockedGroup {
  blocked_by: string;
  transport: TransportKind;
  /** The blocking check's outcome message. */
  cause: string;
  check_ids: string[];
}

/** Checks that are coverage gaps for the same reason, reported as one line. */
export interface GapGroup {
  gap: string;
  reason: string;
  transports: TransportKind[];
  check_ids: string[];
}

export interface Coverage {
  /** Every applicable check was verified (no blocked, gap or error outcome). */
  complete: boolean;
  /** One line per reason coverage is incomplete. */
  reasons: string[];
  by_transport: Partial<Record<TransportKind, Record<Level, CoverageCounts>>>;
  blocked: BlockedGroup[];
  gaps: GapGroup[];
}

export function emptyCounts(): OutcomeCounts {
  return { pass: 0, fail: 0, warn: 0, info: 0, not_applicable: 0, blocked: 0, gap: 0, error: 0 };
}

/** Does this outcome fail a run? A failed MUST does; a failed SHOULD only under --strict. Blocked checks and gaps never do by themselves. */
export function isFailing(check: Pick<CheckResult, 'outcome' | 'level' | 'not_run'>, strict = false): boolean {
  if (check.outcome === 'fail') return true;
  if (strict && check.outcome === 'warn') return true;
  return false;
}
