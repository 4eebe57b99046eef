/**
 * The CI gate as a user drives it: the real `proto-comply` process against real mock sellers
 * (one with a fault, one fixed), real files. A baseline made from a failing run makes the next
 * identical run exit 0; fixing the baselined failure makes the run exit 1 naming the stale
 * entry. Also: --strict end to end, --allure DIR, `summary --format md`, usage errors (those
 * through `main()` in this process, which is what bin/proto-comply.js runs, to keep it quick).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { envWithout, runChild, type ChildResult } from '../testing/spawn.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../cli/main.js';
import { startMockSeller } from '../../mocks/seller/index.js';
import type { RunResult } from '../core/engine/result.js';
import { validateAgentCompliance } from '../../reports/json.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));
const AUTH = 'baseline-cli-test-bearer-0123456789';

type Result = ChildResult;

/** Asynchronous on purpose: the mock sellers live in this process and must keep answering. */
function cli(args: string[], timeoutMs = 90_000): Promise<Result> {
  return runChild(process.execPath, [BIN, ...args], { env: envWithout('PROTO_COMPLY_'), timeoutMs });
}

/** The same command in this process (no agent involved): exit code and what it printed. */
async function inProcess(args: string[]): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

async function readRun(dir: string): Promise<RunResult> {
  const doc = JSON.parse(await readFile(join(dir, 'agent-compliance.json'), 'utf8'));
  expect(validateAgentCompliance(doc)).toEqual({ valid: true, errors: [] });
  return doc as RunResult;
}

