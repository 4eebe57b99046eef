/**
 * `junit.xml`: one `<testsuite>` per suite × transport (`capabilities [mcp]`), one `<testcase>`
 * per check (classname `suite_id.transport`, name `check_id: title`, time in seconds).
 *
 * - fail, and anything else that fails the run (warn under --strict) → `<failure>` with the
 *   message and a compact evidence text; a harness error → `<error>`.
 * - not applicable, blocked (by another check's failure), coverage gap, not run → `<skipped message=…>`;
 *   each blocked cascade and each gap is also one testcase of a `not verified` testsuite, so the
 *   cascade reads as one line.
 * - a baselined failure (expected by the baseline) → `<skipped>` too, like pytest's xfail, its
 *   evidence kept in `<system-out>`, so CI gates on new failures only.
 * - warn / info that do not fail the run → passing testcase with a `<system-out>` note.
 * Level, spec reference and outcome are testcase `<properties>`.
 */
import { join } from 'node:path';
import { isFailing } from '../harness/core/engine/result.js';
import { blockedLine, gapLine } from '../harness/core/engine/summarize.js';
import type { CheckResult, RunResult } from '../harness/core/engine/result.js';
import { evidenceText } from './evidence-text.js';
import { writeFileAtomic } from './fs.js';
import { oneLine, specRefText } from './text.js';
import { defectGroups, defectHeadline, interpretationText, rootCauseNote, type DefectGroup } from './view.js';
import { el, renderXmlDocument } from './xml.js';
import type { XmlElement } from './xml.js';

export const JUNIT_FILE = 'junit.xml';

type Verdict = 'passed' | 'failure' | 'error' | 'skipped';

