/**
 * The composite GitHub Action (.github/actions/proto-comply/action.yml), executed: its shell
 * steps run here under bash the way the runner runs them (`bash -eo pipefail`, the workspace as
 * working directory, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, `${{ }}` expressions of the
 * kinds the file uses evaluated), against a mock seller with a fault and a baseline with a stale
 * entry. Steps that only call other actions (setup-node, upload-artifact) are checked statically.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSeller } from '../../mocks/seller/index.js';

const ACTION_DIR = fileURLToPath(new URL('../../.github/actions/proto-comply/', import.meta.url));
const ACTION = parse(readFileSync(join(ACTION_DIR, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: {
    using: string;
    steps: Array<{ id?: string; if?: string; uses?: string; run?: string; shell?: string; env?: Record<string, string>; with?: Record<string, string> }>;
  };
};
const AUTH = 'github-action-test-bearer-0123456789';

type Outputs = Record<string, Record<string, string>>;

/** `${{ inputs.x }}`, `${{ github.action_path }}`, `${{ steps.<id>.outputs.<name> }}`; anything else is an error. */
function evaluate(text: string, inputs: Record<string, string>, outputs: Outputs): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
    let m: RegExpMatchArray | null;
    if ((m = expr.match(/^inputs\.([\w-]+)$/))) {
      if (!(m[1] in ACTION.inputs)) throw new Error(`undeclared input ${m[1]}`);
      return inputs[m[1]] ?? ACTION.inputs[m[1]].default ?? '';
    }
    if (expr === 'github.action_path') return ACTION_DIR.replace(/\/$/, '');
    if ((m = expr.match(/^steps\.([\w-]+)\.outputs\.([\w-]+)$/))) return outputs[m[1]]?.[m[2]] ?? '';
    throw new Error(`unsupported expression ${expr}`);
  });
}

function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, out });
    });
  });
}

function parseOutputs(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe('composite action .github/actions/proto-comply', () => {
  it('declares the inputs, and only passes them to scripts through the environment', () => {
    expect(ACTION.runs.using).toBe('composite');
    expect(Object.keys(ACTION.inputs)).toEqual(expect.arrayContaining(['agent-url', 'auth-token', 'baseline', 'suites', 'transport']));
    expect(ACTION.inputs['agent-url'].required).toBe(true);
    for (const step of ACTION.runs.steps) {
      if (step.run) {
        expect(step.run, `step ${step.id}`).not.toMatch(/\$\{\{/);
        expect(step.shell).toBe('bash');
      }
    }
    const upload = ACTION.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toBe('always()');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, not JavaScript templates
    expect(upload.with!.path.split('\n').filter(Boolean)).toEqual(['${{ inputs.out }}/junit.xml', '${{ inputs.out }}/report.html']);
    expect(ACTION.runs.steps.find((s) => s.id === 'summary')!.run).toMatch(
      /proto-comply\.js" summary --from "\$report" --format md >> "\$GITHUB_STEP_SUMMARY"/,
    );
    expect(ACTION.runs.steps.at(-1)!.id).toBe('gate');
  });

  describe('run against a mock seller with a fault and a baseline with a stale entry', () => {
    let workspace: string;
    let seller: Awaited<ReturnType<typeof startMockSeller>>;
    const outputs: Outputs = {};
    const logs: Record<string, { code: number | null; out: string }> = {};

    beforeAll(async () => {
      workspace = await mkdtemp(join(tmpdir(), 'pc-gh-action-'));
      seller = await startMockSeller({ allowPrivateWebhooks: true, authToken: AUTH, faults: ['unknown-tool-wrong-code'] });
      await writeFile(
        join(workspace, 'baseline.yaml'),
        'version: 1\nexpected_failures:\n  - check: errors.unknown-task.invalid-request\n    reason: JIRA-7\n  - check: errors.auth.wrong-bearer\n    transport: mcp\n    reason: fixed since\n',
      );
      const inputs = { 'agent-url': seller.baseUrl, 'auth-token': AUTH, baseline: 'baseline.yaml', suites: 'errors', transport: 'both', out: 'reports' };
      const summaryFile = join(workspace, 'step-summary.md');
      await writeFile(summaryFile, '');
      let failed = false;
      for (const step of ACTION.runs.steps) {
        if (!step.run || step.id === 'install') continue; // node_modules is already installed here
        if (failed && step.if !== 'always()') continue;
        const outputFile = join(workspace, `output-${step.id}`);
        await writeFile(outputFile, '');
        const env: Record<string, string> = {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? workspace,
          GITHUB_WORKSPACE: workspace,
          GITHUB_OUTPUT: outputFile,
          GITHUB_STEP_SUMMARY: summaryFile,
        };
        for (const [k, v] of Object.entries(step.env ?? {})) env[k] = evaluate(v, inputs, outputs);
        const r = await bash(step.run, workspace, env);
        logs[step.id!] = r;
        outputs[step.id!] = parseOutputs(await readFile(outputFile, 'utf8'));
        if (r.code !== 0) failed = true;
      }
    }, 150_000);

    afterAll(async () => {
      await seller?.close();
      if (workspace) await rm(workspace, { recursive: true, force: true });
    });

    it('records the exit code and status as outputs, and the gate fails the job on the stale entry', () => {
      expect(outputs.run, logs.run?.out).toEqual({ 'exit-code': '1', 'overall-status': 'failing' });
      expect(logs.run.out).toMatch(/✗ STALE errors\.auth\.wrong-bearer \[mcp\]/);
      expect(logs.run.out).not.toContain(AUTH);
      expect(logs.gate.code).toBe(1);
      expect(evaluate(ACTION.outputs['exit-code'].value, {}, outputs)).toBe('1');
    });

    it('fences the run output with ::stop-commands:: and a fresh random token, resumed after the run', () => {
      const lines = logs.run.out.split('\n');
      const stop = lines.findIndex((l) => /^::stop-commands::[0-9a-f]{48}$/.test(l));
      expect(stop, logs.run.out.slice(0, 400)).toBe(0);
      const token = lines[stop].slice('::stop-commands::'.length);
      const resume = lines.indexOf(`::${token}::`);
      expect(resume).toBeGreaterThan(stop);
      // nothing of the run's own output comes after the resume line
      expect(lines.slice(resume + 1).filter(Boolean)).toEqual([]);
    });

    it('writes the Markdown summary to $GITHUB_STEP_SUMMARY', async () => {
      expect(logs.summary.code, logs.summary.out).toBe(0);
      const md = await readFile(join(workspace, 'step-summary.md'), 'utf8');
      expect(md).toMatch(/^## ❌ proto-comply: FAILING/);
      expect(md).toMatch(/### Baseline baseline&#46;yaml/);
      expect(md).toMatch(/fail \(baselined\)/);
      expect(md).not.toContain(AUTH);
    });

    it('leaves the files the upload step names', () => {
      const upload = ACTION.runs.steps.find((s) => s.id === 'upload')!;
      const paths = evaluate(upload.with!.path, { out: 'reports' }, outputs).split('\n').filter(Boolean);
      for (const p of paths) expect(existsSync(join(workspace, p)), p).toBe(true);
    });
  });
});
