/** `proto-comply fuzz` as a user runs it: a real process, exit codes, the report, and --replay of a shrunk counterexample. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockSeller, type RunningMockSeller } from '../../mocks/seller/index.js';
import { validateAgentCompliance } from '../../reports/json.js';
import { startTrap } from '../core/net/testing/trap-server.js';
import { startForwarder } from '../fuzz/testing/forwarder.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));
const AUTH = 'fuzz-cli-token-0123456789abcdef';

/** Asynchronous: the mock sellers answer from this process while the child runs. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { encoding: 'utf8', timeout: 60_000, env: { ...process.env, PROTO_COMPLY_AUTH_TOKEN: '' } },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('proto-comply fuzz: usage errors exit 2 with one line', () => {
  it.each([
    [['--runs', '0'], /--runs must be a positive integer/],
    [['--seed', 'abc'], /--seed must be an integer/],
    [['--transport', 'grpc'], /--transport must be mcp, a2a or both/],
    [['--task', 'delete_everything'], /unknown task "delete_everything"/],
    [['--replay', 'report.json'], /--replay must be REPORT#CHECK_ID/],
    [['--replay', '/nonexistent/agent-compliance.json#fuzz.x'], /cannot read/],
    [['--bogus'], /fuzz: Unknown option/],
  ])('%j', async (args, message) => {
    const r = await cli(['fuzz', ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('proto-comply fuzz: unreachable agent and budget', () => {
  const out = mkdtempSync(join(tmpdir(), 'pc-fuzz-x-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('exits 3 when the agent cannot be reached', async () => {
    const r = await cli(['fuzz', '--agent', 'http://127.0.0.1:9/mcp', '--transport', 'mcp', '--seed', '1', '--out', join(out, 'u')]);
    expect(r.code, r.stderr + r.stdout).toBe(3);
    expect(r.stdout).toMatch(/Overall: UNREACHABLE/);
  }, 30_000);

  it('exits 4 when the budget runs out with nothing found', async () => {
    const r = await cli([
      'fuzz',
      '--transport',
      'mcp',
      '--task',
      'get_products',
      '--seed',
      '1',
      '--runs',
      '100000',
      '--budget-s',
      '1.5',
      '--out',
      join(out, 'b'),
    ]);
    expect(r.code, r.stderr + r.stdout).toBe(4);
    expect(r.stdout).toMatch(/run budget of 1\.5 s ran out/);
  }, 120_000);

  it('--deny-private refuses an agent on 127.0.0.1: exit 3, one line, nothing sent, no report', async () => {
    const trap = await startTrap();
    try {
      const r = await cli(['fuzz', '--deny-private', '--agent', `${trap.origin}/mcp`, '--auth-token', 'secret-token-123456', '--out', join(out, 'd')]);
      expect(r.code, r.stderr + r.stdout).toBe(3);
      expect(r.stderr).toBe('proto-comply: refused: 127.0.0.1 is a reserved address (loopback); nothing was sent (pass --allow-host 127.0.0.1 to allow it)\n');
      expect(r.stdout).toBe('');
      expect(trap.connections).toBe(0);
      expect(existsSync(join(out, 'd', 'agent-compliance.json'))).toBe(false);
    } finally {
      await trap.close();
    }
  }, 30_000);
});

describe('proto-comply fuzz against mock sellers', () => {
  let faulty: RunningMockSeller;
  let clean: RunningMockSeller;
  const out = mkdtempSync(join(tmpdir(), 'pc-fuzz-'));
  beforeAll(async () => {
    faulty = await startMockSeller({ authToken: AUTH, faults: ['malformed-key-accepted'] });
    clean = await startMockSeller({ authToken: AUTH });
  });
  afterAll(async () => {
    await faulty.close();
    await clean.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('finds the violation (exit 1), stores the shrunk case, and --replay reproduces exactly it (exit 1; 0 on a fixed seller)', async () => {
    const dir = join(out, 'found');
    const found = await cli([
      'fuzz',
      '--agent',
      faulty.baseUrl,
      '--auth-token',
      AUTH,
      '--transport',
      'mcp',
      '--task',
      'create_media_buy',
      '--seed',
      '7',
      '--runs',
      '100',
      '--out',
      dir,
    ]);
    expect(found.code, found.stderr + found.stdout).toBe(1);
    const report = join(dir, 'agent-compliance.json');
    const doc = JSON.parse(readFileSync(report, 'utf8'));
    expect(validateAgentCompliance(doc)).toEqual({ valid: true, errors: [] });
    const check = doc.checks.find((c: { check_id: string }) => c.check_id === 'fuzz.errors.near-valid-refused.create_media_buy');
    expect(check.outcome).toBe('fail');
    expect(check.evidence.actual.fuzz).toMatchObject({ seed: 7, path: expect.stringMatching(/^\d+(:\d+)*$/) });
    // Shrunk: the counterexample carries the one defect, on the idempotency key.
    const shrunk = check.evidence.actual.fuzz.counterexample;
    expect(shrunk.defect.pointer).toBe('/idempotency_key');
    expect(check.evidence.actual.fuzz.path.split(':').length).toBeGreaterThan(1);
    expect(shrunk.request.packages).toHaveLength(1);
    expect(shrunk.request.context).toBeUndefined();
    expect(check.evidence.notes[0]).toContain(`--replay '${report}#fuzz.errors.near-valid-refused.create_media_buy@mcp'`);

    // The report keeps the bodies the counterexample sent (its key and account included).
    const recorded: { task: string; arguments: string }[] = check.evidence.actual.fuzz.sent;
    expect(recorded.length).toBeGreaterThan(0);
    expect(recorded.at(-1)?.task).toBe('create_media_buy');
    expect(JSON.parse(recorded.at(-1)?.arguments as string).idempotency_key).toBe(shrunk.request.idempotency_key);

    // Replayed through a loopback forwarder to the same faulty seller: the same bytes go out, and it still fails.
    const forwarder = await startForwarder(faulty.baseUrl);
    let again: Awaited<ReturnType<typeof cli>>;
    try {
      again = await cli([
        'fuzz',
        '--replay',
        `${report}#fuzz.errors.near-valid-refused.create_media_buy`,
        '--agent',
        forwarder.baseUrl,
        '--auth-token',
        AUTH,
        '--out',
        join(out, 'replay'),
      ]);
    } finally {
      await forwarder.close();
    }
    expect(again.code, again.stderr + again.stdout).toBe(1);
    expect(again.stderr).toMatch(/re-sending the \d+ recorded request bod(y|ies) byte for byte/);
    expect(again.stderr).toMatch(/replay of fuzz\.errors\.near-valid-refused\.create_media_buy: still fails/);
    const toolCalls = forwarder.bodies.filter((b) => b.includes('"tools/call"') && !b.includes('get_proto_capabilities') && !b.includes('"get_products"'));
    for (const call of recorded)
      expect(
        toolCalls.some((b) => b.includes(`"arguments":${call.arguments}`)),
        call.arguments,
      ).toBe(true);
    const replayed = JSON.parse(readFileSync(join(out, 'replay', 'agent-compliance.json'), 'utf8'));
    expect(replayed.checks).toHaveLength(1);
    // The same case, and the same bytes: the replay's own record of what it sent is the original's.
    const [was, now] = [check, replayed.checks[0]].map((c) => c.evidence.actual.fuzz);
    expect(now.counterexample.defect).toEqual(was.counterexample.defect);
    expect(now.sent).toEqual(was.sent);

    const fixed = await cli([
      'fuzz',
      '--replay',
      `${report}#fuzz.errors.near-valid-refused.create_media_buy@mcp`,
      '--agent',
      clean.baseUrl,
      '--auth-token',
      AUTH,
      '--out',
      join(out, 'fixed'),
    ]);
    expect(fixed.code, fixed.stderr + fixed.stdout).toBe(0);
    expect(fixed.stderr).toMatch(/does not fail now \(pass\)/);
  }, 150_000);

  it('--deny-private with --allow-host 127.0.0.1 fuzzes the loopback seller; progress goes to stderr as plain lines', async () => {
    const dir = join(out, 'allowed');
    const r = await cli([
      'fuzz',
      '--deny-private',
      '--allow-host',
      '127.0.0.1',
      '--agent',
      clean.baseUrl,
      '--auth-token',
      AUTH,
      '--transport',
      'mcp',
      '--task',
      'get_products',
      '--seed',
      '5',
      '--runs',
      '10',
      '--out',
      dir,
    ]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).not.toContain('\r');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.filter((l) => /^\[\d+\/7\] PASS mcp fuzz\./.test(l))).toHaveLength(7);
    expect(lines.at(-1)).toMatch(/^fuzz: 7\/7 properties · \d[\d,]* cases · 0 counterexamples$/);
    expect(r.stdout).toMatch(/Overall: PASSING/);
    expect(r.stdout).not.toMatch(/^\[\d+\/7\]/m);
  }, 60_000);

  it('without --agent fuzzes the built-in mock seller and writes the fuzz suite (exit 0)', async () => {
    const dir = join(out, 'builtin');
    const r = await cli(['fuzz', '--transport', 'mcp', '--task', 'get_products', '--seed', '3', '--runs', '30', '--out', dir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.suites.map((s: { suite_id: string }) => s.suite_id)).toEqual(['fuzz']);
    expect(doc.checks.map((c: { check_id: string; outcome: string }) => `${c.check_id} ${c.outcome}`)).toEqual([
      // near-valid requests are judged on the mutating tasks only (digest 3.2 rule 1): none of get_products
      'fuzz.schemas.valid-accepted.get_products pass',
      // properties without tasks are not narrowed by --task
      'fuzz.errors.unknown-task-refused pass',
      'fuzz.errors.push-config-well-formed.get_products pass',
      'fuzz.errors.auth-refused pass',
      'fuzz.model.media-buy pass',
      'fuzz.model.valid-actions pass',
      'fuzz.signatures.mutation-refused pass',
    ]);
    expect(doc.command).toBe('npx proto-comply fuzz --transport mcp --task get_products --runs 30 --seed 3');
  }, 60_000);
});
