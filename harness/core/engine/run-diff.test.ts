/**
 * outcomesOf / diffOutcomes / diffRuns on real runs: the harness certifies the mock seller clean,
 * then the same seller (same port, so the same agent URL) with one fault profile; the diff must
 * name exactly the fault's target checks, on the fault's transports, as regressed, and the
 * reverse diff the same checks as fixed. The classification table and the comparability
 * warnings are pinned on top.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSeller, getFault } from '../../../mocks/seller/index.js';
import { certify, type CertifyOptions } from '../../certify/index.js';
import { OUTCOMES, type RunResult } from './result.js';
import { checkKey, comparability, diffOutcomes, diffRuns, isFix, isRegression, outcomesOf, splitCheckKey } from './run-diff.js';

const SEED = '20261129';
const GLOB = 'state-machine.valid-actions.match-state';

type Runs = Record<'clean' | 'cleanErrors' | 'a2aGone' | 'cleanGlob' | 'cleanGlobStrict' | 'wrongCode' | 'textNotJson' | 'staleLax' | 'staleStrict', RunResult>;
const runs = {} as Runs;
const opened: Array<{ close(): Promise<void> }> = [];

/** Runs `plan` against a mock seller with `faults` on `port` (0: any), closes it, returns the port. */
async function withSeller(port: number, faults: string[], plan: (url: string) => Promise<void>): Promise<number> {
  // With a bearer token, as a seller declaring shadow mode (warn_for) is certified: without one that check is a gap.
  const seller = await startMockSeller({ allowPrivateWebhooks: true, faults, port, authToken: TOKEN });
  opened.push(seller);
  try {
    await plan(seller.baseUrl);
    return Number(new URL(seller.baseUrl).port);
  } finally {
    await seller.close();
    opened.splice(opened.indexOf(seller), 1);
  }
}

/** Each run its own seed: one seller serves several runs, and a seed's names and idempotency keys would meet the previous run's buys. */
let seeded = 0;
const TOKEN = 'run-diff-test-token';
const run = (agentUrl: string, extra: Partial<CertifyOptions> = {}) => certify({ agentUrl, authToken: TOKEN, seed: `${SEED}${(seeded += 1)}`, ...extra });

beforeAll(async () => {
  const port = await withSeller(0, [], async (url) => {
    runs.clean = await run(url);
    runs.cleanErrors = await run(url, { suites: ['errors'] });
    // the seller's A2A face unreachable (nothing listens on port 9): its checks end blocked
    runs.a2aGone = await run(url, { suites: ['errors'], a2aUrl: 'http://127.0.0.1:9/a2a' });
    runs.cleanGlob = await run(url, { checkGlob: GLOB });
    runs.cleanGlobStrict = await run(url, { checkGlob: GLOB, strict: true });
  });
  await withSeller(port, ['unknown-tool-wrong-code'], async (url) => {
    runs.wrongCode = await run(url);
  });
  await withSeller(port, ['error-text-not-json'], async (url) => {
    runs.textNotJson = await run(url, { suites: ['errors'] });
  });
  await withSeller(port, ['valid-actions-stale-after-pause'], async (url) => {
    runs.staleLax = await run(url, { checkGlob: GLOB });
    runs.staleStrict = await run(url, { checkGlob: GLOB, strict: true });
  });
}, 180_000);

afterAll(async () => {
  for (const s of opened) await s.close();
});

/** `<check>@<transport>` of every target of the fault, on its transports (default both). */
function targetsOf(fault: string): string[] {
  const def = getFault(fault)!;
  return def.targets.flatMap((t) => (def.transports ?? ['mcp', 'a2a']).map((tr) => checkKey(t, tr))).sort();
}

const keys = (list: Array<{ check: string; transport: string }>) => list.map((c) => checkKey(c.check, c.transport)).sort();

