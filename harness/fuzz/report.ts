/**
 * Fuzz outcomes as the checks of a `fuzz` suite in an ordinary RunResult: one check per property,
 * task and transport; a violation carries the shrunk counterexample, the seed and fast-check path,
 * and the command that replays exactly that case.
 */
import type { CheckResult, Interpretation, Level, Outcome, RunResult, TargetInfo, TransportInfo } from '../core/engine/result.js';
import { coverageOf } from '../core/engine/summarize.js';
import type { SuiteDef } from '../core/engine/model.js';
import { boundRun } from '../core/engine/bound.js';
import type { TransportKind } from '../core/transport/types.js';
import { newRunResult } from '../core/engine/run-result.js';
import type { FuzzProperty, PropertyOutcome } from './property.js';
import { LIMITS } from '../core/engine/bound.js';
import type { SentCall } from './wire-log.js';

export const FUZZ_SUITE_ID = 'fuzz';

export interface FuzzCheckInput {
  property: FuzzProperty;
  task?: string;
  transport: TransportKind;
  notes: string[];
  reportFile: string;
  /** A suite check's interpretation by id (FuzzOptions.interpretationOf). */
  interpretationOf?: (checkId: string) => Interpretation | undefined;
}

/** What a failing fuzz check stores in `evidence.actual` (read back by `--replay`). */
export interface FuzzEvidence {
  fuzz: {
    seed: number;
    path: string;
    runs: number;
    counterexample: unknown;
    property: string;
    task?: string;
    /** The counterexample's task calls as sent (arguments as JSON text): `--replay` re-sends these bytes. */
    sent?: SentCall[];
  };
}

type Skipped = { outcome: 'not_applicable' | 'gap'; message: string; gap?: string; not_run?: boolean };

const FAILING: Record<Level, Outcome> = { MUST: 'fail', SHOULD: 'warn', MAY: 'info' };

export function replayCommand(reportFile: string, checkId: string, transport: TransportKind): string {
  return `npx proto-comply fuzz --replay '${reportFile.replaceAll("'", `'\\''`)}#${checkId}@${transport}'`;
}

export function fuzzCheck(input: FuzzCheckInput, o: PropertyOutcome | Skipped, durationMs: number): CheckResult {
  const { property: p, task } = input;
  const checkId = task ? `${p.id}.${task}` : p.id;
  const base = {
    check_id: checkId,
    suite_id: FUZZ_SUITE_ID,
    title: task ? `${p.title} (${task})` : p.title,
    level: p.level,
    spec_ref: { doc: p.spec.doc, section: p.spec.section, ...(p.spec.anchor ? { anchor: p.spec.anchor } : {}), rule: p.spec.rule },
    transport: input.transport,
    duration_ms: durationMs,
  };
  const notes = { exchanges: [], notes: input.notes };
  if (o.outcome === 'not_applicable') return { ...base, outcome: 'not_applicable', message: o.message ?? '', evidence: notes };
  if (o.outcome === 'gap') {
    const s = o as Skipped & PropertyOutcome;
    return {
      ...base,
      outcome: 'gap',
      gap: s.gap ?? (s.not_run ? 'run budget' : 'optional feature'),
      ...(s.not_run ? { not_run: true } : {}),
      message: o.message ?? '',
      evidence: notes,
    };
  }
  const po = o as PropertyOutcome;
  if (po.outcome === 'pass') return { ...base, outcome: 'pass', message: `${po.message ?? 'passed'} (seed ${po.seed})` };
  const replay = replayCommand(input.reportFile, checkId, input.transport);
  const actual: FuzzEvidence = {
    fuzz: { seed: po.seed, path: po.path ?? '', runs: po.runs, counterexample: po.counterexample, property: p.id, ...(task ? { task } : {}) },
  };
  // The bodies are kept when the evidence still fits its bound with them (else the replay draws the case from seed and path).
  const withSent: FuzzEvidence = po.sent?.length ? { fuzz: { ...actual.fuzz, sent: po.sent } } : actual;
  const sentKept = withSent !== actual && JSON.stringify(withSent).length <= LIMITS.value;
  const bodiesNote = po.sent?.length
    ? sentKept
      ? `the counterexample's ${po.sent.length} request bod${po.sent.length === 1 ? 'y is' : 'ies are'} kept: --replay re-sends them byte for byte`
      : 'the request bodies were too large to keep: --replay draws the case again from seed and path'
    : undefined;
  const divergedNote = po.diverged ? `the replayed case made ${po.diverged} call(s) the recording did not have; they were sent as drawn` : undefined;
  const interpretation = p.interpretation ?? (p.sameRuleAs ? input.interpretationOf?.(p.sameRuleAs) : undefined);
  return {
    ...base,
    outcome: FAILING[p.level],
    ...(interpretation ? { interpretation } : {}),
    message: `${po.message ?? 'violated'} (shrunk counterexample; seed ${po.seed}, path ${po.path ?? '?'})`,
    evidence: {
      expected: p.spec.rule,
      actual: sentKept ? withSent : actual,
      exchanges: po.exchanges ?? [],
      notes: [
        `replay: ${replay}`,
        `fast-check seed ${po.seed}, path ${po.path ?? '?'}, after ${po.runs} case(s)`,
        ...(bodiesNote ? [bodiesNote] : []),
        ...(divergedNote ? [divergedNote] : []),
        ...input.notes,
      ],
    },
  };
}