describe('proto-comply run --baseline / baseline --from (against the mock seller)', () => {
  let tmp: string;
  let faulty: Awaited<ReturnType<typeof startMockSeller>>;
  let fixed: Awaited<ReturnType<typeof startMockSeller>>;
  const runArgs = (url: string, out: string, extra: string[] = []) => [
    'run',
    '--agent',
    url,
    '--auth-token',
    AUTH,
    '--suite',
    'errors',
    '--seed',
    '20261122',
    '--out',
    join(tmp, out),
    ...extra,
  ];

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'pc-baseline-cli-'));
    // errors.unknown-task.invalid-request fails on both transports with this fault
    faulty = await startMockSeller({ allowPrivateWebhooks: true, authToken: AUTH, faults: ['unknown-tool-wrong-code'] });
    fixed = await startMockSeller({ allowPrivateWebhooks: true, authToken: AUTH });
  });

  afterAll(async () => {
    await faulty?.close();
    await fixed?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('a baseline made from a failing run makes the next identical run exit 0; fixing the failure exits 1 naming the stale entry', async () => {
    // 1. the failing run
    const first = await cli(runArgs(faulty.baseUrl, 'first'));
    expect(first.code, first.stderr + first.stdout).toBe(1);
    expect((await readRun(join(tmp, 'first'))).overall_status).toBe('failing');

    // 2. the baseline from its report
    const baselineFile = join(tmp, 'baseline.yaml');
    const made = await inProcess(['baseline', '--from', join(tmp, 'first', 'agent-compliance.json'), '--out', baselineFile]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toMatch(/wrote 1 expected failure to /);
    const yaml = parse(await readFile(baselineFile, 'utf8'));
    expect(yaml.version).toBe(1);
    expect(yaml.expected_failures).toEqual([
      { check: 'errors.unknown-task.invalid-request', reason: expect.stringMatching(/^fail \(MUST\) on \d{4}-\d{2}-\d{2}: .*NOT_FOUND/) },
    ]);

    // 3. the identical run, with the baseline: exit 0, failures marked baselined
    const second = await cli(runArgs(faulty.baseUrl, 'second', ['--baseline', baselineFile, '--allure', join(tmp, 'allure-second')]));
    expect(second.code, second.stderr + second.stdout).toBe(0);
    const run2 = await readRun(join(tmp, 'second'));
    expect(run2.overall_status).toBe('passing');
    const baselined = run2.checks.filter((c) => c.baselined);
    expect(baselined.map((c) => `${c.check_id} ${c.transport} ${c.outcome}`).sort()).toEqual([
      'errors.unknown-task.invalid-request a2a fail',
      'errors.unknown-task.invalid-request mcp fail',
    ]);
    expect(run2.baseline).toEqual({
      file: baselineFile,
      entries: [{ check_id: 'errors.unknown-task.invalid-request', reason: yaml.expected_failures[0].reason, status: 'expected', matched: 2 }],
    });
    expect(run2.command).toContain(`--baseline ${baselineFile}`);
    expect(second.stdout).toMatch(/Baseline .*baseline\.yaml: 1 expected, 0 stale, 0 unused/);
    expect(second.stdout).toMatch(/FAIL \(baselined\)/);
    const junit = await readFile(join(tmp, 'second', 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuites [^>]*failures="0"/);
    expect(junit).toContain('expected failure (baselined fail)');
    // --allure DIR: the Allure results go there, not into <out>/allure-results
    expect(existsSync(join(tmp, 'second', 'allure-results'))).toBe(false);
    const allure = (await readdir(join(tmp, 'allure-second'))).filter((f) => f.endsWith('-result.json'));
    expect(allure).toHaveLength(run2.checks.length + 1);

    // 4. the agent is fixed: the same baseline now fails the run, naming the stale entry
    const third = await cli(runArgs(fixed.baseUrl, 'third', ['--baseline', baselineFile]));
    expect(third.code, third.stderr + third.stdout).toBe(1);
    expect(third.stdout).toMatch(/✗ STALE errors\.unknown-task\.invalid-request: no longer fails; remove the entry/);
    expect(third.stdout).toMatch(/Headline: failing: 1 stale baseline entry .*: errors\.unknown-task\.invalid-request/);
    const run3 = await readRun(join(tmp, 'third'));
    expect(run3.overall_status).toBe('failing');
    expect(run3.baseline!.entries).toEqual([expect.objectContaining({ check_id: 'errors.unknown-task.invalid-request', status: 'stale', matched: 0 })]);
    expect(run3.checks.every((c) => c.outcome === 'pass' && !c.baselined)).toBe(true);
    expect(await readFile(join(tmp, 'third', 'junit.xml'), 'utf8')).toMatch(
      /<failure message="stale baseline entry: errors\.unknown-task\.invalid-request no longer fails/,
    );

    // 5. the markdown summary of that run, for $GITHUB_STEP_SUMMARY
    const md = await inProcess(['summary', '--from', join(tmp, 'third', 'agent-compliance.json')]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/^## ❌ proto-comply: FAILING/);
    expect(md.stdout).toMatch(/Stale entries/);
    expect(md.stdout).toMatch(/\| Suite \| mcp \| a2a \|/);
  }, 150_000);

  it('--strict makes a SHOULD warning fail the run', async () => {
    const seller = await startMockSeller({ allowPrivateWebhooks: true, authToken: AUTH, faults: ['valid-actions-stale-after-pause'] });
    try {
      const args = (out: string, extra: string[] = []) => [
        'run',
        '--agent',
        seller.baseUrl,
        '--auth-token',
        AUTH,
        '--transport',
        'mcp',
        '--check',
        'state-machine.valid-actions.match-state',
        '--out',
        join(tmp, out),
        ...extra,
      ];
      const lax = await inProcess(args('lax'));
      const strict = await inProcess(args('strict', ['--strict']));
      expect(lax.code, lax.stderr + lax.stdout).toBe(0);
      const laxRun = await readRun(join(tmp, 'lax'));
      expect(laxRun.checks.filter((c) => c.suite_id !== 'setup').map((c) => [c.check_id, c.level, c.outcome])).toEqual([
        ['state-machine.valid-actions.match-state', 'SHOULD', 'warn'],
      ]);
      expect(laxRun.overall_status).toBe('passing');

      expect(strict.code, strict.stderr + strict.stdout).toBe(1);
      const strictRun = await readRun(join(tmp, 'strict'));
      expect(strictRun.overall_status).toBe('failing');
      expect(strictRun.selection.strict).toBe(true);
      expect(strict.stdout).toMatch(/Overall: FAILING \(strict\)/);
      expect(await readFile(join(tmp, 'strict', 'junit.xml'), 'utf8')).toMatch(/<failure message="[^"]*" type="warn"/);
    } finally {
      await seller.close();
    }
  }, 120_000);

  it('a malformed baseline, or one naming an unknown check, is a usage error (exit 2, one line) before any call', async () => {
    const bad = join(tmp, 'bad.yaml');
    const unknown = join(tmp, 'unknown.yaml');
    await writeFile(bad, 'version: 1\nexpected_failures: [\n');
    await writeFile(unknown, 'version: 1\nexpected_failures:\n  - check: errors.no-such-check\n    reason: x\n');
    const results: Result[] = [];
    for (const args of [
      ['run', '--agent', 'http://127.0.0.1:9/', '--baseline', bad, '--out', join(tmp, 'bad')],
      ['run', '--agent', 'http://127.0.0.1:9/', '--baseline', unknown, '--out', join(tmp, 'unknown')],
      ['run', '--agent', 'http://127.0.0.1:9/', '--baseline', join(tmp, 'absent.yaml')],
      ['baseline', '--from', join(tmp, 'absent.json')],
      ['baseline', '--from', bad],
      ['summary', '--from', join(tmp, 'absent.json'), '--format', 'md'],
      ['summary', '--format', 'pdf'],
    ]) {
      results.push(await inProcess(args));
    }
    const expected = [
      /run: --baseline .*bad\.yaml: not valid YAML/,
      /run: --baseline .*unknown\.yaml: expected_failures\[0\]\.check: unknown check id "errors\.no-such-check"/,
      /run: --baseline .*absent\.yaml: cannot read: ENOENT/,
      /baseline: --from .*absent\.json: cannot read: ENOENT/,
      /baseline: --from .*bad\.yaml: not JSON/,
      /summary: --from .*absent\.json: cannot read: ENOENT/,
      /summary: --format must be md or text/,
    ];
    results.forEach((r, i) => {
      expect(r.code, `${i}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(expected[i]);
    });
    // nothing was written for the runs refused up front
    expect(existsSync(join(tmp, 'bad'))).toBe(false);
    expect(existsSync(join(tmp, 'unknown'))).toBe(false);
  }, 120_000);
});
