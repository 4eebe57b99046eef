/**
 * The `proto-comply` command as a user runs it: a real process, real exit codes, real files.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateAgentCompliance } from '../../reports/json.js';
import { SCHEMA_SET_FIXTURE } from '../core/schemas/testing/schema-set-fixture.js';
import { writeFixtureBundle } from '../core/storyboards/testing/fixture-bundle.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('proto-comply run', () => {
  it('certifies the built-in mock seller and mock buyer over MCP and A2A, and the mock registry, and writes valid reports (exit 0)', () => {
    const out = mkdtempSync(join(tmpdir(), 'pc-cli-'));
    try {
      const r = cli(['run', '--out', out]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      const doc = JSON.parse(readFileSync(join(out, 'agent-compliance.json'), 'utf8'));
      expect(validateAgentCompliance(doc)).toEqual({ valid: true, errors: [] });
      expect(doc.transports).toEqual(['mcp', 'a2a', 'rest']);
      expect(doc.overall_status).toBe('passing');
      // Every suite ran and passed on both transports, the buyer's webhook receiver included.
      const suites = Object.fromEntries(
        doc.suites.map((s: { suite_id: string; by_transport: Record<string, { status: string }> }) => [s.suite_id, s.by_transport]),
      );
      for (const suite of ['capabilities', 'errors', 'idempotency', 'state-machine', 'signatures', 'webhooks', 'webhook-receiver', 'schemas'])
        for (const t of ['mcp', 'a2a']) expect(suites[suite]?.[t]?.status, `${suite} ${t}`).toBe('passing');
      expect(suites.registry).toEqual({ rest: expect.objectContaining({ status: 'passing' }) });
      for (const f of ['junit.xml', 'report.html', 'allure-results']) expect(existsSync(join(out, f))).toBe(true);
      // The generated bearer token is never written anywhere.
      expect(r.stdout).toMatch(/Overall: PASSING/);
      expect(readFileSync(join(out, 'agent-compliance.json'), 'utf8')).not.toMatch(/Bearer [A-Za-z0-9_-]{20,}/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('--storyboards with --format runner-output writes only the runner output contract document; without storyboards it is a usage error', () => {
    const out = mkdtempSync(join(tmpdir(), 'pc-cli-'));
    const bundle = writeFixtureBundle();
    try {
      const r = cli(['run', '--storyboards', bundle, '--transport', 'mcp', '--format', 'runner-output', '--out', out]);
      expect(r.code, r.stderr + r.stdout).toBe(1);
      expect(existsSync(join(out, 'agent-compliance.json'))).toBe(false);
      const doc = JSON.parse(readFileSync(join(out, 'runner-output.json'), 'utf8'));
      expect(doc.contract).toEqual({ id: 'runner_output_contract', version: '1.1.0' });
      expect(doc.step_results.find((s: { step_id: string }) => s.step_id === 'wrong')).toMatchObject({
        storyboard_id: 'flow',
        transport: 'mcp',
        passed: false,
      });
      const refused = cli(['run', '--format', 'runner-output', '--out', out]);
      expect([refused.code, refused.stderr.trim()]).toEqual([
        2,
        'proto-comply: run: --format runner-output needs --storyboards: the runner output contract reports the steps of a storyboard run',
      ]);
    } finally {
      rmSync(out, { recursive: true, force: true });
      rmSync(bundle, { recursive: true, force: true });
    }
  });

  it('--json prints the agent-compliance document on stdout, summary on stderr', () => {
    const out = mkdtempSync(join(tmpdir(), 'pc-cli-'));
    try {
      const r = cli(['run', '--json', '--suite', 'capabilities', '--transport', 'mcp', '--out', out, '--seed', '7']);
      expect(r.code, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(doc.seed).toBe('7');
      expect(doc.selection.suites).toEqual(['capabilities']);
      expect(r.stderr).toMatch(/Headline:/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('exits 4 when the budget runs out with no failure', () => {
    const out = mkdtempSync(join(tmpdir(), 'pc-cli-'));
    try {
      const r = cli(['run', '--budget-s', '0.3', '--out', out]);
      expect(r.code, r.stderr + r.stdout).toBe(4);
      const doc = JSON.parse(readFileSync(join(out, 'agent-compliance.json'), 'utf8'));
      expect(doc.coverage.complete).toBe(false);
      expect(doc.coverage.gaps.find((g: { gap: string }) => g.gap === 'run budget')).toBeDefined();
      expect(doc.overall_status).not.toBe('passing');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('exits 3 with one line when the agent is unreachable', () => {
    const out = mkdtempSync(join(tmpdir(), 'pc-cli-'));
    try {
      const r = cli(['run', '--agent', 'http://127.0.0.1:9/', '--out', out]);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/^proto-comply: unreachable: .*ECONNREFUSED/m);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('says which response schemas judge: a released set found beside a storyboard bundle, in the first line and the report', () => {
    const root = mkdtempSync(join(tmpdir(), 'pc-cli-'));
    try {
      const bundle = join(root, 'bundle');
      mkdirSync(join(bundle, 'universal'), { recursive: true });
      writeFileSync(join(bundle, 'index.json'), JSON.stringify({ adcp_version: '3.0.0', universal: ['caps'], protocols: [], specialisms: [] }));
      writeFileSync(join(bundle, 'universal/caps.yaml'), 'id: caps\ntitle: caps\nphases:\n  - id: p\n    steps:\n      - id: s\n        task: get_products\n');
      cpSync(SCHEMA_SET_FIXTURE, join(bundle, 'schemas'), { recursive: true });
      const r = cli(['run', '--agent', 'http://127.0.0.1:9/', '--storyboards', bundle, '--target', '3.0', '--out', join(root, 'out')]);
      expect(r.code).toBe(3);
      expect(r.stderr.split('\n')[0]).toBe(
        `proto-comply: response schemas: the released 3.0.0-fixture schemas at ${join(bundle, 'schemas')} (found beside the bundle), line 3.0`,
      );
      const doc = JSON.parse(readFileSync(join(root, 'out/agent-compliance.json'), 'utf8'));
      expect(doc.target.response_schemas).toMatchObject({ judged_with: 'released', released_set: { version: '3.0.0-fixture', chosen: 'beside the bundle' } });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it.each([
    [['run', '--suite', 'nope'], /unknown suite "nope"/],
    [['run', '--agent', 'not a url'], /agent URL/],
    [['run', '--agent', 'file:///etc/passwd'], /http or https/],
    [['run', '--transport', 'smtp'], /--transport/],
    [['run', '--check', 'nothing.matches.*'], /selects no check/],
    [['run', '--budget-s', '-1'], /--budget-s/],
    [['run', '--token', 'Bad Token'], /--token/],
    [['run', '--frobnicate'], /frobnicate/],
    [['run', '--schemas', '/nonexistent/schemas'], /^proto-comply: run: --schemas: \/nonexistent\/schemas: no such directory$/m],
    [['launch'], /unknown command "launch"/],
  ])('usage error %j exits 2 with one line, no stack trace', (args, message) => {
    const r = cli(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message as RegExp);
  });
});
