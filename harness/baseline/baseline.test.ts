import { describe, expect, it } from 'vitest';
import { BaselineError, parseBaseline, renderBaseline, type Baseline } from './file.js';
import { applyBaseline, staleEntries } from './apply.js';
import { baselineFromRun } from './from-report.js';
import { exitCodeFor } from '../core/engine/summarize.js';
import { isFailing, type CheckResult, type RunResult } from '../core/engine/result.js';
import { buildRunFixture } from '../../reports/testing/run-result.js';
import { validateAgentCompliance, buildAgentCompliance } from '../../reports/json.js';

const KNOWN = new Set(['a.one', 'a.two', 'b.three']);
const parse = (text: string) => parseBaseline(text, { file: 'b.yaml', knownCheckIds: KNOWN });

describe('parseBaseline', () => {
  it('reads entries with and without transport', () => {
    const b = parse('version: 1\nexpected_failures:\n  - check: a.one\n    reason: JIRA-1\n  - check: a.two\n    transport: a2a\n    reason: flaky upstream\n');
    expect(b).toEqual({
      file: 'b.yaml',
      entries: [
        { check_id: 'a.one', reason: 'JIRA-1' },
        { check_id: 'a.two', transport: 'a2a', reason: 'flaky upstream' },
      ],
    });
    expect(parse('version: 1\nexpected_failures: []\n').entries).toEqual([]);
    expect(parse('version: 1\n').entries).toEqual([]);
  });

  it.each([
    ['not YAML', 'version: 1\nexpected_failures: [\n', /not valid YAML/],
    ['duplicate key', 'version: 1\nversion: 1\n', /not valid YAML/],
    ['a list at the top', '- check: a.one\n', /expected a mapping/],
    ['no version', 'expected_failures: []\n', /version: expected 1, got null/],
    ['another version', 'version: 2\n', /version: expected 1, got 2/],
    ['unknown top-level field', 'version: 1\nexpected: []\n', /unknown field "expected"/],
    ['entries not a list', 'version: 1\nexpected_failures: {check: a.one}\n', /expected_failures: expected a list/],
    ['entry not a mapping', 'version: 1\nexpected_failures: [a.one]\n', /expected_failures\[0\]: expected a mapping/],
    ['unknown check id', 'version: 1\nexpected_failures:\n  - check: a.nope\n    reason: x\n', /expected_failures\[0\]\.check: unknown check id "a\.nope"/],
    ['missing reason', 'version: 1\nexpected_failures:\n  - check: a.one\n', /expected_failures\[0\]\.reason: expected a non-empty reason/],
    ['blank reason', 'version: 1\nexpected_failures:\n  - check: a.one\n    reason: "  "\n', /reason: expected a non-empty reason/],
    [
      'bad transport',
      'version: 1\nexpected_failures:\n  - check: a.one\n    transport: smtp\n    reason: x\n',
      /transport: expected mcp, a2a or rest, got "smtp"/,
    ],
    ['unknown entry field', 'version: 1\nexpected_failures:\n  - check: a.one\n    reason: x\n    until: 2027\n', /unknown field "until"/],
    [
      'duplicate entry',
      'version: 1\nexpected_failures:\n  - {check: a.one, transport: mcp, reason: x}\n  - {check: a.one, transport: mcp, reason: y}\n',
      /\[1\]: a\.one \[mcp\] is already covered by expected_failures\[0\]/,
    ],
    [
      'overlapping entry',
      'version: 1\nexpected_failures:\n  - {check: a.one, transport: a2a, reason: x}\n  - {check: a.one, reason: y}\n',
      /\[1\]: a\.one is already covered/,
    ],
    [
      'alias bomb',
      `version: 1\na: &a [x,x,x,x,x,x,x,x,x,x]\n${Array.from({ length: 60 }, (_, i) => `b${i}: [*a,*a]`).join('\n')}\n`,
      /not valid YAML|unknown field/,
    ],
  ])('rejects %s with one line naming the file', (_name, text, message) => {
    let error: unknown;
    try {
      parse(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BaselineError);
    expect((error as Error).message).toMatch(/^baseline b\.yaml: /);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('round-trips what renderBaseline writes, comments and awkward reasons included', () => {
    const entries = [
      { check_id: 'a.one', reason: 'said "no": #not-a-comment\n- not a list' },
      { check_id: 'b.three', transport: 'mcp' as const, reason: "it's <b>fine</b> & 'quoted'" },
    ];
    const text = renderBaseline(entries, 'generated\nsecond line');
    expect(text.startsWith('# generated\n# second line\n')).toBe(true);
    expect(parse(text).entries).toEqual(entries);
  });
});

/** The fixture as a fresh run: no baseline applied yet. */
function freshRun(strict = false): RunResult {
  // No harness error and complete coverage, so the exit code speaks of failures only.
  const run = buildRunFixture({ strict, withoutHarnessError: true });
  run.checks = run.checks.map(({ baselined: _b, ...c }) => c);
  run.coverage = { ...run.coverage, complete: true, reasons: [], blocked: [], gaps: [] };
  return run;
}

function failingIds(run: RunResult): string[] {
  return run.checks.filter((c) => isFailing(c, run.selection.strict)).map((c) => `${c.check_id} ${c.transport}`);
}

const baselineOf = (entries: Baseline['entries']): Baseline => ({ file: 'ci/baseline.yaml', entries });

describe('applyBaseline', () => {
  it('a baseline made from a failing run excuses every failure of the same run (exit 0, passing)', () => {
    const run = freshRun();
    expect(exitCodeFor(run, { strict: false })).toBe(1);
    const entries = baselineFromRun(run);
    const judged = applyBaseline(run, baselineOf(entries));
    expect(
      judged.checks
        .filter((c) => c.baselined)
        .map((c) => `${c.check_id} ${c.transport}`)
        .sort(),
    ).toEqual(failingIds(run).sort());
    expect(judged.baseline!.entries.every((e) => e.status === 'expected')).toBe(true);
    expect(judged.overall_status).toBe('passing');
    expect(judged.headline).toMatch(/^passing: .*failures expected by the baseline \(ci\/baseline\.yaml\)$/);
    expect(exitCodeFor(judged, { strict: false })).toBe(0);
    // outcomes, counts and suite statuses keep telling the truth
    expect(judged.checks.map((c) => c.outcome)).toEqual(run.checks.map((c) => c.outcome));
    expect(judged.suites).toEqual(run.suites);
    const doc = buildAgentCompliance(judged);
    expect(validateAgentCompliance(JSON.parse(JSON.stringify(doc)))).toEqual({ valid: true, errors: [] });
  });

  it('a baselined check that passes now is a stale entry that fails the run, by name', () => {
    const run = freshRun();
    const passing = run.checks.find((c) => c.check_id === 'capabilities.task.answers')!;
    expect(passing.outcome).toBe('pass');
    const entries = [...baselineFromRun(run), { check_id: passing.check_id, reason: 'was broken last week' }];
    const judged = applyBaseline(run, baselineOf(entries));
    expect(staleEntries(judged).map((e) => e.check_id)).toEqual(['capabilities.task.answers']);
    expect(judged.overall_status).toBe('failing');
    expect(judged.headline).toMatch(
      /^failing: 1 stale baseline entry \(the check no longer fails; remove from ci\/baseline\.yaml\): capabilities\.task\.answers/,
    );
    expect(exitCodeFor(judged, { strict: false })).toBe(1);
  });

  it('a failure the baseline does not list still fails the run, and the headline names only it', () => {
    const run = freshRun();
    const entries = baselineFromRun(run).filter((e) => e.check_id !== 'capabilities.version.declared');
    const judged = applyBaseline(run, baselineOf(entries));
    expect(exitCodeFor(judged, { strict: false })).toBe(1);
    expect(judged.overall_status).toBe('failing');
    expect(judged.headline).toMatch(/^failing: 1 check failed: capabilities\.version\.declared \(a2a\)/);
    expect(judged.headline).toMatch(/failures expected by the baseline$/);
  });

  it('a per-transport entry excuses that transport only; entries of unselected checks are unused', () => {
    const run = freshRun();
    // idempotency.replay.same-payload fails on mcp and errors on a2a
    const judged = applyBaseline(
      run,
      baselineOf([
        ...baselineFromRun(run).filter((e) => e.check_id !== 'idempotency.replay.same-payload'),
        { check_id: 'idempotency.replay.same-payload', transport: 'mcp', reason: 'x' },
        { check_id: 'not.in.this.run', reason: 'y' },
      ]),
    );
    const replay = judged.checks.filter((c) => c.check_id === 'idempotency.replay.same-payload');
    expect(replay.map((c) => [c.transport, Boolean(c.baselined)])).toEqual([
      ['mcp', true],
      ['a2a', false],
    ]);
    expect(judged.baseline!.entries.at(-1)).toEqual({ check_id: 'not.in.this.run', reason: 'y', status: 'unused', matched: 0 });
    expect(exitCodeFor(judged, { strict: false })).toBe(1);
  });

  it('under --strict a SHOULD warning is a failure a baseline can list', () => {
    const run = freshRun(true);
    const entries = baselineFromRun(run);
    expect(entries.map((e) => e.check_id)).toContain('capabilities.tasks.listed');
    const judged = applyBaseline(run, baselineOf(entries));
    expect(exitCodeFor(judged, { strict: true })).toBe(0);
    // the same baseline without strict: the warning entries are stale, since a warning does not fail
    const lax = applyBaseline(freshRun(false), baselineOf(entries));
    expect(staleEntries(lax).map((e) => e.check_id)).toContain('capabilities.tasks.listed');
  });

  it('drops baselined flags a previous application left, and leaves unreachable runs alone', () => {
    const run = buildRunFixture();
    expect(run.checks.some((c) => c.baselined)).toBe(true);
    const judged = applyBaseline(run, baselineOf([]));
    expect(judged.checks.some((c) => c.baselined)).toBe(false);
    const down: RunResult = { ...freshRun(), checks: [], overall_status: 'unreachable', headline: 'unreachable: ECONNREFUSED' };
    const j2 = applyBaseline(down, baselineOf([{ check_id: 'a.one', reason: 'x' }]));
    expect(j2.overall_status).toBe('unreachable');
    expect(j2.headline).toBe('unreachable: ECONNREFUSED');
    expect(j2.baseline!.entries[0].status).toBe('unused');
  });
});

describe('baselineFromRun', () => {
  it('one entry without transport when every transport that ran fails, else per transport', () => {
    const run = freshRun();
    const entries = baselineFromRun(run);
    const byId = (id: string) => entries.filter((e) => e.check_id === id);
    // fails on a2a only
    expect(byId('capabilities.version.declared')).toEqual([
      { check_id: 'capabilities.version.declared', transport: 'a2a', reason: expect.stringMatching(/^fail \(MUST\) on 2026-03-01: no /) },
    ]);
    // fail on mcp, error on a2a: both transports, one entry
    expect(byId('idempotency.replay.same-payload')).toHaveLength(1);
    expect(byId('idempotency.replay.same-payload')[0].transport).toBeUndefined();
    // passes everywhere: nothing
    expect(byId('capabilities.task.answers')).toEqual([]);
    for (const e of entries) {
      expect(e.reason.length).toBeLessThanOrEqual(200);
      expect(e.reason).not.toMatch(/[\u0000-\u001f]/);
    }
  });

  it('keeps failures a previous baseline excused (they still fail), so regenerating only drops fixed ones', () => {
    const run = freshRun();
    const once = baselineFromRun(run);
    const judged = applyBaseline(run, baselineOf(once));
    expect(baselineFromRun(judged)).toEqual(once);
    const fixed: CheckResult[] = judged.checks.map((c) =>
      c.check_id === 'capabilities.version.declared' ? { ...c, outcome: 'pass', baselined: undefined } : c,
    );
    expect(baselineFromRun({ ...judged, checks: fixed }).map((e) => e.check_id)).not.toContain('capabilities.version.declared');
  });
});
