/** `proto-comply registry probe` as a user runs it: a fleet of mock sellers, one faulty; usage errors exit 2 with one line. */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockFleet, type RunningMockFleet } from '../../mocks/fleet/index.js';
import { validateAgentCompliance } from '../../reports/json.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let dir: string;
let fleet: RunningMockFleet;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'registry-cli-'));
  fleet = await startMockFleet({ count: 3, faultsFor: (i) => (i === 2 ? ['replay-not-flagged'] : []) });
});
afterAll(async () => {
  await fleet.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('proto-comply registry probe', () => {
  it('certifies each agent of the list once, prints a summary table, writes a report per agent and an index (exit 1: one failing)', async () => {
    const list = join(dir, 'agents.txt');
    writeFileSync(list, `# three local sellers\n${fleet.agents.map((a) => a.url).join('\n')}\n`);
    const out = join(dir, 'out');
    const r = await cli(['registry', 'probe', '--agents', list, '--out', out, '--allow-host', '127.0.0.0/8', '--suite', 'idempotency', '--concurrency', '3']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/\] 3\/3 /);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^agent\s+status\s+first failing check/);
    expect(lines.find((l) => l.startsWith(`${fleet.agents[2]!.url}/`))).toMatch(/failing\s+idempotency\.replay/);
    expect(r.stdout).toMatch(/3 agents in [\d.]+ s: 2 passing, 0 degraded, 1 failing, 0 unknown/);
    const index = JSON.parse(readFileSync(join(out, 'index.json'), 'utf8')) as {
      agents: Array<{ agent_url: string; status: string; report_dir: string; failing_checks: string[] }>;
    };
    expect(index.agents.map((a) => a.status)).toEqual(['passing', 'passing', 'failing']);
    expect(index.agents[2]!.failing_checks).toContain('idempotency.replay.flagged');
    for (const a of index.agents) {
      const report = JSON.parse(readFileSync(join(out, a.report_dir, 'agent-compliance.json'), 'utf8'));
      expect(validateAgentCompliance(report).errors).toEqual([]);
      expect(report.agent_url).toBe(a.agent_url);
    }
    expect(existsSync(join(out, 'index.md'))).toBe(true);
  }, 120_000);

  it('refuses an agent on a private address it was not allowed (unknown, exit 4) and sends nothing', async () => {
    const list = join(dir, 'private.json');
    writeFileSync(list, JSON.stringify([{ url: fleet.agents[0]!.url, transports: ['mcp'] }]));
    const r = await cli(['registry', 'probe', '--agents', list, '--out', join(dir, 'private-out'), '--suite', 'idempotency']);
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/unknown\s+unreachable: mcp: refused: 127\.0\.0\.2 is a reserved address \(loopback\)/);
  }, 60_000);

  it.each([
    [['registry', 'probe'], /--agents FILE is required/],
    [['registry', 'probe', '--agents', '/nonexistent/list.txt'], /cannot read \/nonexistent\/list.txt: ENOENT/],
    [['registry', 'probe', '--agents', 'LIST', '--concurrency', '0'], /--concurrency must be an integer from 1 to 256/],
    [['registry', 'launch'], /expected "serve", "worker" or "probe"/],
    [['registry', 'worker'], /--postgres URL is required/],
    [['registry', 'worker', '--postgres', 'mysql://db/x'], /--postgres must be a postgres:\/\/ URL/],
    [
      ['registry', 'serve', '--postgres', 'postgres://127.0.0.1:1/none', '--job-expire-s', '5', '--budget-s', '10'],
      /--job-expire-s \(5\) must exceed --budget-s \(10\)/,
    ],
    [['registry', 'serve', '--api-key', 'short'], /at least 16 characters/],
    [['registry', 'probe', '--agents', 'LIST', '--suite', 'nope'], /--suite: unknown suite "nope"/],
    [['registry', 'serve', '--storyboards', '/no/such/bundle'], /--storyboards: \/no\/such\/bundle: no such file or directory/],
    [['registry', 'serve', '--schemas', '/no/such/schemas'], /--schemas: /],
    [['registry', 'serve', '--reference-transport', 'mcp'], /--reference-transport needs --reference-agent/],
    [['registry', 'serve', '--reference-agent', 'ftp://ref.example/'], /--reference-agent: url must be http or https/],
    [['registry', 'serve', '--reference-agent', 'https://ref.example/mcp', '--reference-transport', 'grpc'], /--reference-transport must list mcp, a2a/],
  ])('usage error %j exits 2 with one line', async (args, message) => {
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, 'https://ok.example/mcp\nftp://nope.example/\n');
    const r = await cli(args.map((a) => (a === 'LIST' ? bad : a)));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });

  it('names the bad entry of a list by its position', async () => {
    const bad = join(dir, 'bad2.txt');
    writeFileSync(bad, 'https://ok.example/mcp\nftp://nope.example/\n');
    const r = await cli(['registry', 'probe', '--agents', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/agent 2: url must be http or https, not ftp/);
  });
});