describe('outcomesOf', () => {
  it('maps every check result of a real run to its outcome, keyed <check_id>@<transport>, about 50 bytes a check', () => {
    const map = outcomesOf(runs.clean);
    expect(runs.clean.overall_status).toBe('passing');
    expect(Object.keys(map)).toHaveLength(runs.clean.checks.length);
    for (const c of runs.clean.checks) expect(map[`${c.check_id}@${c.transport}`]).toBe(c.outcome);
    for (const v of Object.values(map)) expect(OUTCOMES).toContain(v);
    const bytes = Buffer.byteLength(JSON.stringify(map));
    // run-diff.ts documents these figures: keep them true
    expect(runs.clean.checks.length).toBeGreaterThan(400);
    expect(bytes / runs.clean.checks.length).toBeLessThan(60);
    expect(bytes).toBeLessThan(50 * 1024);
  });

  it('a key listed twice keeps the worse outcome; check ids holding "@" split at the last one', () => {
    const base = runs.cleanGlob.checks[0];
    const twice = { ...runs.cleanGlob, checks: [base, { ...base, outcome: 'fail' as const }, { ...base, outcome: 'pass' as const }] };
    expect(outcomesOf(twice)).toEqual({ [checkKey(base.check_id, base.transport)]: 'fail' });
    expect(splitCheckKey('storyboard.a@b.step@a2a')).toEqual({ check: 'storyboard.a@b.step', transport: 'a2a' });
    const at = { ...runs.cleanGlob, checks: [{ ...base, check_id: 'storyboard.a@b.step', transport: 'a2a' as const }] };
    const diff = diffOutcomes({}, outcomesOf(at));
    expect(diff.added).toEqual([{ check: 'storyboard.a@b.step', transport: 'a2a', before: null, after: base.outcome }]);
  });
});

describe('diffOutcomes / diffRuns on real runs of the mock seller', () => {
  it('a run against itself, and two clean runs: nothing to report', () => {
    const self = diffOutcomes(outcomesOf(runs.clean), outcomesOf(runs.clean));
    expect(self).toEqual({ regressed: [], fixed: [], changed: [], added: [], removed: [] });
    const glob = diffRuns(runs.cleanGlob, runs.cleanGlob);
    expect(glob.warnings).toEqual([]);
  });

  it('unknown-tool-wrong-code: exactly its targets regress (pass → fail, both transports), nothing else moves', () => {
    const diff = diffRuns(runs.clean, runs.wrongCode);
    expect(runs.wrongCode.overall_status).toBe('failing');
    expect(keys(diff.regressed)).toEqual(targetsOf('unknown-tool-wrong-code'));
    expect(diff.regressed).toEqual([
      { check: 'errors.unknown-task.invalid-request', transport: 'mcp', before: 'pass', after: 'fail' },
      { check: 'errors.unknown-task.invalid-request', transport: 'a2a', before: 'pass', after: 'fail' },
    ]);
    expect([diff.fixed, diff.changed, diff.added, diff.removed]).toEqual([[], [], [], []]);
    expect(diff.warnings).toEqual([]);
    expect(diff.compared).toBe(runs.clean.checks.length);
  });

  it('the reverse diff: the same checks are fixed, nothing regressed', () => {
    const diff = diffRuns(runs.wrongCode, runs.clean);
    expect(diff.regressed).toEqual([]);
    expect(keys(diff.fixed)).toEqual(targetsOf('unknown-tool-wrong-code'));
    expect(diff.fixed.every((c) => c.before === 'fail' && c.after === 'pass')).toBe(true);
  });

  it('error-text-not-json: an MCP-only fault regresses its target on mcp only', () => {
    const diff = diffRuns(runs.cleanErrors, runs.textNotJson);
    expect(keys(diff.regressed)).toEqual(targetsOf('error-text-not-json'));
    expect(keys(diff.regressed)).toEqual(['errors.error-text.json@mcp']);
    expect([diff.fixed, diff.added, diff.removed]).toEqual([[], [], []]);
  });

  it('the A2A endpoint gone: every a2a check that passed regresses (pass → blocked); mcp does not move', () => {
    const diff = diffRuns(runs.cleanErrors, runs.a2aGone);
    const passedOnA2a = runs.cleanErrors.checks.filter((c) => c.transport === 'a2a' && c.outcome === 'pass').map((c) => checkKey(c.check_id, c.transport));
    expect(passedOnA2a.length).toBeGreaterThan(3);
    expect(keys(diff.regressed)).toEqual(passedOnA2a.sort());
    expect(diff.regressed.every((c) => c.after === 'blocked')).toBe(true);
    expect([...diff.changed, ...diff.fixed].every((c) => c.transport === 'a2a')).toBe(true);
  });

  it('a SHOULD warning regresses under --strict only; not strict it is a change', () => {
    const lax = diffRuns(runs.cleanGlob, runs.staleLax);
    const strict = diffRuns(runs.cleanGlobStrict, runs.staleStrict);
    const target = targetsOf('valid-actions-stale-after-pause');
    expect(lax.strict).toBe(false);
    expect(lax.regressed).toEqual([]);
    expect(keys(lax.changed)).toEqual(target);
    expect(lax.changed.every((c) => c.before === 'pass' && c.after === 'warn')).toBe(true);
    expect(strict.strict).toBe(true);
    expect(keys(strict.regressed)).toEqual(target);
    expect(strict.changed).toEqual([]);
    expect(strict.warnings).toEqual([]);
    // strict on one side only is said, and the after run's strictness judges
    const mixed = diffRuns(runs.cleanGlob, runs.staleStrict);
    expect(keys(mixed.regressed)).toEqual(target);
    expect(mixed.warnings).toEqual([expect.stringMatching(/^strict on one side only \(before not strict, after strict\)/)]);
  });

  it('orders every list by check id, then mcp, a2a, rest, whatever order the keys are stored in', () => {
    const before = outcomesOf(runs.clean);
    const after = outcomesOf(runs.wrongCode);
    const shuffle = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).reverse());
    expect(diffOutcomes(shuffle(before), shuffle(after))).toEqual(diffOutcomes(before, after));
    const removed = diffOutcomes(before, {}).removed;
    expect(removed).toHaveLength(runs.clean.checks.length);
    const sorted = [...removed].sort((x, y) => (x.check < y.check ? -1 : x.check > y.check ? 1 : 0));
    expect(removed.map((c) => c.check)).toEqual(sorted.map((c) => c.check));
    const transportsOfOne = removed.filter((c) => c.check === 'errors.unknown-task.invalid-request').map((c) => c.transport);
    expect(transportsOfOne).toEqual(['mcp', 'a2a']);
  });

  it('another suite selection and another agent: removed checks, and warning lines, not errors', () => {
    const diff = diffRuns(runs.clean, runs.cleanErrors);
    expect(diff.regressed).toEqual([]);
    expect(diff.added).toEqual([]);
    expect(diff.removed.length).toBe(runs.clean.checks.length - runs.cleanErrors.checks.length);
    expect(diff.warnings).toEqual([expect.stringMatching(/^different suites selected: setup,capabilities,.* → setup,errors$/)]);
    const moved: RunResult = {
      ...runs.wrongCode,
      agent_url: 'http://elsewhere.example/mcp',
      target: { ...runs.wrongCode.target, requested_compliance_target: '3.0' },
      transports: ['mcp'],
    };
    expect(comparability(runs.clean, moved)).toEqual([
      `different agent URL: ${runs.clean.agent_url} → http://elsewhere.example/mcp`,
      `different target line: ${runs.clean.target.requested_compliance_target} → 3.0`,
      'different transports: mcp,a2a → mcp',
    ]);
    expect(comparability(runs.clean, { ...runs.clean, overall_status: 'unreachable' })).toEqual(['the after run did not reach the agent (unreachable)']);
  });
});

