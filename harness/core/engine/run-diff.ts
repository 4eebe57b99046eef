/**
 * Comparing two runs of the same agent, check by check: what regressed, what was fixed, what
 * else changed, which checks only one run has. Pure: no I/O. The registry stores `outcomesOf`
 * with every run and diffs two of those maps; `proto-comply diff` diffs two reports.
 *
 * A check is identified as everywhere else in the harness (baselines, reports): its `check_id`
 * on one `transport`. The compact key is `<check_id>@<transport>`; a transport never contains
 * `@`, so the key splits at its last `@` even when a storyboard's check id holds one.
 *
 * Classification, with `strict` the after run's `--strict` (a SHOULD warning then fails a run;
 * `isFailing` decides). Each outcome falls in one of four tiers:
 * - failing: fails the run (`fail`; `warn` under strict);
 * - ok: verified and not failing (`pass`, `info`, `warn` when not strict);
 * - unverified: applicable but no verdict (`blocked`, `gap`, `error`);
 * - not applicable (`not_applicable`), outside the order.
 *
 * `regressed` — what got worse: a check that fails the run now and did not before (from any
 * tier: `pass`, `not_applicable`, `blocked`, …), or one verified ok before that has no verdict
 * now (`pass` → `blocked` / `gap` / `error`: the agent lost coverage it had).
 * `fixed` — a check that failed the run before and is verified ok now (`fail` → `pass`). A
 * failure that turns into `blocked`, `gap`, `error` or `not_applicable` is not a fix (nothing was
 * verified, or the agent stopped claiming the feature) and is listed as `changed`.
 * `changed` — every other change of outcome: improvements that are not fixes (`blocked` → `pass`,
 * `not_applicable` → `pass`), `pass` → `not_applicable`, `pass` → `warn` when not strict, ….
 * `added` / `removed` — a check only the after / before run has (another selection, transport or
 * harness version); `before` / `after` is then null.
 *
 * An unknown outcome string (a map stored by a later harness version) is never ok nor failing: a
 * change to or from it is `changed`, unless the other side makes it a regression or a fix.
 */
import { isFailing, VERIFIED_OUTCOMES, type Outcome, type RunResult } from './result.js';
import type { TransportKind } from '../transport/types.js';

/**
 * `<check_id>@<transport>` → outcome, for every check of the run. Stored as JSON an entry costs
 * the check id plus 10–20 bytes (quotes, `@`, the transport, colon, the outcome, comma): 33 to 82
 * bytes, about 50 on average, in a full certification of the mock seller (532 check results, 26
 * KB as JSON; run-diff.test.ts measures it). A key listed twice (a hand-made report) keeps the
 * worse outcome.
 */
export function outcomesOf(run: Pick<RunResult, 'checks' | 'selection'>): Record<string, string> {
  const strict = run.selection?.strict ?? false;
  const map: Record<string, string> = {};
  for (const c of run.checks) {
    const key = checkKey(c.check_id, c.transport);
    const seen = map[key];
    if (seen === undefined || worse(c.outcome, seen, strict)) map[key] = c.outcome;
  }
  return map;
}

/** The key of a check on a transport in an outcomes map. */
export function checkKey(checkId: string, transport: string): string {
  return `${checkId}@${transport}`;
}

/** A key split back into check id and transport (at its last `@`; no `@`: transport ''). */
export function splitCheckKey(key: string): { check: string; transport: string } {
  const at = key.lastIndexOf('@');
  return at < 0 ? { check: key, transport: '' } : { check: key.slice(0, at), transport: key.slice(at + 1) };
}

export interface OutcomeChange {
  check: string;
  transport: TransportKind | string;
  /** Null: the before run does not have the check (`added`). */
  before: Outcome | string | null;
  /** Null: the after run does not have the check (`removed`). */
  after: Outcome | string | null;
}

export interface OutcomeDiff {
  regressed: OutcomeChange[];
  fixed: OutcomeChange[];
  changed: OutcomeChange[];
  added: OutcomeChange[];
  removed: OutcomeChange[];
}

export interface DiffOptions {
  /** Judge `warn` as failing, as `--strict` runs do (use the after run's `selection.strict`). Default false. */
  strict?: boolean;
}

type Tier = 'failing' | 'ok' | 'unverified' | 'not_applicable' | 'unknown';

const UNVERIFIED = new Set<string>(['blocked', 'gap', 'error']);

/** The tier of an outcome (see the module comment). */
export function outcomeTier(outcome: string, strict = false): Tier {
  if (!isKnownOutcome(outcome)) return 'unknown';
  if (isFailing({ outcome, level: 'MUST' }, strict)) return 'failing';
  if (VERIFIED_OUTCOMES.has(outcome)) return 'ok';
  if (UNVERIFIED.has(outcome)) return 'unverified';
  return 'not_applicable';
}

function isKnownOutcome(outcome: string): outcome is Outcome {
  return VERIFIED_OUTCOMES.has(outcome as Outcome) || UNVERIFIED.has(outcome) || outcome === 'not_applicable';
}

/** The change from `before` to `after` is a regression (both present, different outcomes). */
export function isRegression(before: string, after: string, strict = false): boolean {
  const b = outcomeTier(before, strict);
  const a = outcomeTier(after, strict);
  if (a === 'failing') return b !== 'failing';
  return b === 'ok' && a === 'unverified';
}

/** The change from `before` to `after` is a fix: failing before, verified and not failing now. */
export function isFix(before: string, after: string, strict = false): boolean {
  return outcomeTier(before, strict) === 'failing' && outcomeTier(after, strict) === 'ok';
}

/** `a` is worse than `b`: the change from b to a would be a regression. */
function worse(a: string, b: string, strict: boolean): boolean {
  return a !== b && isRegression(b, a, strict);
}

