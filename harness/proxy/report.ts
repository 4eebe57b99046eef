/**
 * The passive audit as an agent-compliance report: one check per audited id and transport, with
 * the check's title, level and spec reference from the suite that owns the id, so a proxy report
 * line and a `run` report line of the same id mean the same rule. A check traffic never exercised
 * is a coverage gap (`observed traffic`), never a pass.
 */
import { builtinSuites } from '../../suites/index.js';
import { boundRun } from '../core/engine/bound.js';
import type { CheckDef, SuiteDef } from '../core/engine/model.js';
import type { CheckResult, InjectionSummary, Level, Outcome, RunResult } from '../core/engine/result.js';
import { coverageOf } from '../core/engine/summarize.js';
import type { TransportKind } from '../core/transport/types.js';
import { newRunResult, targetInfo } from '../core/engine/run-result.js';
import type { Verdict } from './audit.js';
import { DEFAULT_TARGET, describeLines, inLines, type ProtocolLine } from '../core/protocol/lines.js';

const FAILING: Record<Level, Outcome> = { MUST: 'fail', SHOULD: 'warn', MAY: 'info' };
const KEPT_FAILURES = 3;

interface Tally {
  judged: number;
  failed: number;
  failures: Verdict[];
  lastPass?: Verdict;
}

/** The suite definitions of the audited ids (each suite reduced to the ids the audit judges). */
export function auditedSuites(ids: readonly string[]): { suites: SuiteDef[]; checks: Map<string, { suite: string; def: CheckDef }> } {
  const wanted = new Set(ids);
  const checks = new Map<string, { suite: string; def: CheckDef }>();
  const suites: SuiteDef[] = [];
  for (const s of builtinSuites().suites) {
    const mine = s.checks.filter((c) => wanted.has(c.id));
    if (!mine.length) continue;
    suites.push({ ...s, checks: mine });
    for (const c of mine) checks.set(c.id, { suite: s.id, def: c });
  }
  const unknown = ids.filter((id) => !checks.has(id));
  if (unknown.length) throw new Error(`the passive audit names check ids no suite defines: ${unknown.join(', ')}`);
  return { suites, checks };
}

/** Verdicts tallied per check id and transport. */
export class AuditTally {
  private readonly tallies = new Map<string, Tally>();
  findings = 0;
  judged = 0;

  add(transport: TransportKind, verdicts: readonly Verdict[]): void {
    for (const v of verdicts) {
      const key = `${v.checkId}\u0000${transport}`;
      const t = this.tallies.get(key) ?? { judged: 0, failed: 0, failures: [] };
      t.judged++;
      this.judged++;
      if (v.ok) t.lastPass = v;
      else {
        t.failed++;
        this.findings++;
        if (t.failures.length < KEPT_FAILURES) t.failures.push(v);
      }
      this.tallies.set(key, t);
    }
  }

  get(checkId: string, transport: TransportKind): Tally | undefined {
    return this.tallies.get(`${checkId}\u0000${transport}`);
  }
}

export function auditRunResult(o: {
  upstream: string;
  token: string;
  ids: readonly string[];
  tally: AuditTally;
  exchanges: number;
  startedAt: Date;
  command: string;
  injected?: InjectionSummary;
  /** Exchanges the audit failed on (a harness bug): named in the headline and coverage. */
  unaudited?: number;
  /** `caller`: the report on the buyer's requests (the caller suite), not on the agent. */
  subject?: 'agent' | 'caller';
  /** The protocol line judged against (default the newest released line). */
  target?: ProtocolLine;
}): RunResult {
  const caller = o.subject === 'caller';
  const seen = caller ? 'request(s)' : 'answer(s)';
  const transports: TransportKind[] = ['mcp', 'a2a'];
  const { suites, checks: defs } = auditedSuites(o.ids);
  const checks: CheckResult[] = [];
  for (const transport of transports) {
    for (const id of o.ids) {
      const { suite, def } = defs.get(id) as { suite: string; def: CheckDef };
      const base = { check_id: id, suite_id: suite, title: def.title, level: def.level, spec_ref: def.spec, transport, duration_ms: 0 };
      const line = o.target ?? DEFAULT_TARGET;
      if (!inLines(line, def.lines)) {
        checks.push({
          ...base,
          outcome: 'not_applicable',
          lines: def.lines,
          message: `not a rule of the ${line} line: the rule belongs to ${describeLines(def.lines!)}`,
          evidence: { exchanges: [] },
        });
        continue;
      }
      const t = o.tally.get(id, transport);
      if (!t) {
        checks.push({
          ...base,
          outcome: 'gap',
          gap: 'observed traffic',
          message: `no ${transport} ${caller ? 'request' : 'exchange'} seen through the proxy exercised this rule`,
          evidence: { exchanges: [], notes: ['a passive audit judges only what the buyer happened to send'] },
        });
        continue;
      }
      if (t.failed === 0) {
        checks.push({ ...base, outcome: 'pass', message: `${t.judged} observed ${seen}, none breaking the rule; last: ${t.lastPass?.message ?? ''}` });
        continue;
      }
      const first = t.failures[0];
      checks.push({
        ...base,
        outcome: FAILING[def.level],
        message: `${t.failed} of ${t.judged} observed ${seen} break the rule; first: ${first.message}`,
        evidence: {
          expected: first.expected ?? def.spec.rule,
          actual: first.actual,
          exchanges: t.failures.flatMap((f) => f.exchanges),
          notes: t.failures.map((f) => f.message),
        },
      });
    }
  }
  const coverage = coverageOf(checks, transports);
  if (o.unaudited) {
    coverage.complete = false;
    coverage.reasons.push(`${o.unaudited} exchange(s) could not be audited (a harness error; the traffic passed unchanged)`);
  }
  const failing = checks.filter((c) => c.outcome === 'fail');
  const status: RunResult['overall_status'] = failing.length ? 'failing' : coverage.complete ? 'passing' : 'partial';
  const what = caller ? 'buyer rule(s) broken by the requests sent to the agent' : 'rule(s) broken in observed traffic';
  const headline = failing.length
    ? `${failing.length} ${what}, first: ${failing[0].check_id} (${failing[0].transport})`
    : `no ${caller ? 'buyer ' : ''}rule broken in ${o.exchanges} observed exchange(s) (${o.tally.judged} verdicts)`;
  return boundRun(
    newRunResult(
      {
        agentUrl: o.upstream,
        token: o.token,
        transports,
        target: targetInfo(o.target),
        seed: o.injected?.seed ?? '0',
        command: o.command,
        startedAt: o.startedAt,
      },
      {
        suites,
        checks,
        transportInfo: transports.map((t) => ({ transport: t, endpoint: o.upstream, reachable: true, auth_required: false, declared_tasks: [] })),
        status,
        coverage,
        lifecycleStage: 'production',
        headline,
        selection: { suites: suites.map((s) => s.id), strict: false },
        ...(o.injected ? { injected: o.injected } : {}),
      },
    ),
  );
}
