/**
 * A vitest project that imports our suites (vitest.compliance.config.ts) run as a user runs it:
 * a real `vitest run` process against a real mock seller with faults, with allure-vitest as
 * reporter. Its Allure results must show the same picture as the report writer
 * (reports/allure.ts) for the very same run (the child also writes agent-compliance.json):
 * same names, statuses, history and test case ids, labels, parameters and attachments.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envWithout, runChild, type ChildResult } from '../testing/spawn.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSeller } from '../../mocks/seller/index.js';
import type { RunResult } from '../core/engine/result.js';
import { writeAllureResults } from '../../reports/allure.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const AUTH = 'entry-point-test-bearer-0123456789';

type Child = ChildResult;

function runVitest(env: Record<string, string>, timeoutMs = 150_000): Promise<Child> {
  return runChild(process.execPath, [VITEST, 'run', '--config', 'vitest.compliance.config.ts', '--no-color'], {
    cwd: ROOT,
    env: { ...envWithout('VITEST', 'PROTO_COMPLY_'), ...env, FORCE_COLOR: '0' },
    timeoutMs,
  });
}

type AllureResult = Record<string, any>;

async function readResults(dir: string): Promise<AllureResult[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('-result.json'));
  return Promise.all(names.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8')) as AllureResult));
}

async function attachmentContents(dir: string, result: AllureResult): Promise<Array<[string, string]>> {
  return Promise.all(
    result.attachments.map(async (a: { name: string; source: string }) => [a.name, await readFile(join(dir, a.source), 'utf8')] as [string, string]),
  );
}

const labelSet = (r: AllureResult): Set<string> => new Set(r.labels.map((l: { name: string; value: string }) => `${l.name}=${l.value}`));

describe('vitest entry point (vitest.compliance.config.ts) against the mock seller', () => {
  let tmp: string;
  let child: Child;
  let run: RunResult;
  let vitestResults: AllureResult[];
  let reference: AllureResult[];
  const allureDir = () => join(tmp, 'allure-vitest');

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'pc-vitest-entry-'));
    // errors.unknown-task.invalid-request fails on both transports (baselined below);
    // errors.error-text.json fails on MCP only (not baselined: it fails the vitest run).
    const seller = await startMockSeller({ allowPrivateWebhooks: true, authToken: AUTH, faults: ['unknown-tool-wrong-code', 'error-text-not-json'] });
    try {
      const baseline = join(tmp, 'baseline.yaml');
      await writeFile(
        baseline,
        [
          'version: 1',
          'expected_failures:',
          '  - check: errors.unknown-task.invalid-request',
          '    reason: tracked upstream',
          '  - check: errors.auth.missing-bearer', // passes: stale
          '    transport: a2a',
          '    reason: fixed meanwhile',
          '',
        ].join('\n'),
      );
      child = await runVitest({
        PROTO_COMPLY_AGENT: seller.baseUrl,
        PROTO_COMPLY_AUTH_TOKEN: AUTH,
        PROTO_COMPLY_SUITES: 'capabilities,errors',
        PROTO_COMPLY_SEED: '4242',
        PROTO_COMPLY_BASELINE: baseline,
        PROTO_COMPLY_ALLURE_DIR: allureDir(),
        PROTO_COMPLY_OUT: join(tmp, 'out'),
      });
    } finally {
      await seller.close();
    }
    run = JSON.parse(await readFile(join(tmp, 'out', 'agent-compliance.json'), 'utf8')) as RunResult;
    vitestResults = await readResults(allureDir());
    await writeAllureResults(run, join(tmp, 'allure-reference'));
    reference = await readResults(join(tmp, 'allure-reference'));
  }, 180_000);

  afterAll(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('fails the vitest run for the unexpected failure and the stale entry, never leaking the bearer token', () => {
    expect(child.code, child.stdout + child.stderr).toBe(1);
    const output = child.stdout + child.stderr;
    expect(output).toMatch(/errors\.error-text\.json/);
    expect(output).toMatch(/stale baseline entry: errors\.auth\.missing-bearer \[a2a\]/);
    expect(child.stdout + child.stderr).not.toContain(AUTH);
    expect(run.agent_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // the named suites, and the setup checks whose facts they read
    expect(run.selection.suites).toEqual(['setup', 'capabilities', 'errors']);
    expect(run.seed).toBe('4242');
  });

  it('writes one Allure result per check × transport and per baseline entry, as the report writer does', () => {
    expect(reference).toHaveLength(run.checks.length + 2);
    expect(vitestResults.map((r) => r.historyId).sort()).toEqual(reference.map((r) => r.historyId).sort());
  });

  it('gives every result the same name, status, ids, labels, parameters and evidence attachments', async () => {
    const byHistory = new Map(vitestResults.map((r) => [r.historyId, r]));
    const statuses = new Set<string>();
    for (const ref of reference) {
      const got = byHistory.get(ref.historyId)!;
      expect(got, ref.fullName).toBeDefined();
      expect({ name: got.name, status: got.status, testCaseId: got.testCaseId, description: got.description }, ref.fullName).toEqual({
        name: ref.name,
        status: ref.status,
        testCaseId: ref.testCaseId,
        description: ref.description,
      });
      const labels = labelSet(got);
      for (const l of labelSet(ref)) expect(labels.has(l), `${ref.fullName} label ${l}`).toBe(true);
      // exactly one parentSuite / suite / subSuite (from the describe path), as in the reference
      for (const name of ['parentSuite', 'suite', 'subSuite']) {
        expect(
          got.labels.filter((l: { name: string }) => l.name === name).map((l: { value: string }) => l.value),
          `${ref.fullName} ${name}`,
        ).toEqual(ref.labels.filter((l: { name: string }) => l.name === name).map((l: { value: string }) => l.value));
      }
      expect(got.parameters).toEqual(expect.arrayContaining(ref.parameters));
      expect(await attachmentContents(allureDir(), got), ref.fullName).toEqual(await attachmentContents(join(tmp, 'allure-reference'), ref));
      if (ref.status === 'failed' && ref.statusDetails.expected !== undefined) expect(got.statusDetails.expected).toBe(ref.statusDetails.expected);
      statuses.add(ref.status);
    }
    expect([...statuses].sort()).toEqual(['failed', 'passed', 'skipped']);
  });

  it('skips the baselined failures, fails the unexpected one, and labels the level, transport and spec reference', () => {
    const find = (fullName: string) => reference.find((r) => r.fullName === fullName)!;
    const byHistory = new Map(vitestResults.map((r) => [r.historyId, r]));
    for (const t of ['mcp', 'a2a']) {
      const baselined = byHistory.get(find(`errors.errors.unknown-task.invalid-request[${t}]`).historyId)!;
      expect(baselined.status).toBe('skipped');
      expect(labelSet(baselined).has('baselined=true')).toBe(true);
    }
    const failed = byHistory.get(find('errors.errors.error-text.json[mcp]').historyId)!;
    expect(failed.status).toBe('failed');
    const labels = labelSet(failed);
    for (const l of ['level=MUST', 'transport=mcp', 'suite=errors', 'subSuite=mcp', 'check_id=errors.error-text.json']) expect(labels.has(l), l).toBe(true);
    expect([...labels].some((l) => l.startsWith('spec_ref=interface-spec §7'))).toBe(true);
    expect(failed.attachments.some((a: { type: string }) => a.type === 'application/json')).toBe(true);
    const stale = byHistory.get(find('baseline.errors.auth.missing-bearer[a2a]').historyId)!;
    expect(stale.status).toBe('failed');
    expect(run.baseline!.entries.map((e) => e.status)).toEqual(['expected', 'stale']);
  });
});