const TRANSPORT_ORDER: Record<string, number> = { mcp: 0, a2a: 1, rest: 2 };

/** By check id (code points, not locale), then mcp, a2a, rest, then any other transport by name. */
function byCheck(x: OutcomeChange, y: OutcomeChange): number {
  if (x.check !== y.check) return x.check < y.check ? -1 : 1;
  const tx = TRANSPORT_ORDER[x.transport] ?? 3;
  const ty = TRANSPORT_ORDER[y.transport] ?? 3;
  if (tx !== ty) return tx - ty;
  return x.transport < y.transport ? -1 : x.transport > y.transport ? 1 : 0;
}

/**
 * Compares two outcome maps (`outcomesOf` of the before and the after run). Checks with the same
 * outcome in both are left out. Every list is ordered by check id, then transport (mcp, a2a,
 * rest), whatever order the maps' keys come in (a database may reorder them).
 */
export function diffOutcomes(before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>, options: DiffOptions = {}): OutcomeDiff {
  const strict = options.strict ?? false;
  const diff: OutcomeDiff = { regressed: [], fixed: [], changed: [], added: [], removed: [] };
  const has = (map: Readonly<Record<string, string>>, key: string) => Object.hasOwn(map, key);
  for (const key of Object.keys(after)) {
    const { check, transport } = splitCheckKey(key);
    const a = after[key];
    if (!has(before, key)) {
      diff.added.push({ check, transport, before: null, after: a });
      continue;
    }
    const b = before[key];
    if (a === b) continue;
    const change = { check, transport, before: b, after: a };
    if (isRegression(b, a, strict)) diff.regressed.push(change);
    else if (isFix(b, a, strict)) diff.fixed.push(change);
    else diff.changed.push(change);
  }
  for (const key of Object.keys(before)) {
    if (has(after, key)) continue;
    const { check, transport } = splitCheckKey(key);
    diff.removed.push({ check, transport, before: before[key], after: null });
  }
  for (const list of Object.values(diff)) list.sort(byCheck);
  return diff;
}

/** What `comparability` reads of a run. */
export type RunFacts = Pick<RunResult, 'agent_url' | 'target' | 'selection' | 'transports' | 'harness' | 'lifecycle_stage' | 'overall_status'>;

function sameSet(a: readonly string[] = [], b: readonly string[] = []): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

function listText(list: readonly string[] | undefined): string {
  return list?.length ? list.join(',') : 'none';
}

/**
 * One line per reason the two runs do not compare like for like (empty: they do): another agent,
 * another target line, another suite selection or check glob, other transports, strict on one
 * side only, another lifecycle stage, another harness version, or a run that never reached the
 * agent. Warnings, not errors: the diff is still computed. The lines quote report values as they
 * are; a renderer makes them inert.
 */
export function comparability(before: RunFacts, after: RunFacts): string[] {
  const lines: string[] = [];
  if (before.agent_url !== after.agent_url) lines.push(`different agent URL: ${before.agent_url} → ${after.agent_url}`);
  const tb = before.target?.requested_compliance_target;
  const ta = after.target?.requested_compliance_target;
  if (tb !== ta) lines.push(`different target line: ${tb ?? 'unknown'} → ${ta ?? 'unknown'}`);
  if (!sameSet(before.selection?.suites, after.selection?.suites)) {
    lines.push(`different suites selected: ${listText(before.selection?.suites)} → ${listText(after.selection?.suites)}`);
  }
  if ((before.selection?.check_glob ?? '') !== (after.selection?.check_glob ?? '')) {
    lines.push(`different check selection: ${before.selection?.check_glob || 'all'} → ${after.selection?.check_glob || 'all'}`);
  }
  if (!sameSet(before.transports, after.transports)) lines.push(`different transports: ${listText(before.transports)} → ${listText(after.transports)}`);
  const sb = before.selection?.strict ?? false;
  const sa = after.selection?.strict ?? false;
  if (sb !== sa)
    lines.push(
      `strict on one side only (before ${sb ? 'strict' : 'not strict'}, after ${sa ? 'strict' : 'not strict'}): judged as the after run, ${sa ? 'strict' : 'not strict'}`,
    );
  if (before.lifecycle_stage !== after.lifecycle_stage) lines.push(`different lifecycle stage: ${before.lifecycle_stage} → ${after.lifecycle_stage}`);
  if (before.harness?.version !== after.harness?.version) {
    lines.push(`different harness versions: ${before.harness?.version} → ${after.harness?.version} (checks may have been added, removed or changed)`);
  }
  for (const [side, run] of [
    ['before', before],
    ['after', after],
  ] as const) {
    if (run.overall_status === 'unreachable' || run.overall_status === 'auth_required') {
      lines.push(`the ${side} run did not reach the agent (${run.overall_status})`);
    }
  }
  return lines;
}

export interface RunDiff extends OutcomeDiff {
  /** Not comparable like for like, one line a reason (`comparability`). */
  warnings: string[];
  /** Whether `warn` counted as failing (the after run's `--strict`). */
  strict: boolean;
  /** Checks (per transport) present in both runs. */
  compared: number;
}

/** `diffOutcomes` of two whole runs, judged with the after run's strictness, plus `comparability`. */
export function diffRuns(before: RunResult, after: RunResult): RunDiff {
  const strict = after.selection?.strict ?? false;
  const b = outcomesOf(before);
  const a = outcomesOf(after);
  const compared = Object.keys(a).filter((k) => Object.hasOwn(b, k)).length;
  return { ...diffOutcomes(b, a, { strict }), warnings: comparability(before, after), strict, compared };
}