describe('the regression definition', () => {
  // [before, after, lax verdict, strict verdict]: R regressed, F fixed, C changed
  const TABLE: Array<[string, string, 'R' | 'F' | 'C', 'R' | 'F' | 'C']> = [
    ['pass', 'fail', 'R', 'R'],
    ['pass', 'blocked', 'R', 'R'],
    ['pass', 'gap', 'R', 'R'],
    ['pass', 'error', 'R', 'R'],
    ['info', 'gap', 'R', 'R'],
    ['pass', 'warn', 'C', 'R'],
    ['not_applicable', 'fail', 'R', 'R'],
    ['blocked', 'fail', 'R', 'R'],
    ['gap', 'fail', 'R', 'R'],
    ['error', 'fail', 'R', 'R'],
    ['warn', 'fail', 'R', 'C'],
    ['fail', 'pass', 'F', 'F'],
    ['warn', 'pass', 'C', 'F'],
    ['fail', 'info', 'F', 'F'],
    ['not_applicable', 'pass', 'C', 'C'],
    ['blocked', 'pass', 'C', 'C'],
    ['gap', 'pass', 'C', 'C'],
    ['pass', 'not_applicable', 'C', 'C'],
    ['fail', 'blocked', 'C', 'C'],
    ['fail', 'not_applicable', 'C', 'C'],
    ['fail', 'gap', 'C', 'C'],
    ['blocked', 'gap', 'C', 'C'],
    ['gap', 'not_applicable', 'C', 'C'],
    ['pass', 'skipped-by-a-future-version', 'C', 'C'],
    ['skipped-by-a-future-version', 'fail', 'R', 'R'],
  ];

  it.each(TABLE)('%s → %s: %s (not strict), %s (strict)', (before, after, lax, strict) => {
    const verdict = (s: boolean) => (isRegression(before, after, s) ? 'R' : isFix(before, after, s) ? 'F' : 'C');
    expect(verdict(false)).toBe(lax);
    expect(verdict(true)).toBe(strict);
    const diff = diffOutcomes({ 'x.y@mcp': before }, { 'x.y@mcp': after });
    const section = { R: 'regressed', F: 'fixed', C: 'changed' }[lax] as 'regressed' | 'fixed' | 'changed';
    expect(diff[section]).toEqual([{ check: 'x.y', transport: 'mcp', before, after }]);
  });
});