export function fuzzSuite(checks: readonly CheckResult[]): SuiteDef {
  const ids = [...new Set(checks.map((c) => c.check_id))];
  return {
    id: FUZZ_SUITE_ID,
    title: 'Property-based fuzzing of requests (near-valid refused, valid accepted)',
    checks: ids.map((id) => {
      const c = checks.find((x) => x.check_id === id) as CheckResult;
      return { id, title: c.title, level: c.level, spec: c.spec_ref, steps: [] };
    }),
  };
}

export function fuzzRunResult(o: {
  agentUrl: string;
  token: string;
  transports: TransportKind[];
  info: TransportInfo[];
  checks: CheckResult[];
  seed: number;
  startedAt: Date;
  command: string;
  budgetS?: number;
  target: TargetInfo;
}): RunResult {
  const coverage = coverageOf(o.checks, o.transports, o.budgetS);
  const unreachable = o.info.filter((i) => !i.reachable);
  for (const i of unreachable) coverage.reasons.push(`${i.transport} could not be used: ${i.problem ?? 'unreachable'}`);
  if (unreachable.length) coverage.complete = false;
  const failing = o.checks.filter((c) => c.outcome === 'fail');
  const status: RunResult['overall_status'] =
    unreachable.length === o.info.length
      ? unreachable.some((i) => i.auth_required)
        ? 'auth_required'
        : 'unreachable'
      : failing.length
        ? 'failing'
        : coverage.complete
          ? 'passing'
          : 'partial';
  const headline =
    status === 'unreachable' || status === 'auth_required'
      ? `the agent could not be used: ${unreachable.map((i) => i.problem).join('; ')}`
      : failing.length
        ? `${failing.length} fuzz propert${failing.length === 1 ? 'y' : 'ies'} violated, first: ${failing[0].check_id} (${failing[0].transport})`
        : status === 'passing'
          ? `no fuzz property violated (${o.checks.filter((c) => c.outcome === 'pass').length} checks)`
          : `no fuzz property violated, coverage incomplete: ${coverage.reasons[0] ?? ''}`;
  return boundRun(
    newRunResult(
      {
        agentUrl: o.agentUrl,
        token: o.token,
        transports: o.transports,
        target: o.target,
        seed: String(o.seed),
        command: o.command,
        startedAt: o.startedAt,
      },
      {
        suites: [fuzzSuite(o.checks)],
        checks: o.checks,
        transportInfo: o.info,
        status,
        coverage,
        lifecycleStage: 'production',
        headline,
        selection: { suites: [FUZZ_SUITE_ID], budget_s: o.budgetS, strict: false },
      },
    ),
  );
}