function verdict(check: CheckResult, strict: boolean): Verdict {
  if (isFailing(check, strict)) return check.baselined ? 'skipped' : 'failure';
  if (check.outcome === 'error') return 'error';
  if (check.outcome === 'not_applicable' || check.outcome === 'blocked' || check.outcome === 'gap') return 'skipped';
  return 'passed';
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

function skipMessage(check: CheckResult): string {
  const why = check.not_run
    ? 'not run (budget exhausted)'
    : check.baselined
      ? `expected failure (baselined ${check.outcome})`
      : check.outcome === 'gap'
        ? `coverage gap (${check.gap ?? 'optional feature'})`
        : check.outcome.replaceAll('_', ' ');
  return oneLine(`${why}: ${check.message}`, 1000);
}

/** A root cause's failure names the other checks of its defect (reports/view.ts defectGroups). */
function defectNote(check: CheckResult, defects: ReadonlyMap<string, DefectGroup>): string | undefined {
  const g = check.root_cause === check.check_id ? defects.get(check.check_id) : undefined;
  return g ? `${defectHeadline(g)}; also failing: ${g.failing.join(', ')}${g.blocked.length ? `; blocked: ${g.blocked.join(', ')}` : ''}` : undefined;
}

function testcase(check: CheckResult, strict: boolean, defects: ReadonlyMap<string, DefectGroup>): XmlElement {
  const v = verdict(check, strict);
  const evidence = evidenceText(check.evidence);
  const properties = el('properties', undefined, [
    el('property', { name: 'level', value: check.level }),
    el('property', { name: 'spec_ref', value: specRefText(check.spec_ref) }),
    el('property', { name: 'outcome', value: check.not_run ? 'not_run' : check.outcome }),
    check.baselined ? el('property', { name: 'baselined', value: 'true' }) : undefined,
    check.root_cause ? el('property', { name: 'root_cause', value: oneLine(check.root_cause, 200) }) : undefined,
    check.lines ? el('property', { name: 'protocol_lines', value: check.lines.join(' ') }) : undefined,
    check.interpretation ? el('property', { name: 'interpretation', value: oneLine(interpretationText(check)!, 1000) }) : undefined,
  ]);
  const body: Array<XmlElement | undefined> = [properties];
  const root = rootCauseNote(check) ?? defectNote(check, defects);
  const message = oneLine(root ? `${check.message} (${root})` : check.message, 1000);
  if (v === 'failure') {
    body.push(el('failure', { message, type: check.outcome }, evidence ? [evidence] : []));
  } else if (v === 'error') {
    body.push(el('error', { message, type: 'error' }, evidence ? [evidence] : []));
  } else if (v === 'skipped') {
    body.push(el('skipped', { message: skipMessage(check) }));
    if (check.baselined && evidence) body.push(el('system-out', undefined, [evidence]));
  } else if (check.outcome === 'warn' || check.outcome === 'info') {
    const note = `${check.outcome.toUpperCase()} (${check.level}): ${check.message}`;
    body.push(el('system-out', undefined, [evidence ? `${note}\n${evidence}` : note]));
  }
  return el(
    'testcase',
    { classname: `${check.suite_id}.${check.transport}`, name: `${check.check_id}: ${check.title}`, time: seconds(check.duration_ms) },
    body,
  );
}

interface Totals {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  time: number;
}

function totals(checks: CheckResult[], strict: boolean): Totals {
  const t: Totals = { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };
  for (const c of checks) {
    t.tests += 1;
    t.time += c.duration_ms;
    const v = verdict(c, strict);
    if (v === 'failure') t.failures += 1;
    else if (v === 'error') t.errors += 1;
    else if (v === 'skipped') t.skipped += 1;
  }
  return t;
}

/**
 * `<testsuite name="baseline">`: one testcase per baseline entry. A stale entry (its check no
 * longer fails) is a failure, since it fails the run; an unused one is skipped.
 */
function baselineSuite(run: RunResult): { suite: XmlElement; totals: Totals } | undefined {
  const b = run.baseline;
  if (!b || b.entries.length === 0) return undefined;
  const t: Totals = { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };
  const cases = b.entries.map((e) => {
    t.tests += 1;
    const target = `${e.check_id}${e.transport ? ` [${e.transport}]` : ''}`;
    const reason = oneLine(e.reason, 1000);
    let body: XmlElement;
    if (e.status === 'stale') {
      t.failures += 1;
      body = el('failure', { message: oneLine(`stale baseline entry: ${target} no longer fails; remove it from ${b.file}`, 1000), type: 'stale' }, [
        `reason was: ${reason}`,
      ]);
    } else if (e.status === 'unused') {
      t.skipped += 1;
      body = el('skipped', { message: oneLine(`unused: ${target} was not run`, 1000) });
    } else {
      body = el('system-out', undefined, [`expected failure, ${e.matched} result(s) excused: ${reason}`]);
    }
    return el('testcase', { classname: 'baseline', name: `baseline entry: ${target}`, time: seconds(0) }, [
      el('properties', undefined, [el('property', { name: 'status', value: e.status }), el('property', { name: 'reason', value: reason })]),
      body,
    ]);
  });
  const suite = el(
    'testsuite',
    { name: 'baseline', tests: t.tests, failures: t.failures, errors: 0, skipped: t.skipped, time: seconds(0), timestamp: run.started_at },
    [el('properties', undefined, [el('property', { name: 'baseline_file', value: b.file })]), ...cases],
  );
  return { suite, totals: t };
}

/** `<testsuite name="not verified">`: one skipped testcase per blocked cascade and per coverage gap. */
function notVerifiedSuite(run: RunResult): { suite: XmlElement; totals: Totals } | undefined {
  const { blocked, gaps } = run.coverage;
  if (blocked.length === 0 && gaps.length === 0) return undefined;
  const cases = [
    ...blocked.map((g) =>
      el('testcase', { classname: 'not-verified.blocked', name: oneLine(`blocked by ${g.blocked_by} [${g.transport}]`, 300), time: seconds(0) }, [
        el('skipped', { message: oneLine(blockedLine(g), 1000) }),
        el('system-out', undefined, [g.check_ids.join('\n')]),
      ]),
    ),
    ...gaps.map((g) =>
      el('testcase', { classname: 'not-verified.gap', name: oneLine(`coverage gap: ${g.gap}`, 300), time: seconds(0) }, [
        el('skipped', { message: oneLine(gapLine(g), 1000) }),
        el('system-out', undefined, [g.check_ids.join('\n')]),
      ]),
    ),
  ];
  const t: Totals = { tests: cases.length, failures: 0, errors: 0, skipped: cases.length, time: 0 };
  const suite = el(
    'testsuite',
    { name: 'not verified', tests: t.tests, failures: 0, errors: 0, skipped: t.skipped, time: seconds(0), timestamp: run.started_at },
    cases,
  );
  return { suite, totals: t };
}

export function renderJUnit(run: RunResult): string {
  const strict = run.selection?.strict ?? false;
  const defects = new Map(defectGroups(run).map((g) => [g.root, g] as const));
  const suites: XmlElement[] = [];
  for (const suite of run.suites) {
    for (const transport of run.transports) {
      const checks = run.checks.filter((c) => c.suite_id === suite.suite_id && c.transport === transport);
      const t = totals(checks, strict);
      const status = suite.by_transport[transport]?.status ?? (checks.length === 0 ? 'untested' : suite.status);
      suites.push(
        el(
          'testsuite',
          {
            name: `${suite.suite_id} [${transport}]`,
            tests: t.tests,
            failures: t.failures,
            errors: t.errors,
            skipped: t.skipped,
            time: seconds(t.time),
            timestamp: run.started_at,
          },
          [
            el('properties', undefined, [
              el('property', { name: 'suite_title', value: suite.title }),
              el('property', { name: 'suite_status', value: status }),
              el('property', { name: 'transport', value: transport }),
              el('property', { name: 'agent_url', value: run.agent_url }),
              el('property', { name: 'seed', value: run.seed }),
              el('property', { name: 'requested_compliance_target', value: run.target.requested_compliance_target }),
            ]),
            ...checks.map((c) => testcase(c, strict, defects)),
          ],
        ),
      );
    }
  }
  const all = totals(run.checks, strict);
  const notVerified = notVerifiedSuite(run);
  if (notVerified) {
    suites.push(notVerified.suite);
    all.tests += notVerified.totals.tests;
    all.skipped += notVerified.totals.skipped;
  }
  const baseline = baselineSuite(run);
  if (baseline) {
    suites.push(baseline.suite);
    all.tests += baseline.totals.tests;
    all.failures += baseline.totals.failures;
    all.skipped += baseline.totals.skipped;
  }
  return renderXmlDocument(
    el(
      'testsuites',
      {
        name: `${run.harness.name} ${run.harness.version}`,
        tests: all.tests,
        failures: all.failures,
        errors: all.errors,
        skipped: all.skipped,
        time: seconds(run.duration_ms),
        timestamp: run.started_at,
      },
      suites,
    ),
  );
}

/** Writes `<dir>/junit.xml` and returns its path. */
export async function writeJUnit(run: RunResult, dir: string): Promise<string> {
  const path = join(dir, JUNIT_FILE);
  await writeFileAtomic(path, renderJUnit(run));
  return path;
}
