/**
 * Runs against agents the user does not control. `run --deny-private`: an agent on a reserved
 * address is refused with exit 3 and one line, by address and by a public-looking name that
 * resolves to one (an injected resolver, no DNS); the allow-list lets a local agent through. An
 * agent card pointing at another origin leaves A2A unusable with the reason in the report, unless
 * the card-origin flags allow it. Everything on loopback, with a trap proving nothing was sent.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockSeller, type RunningMockSeller } from '../../mocks/seller/index.js';
import { certify } from '../certify/index.js';
import { startTestServer, startTrap, type TestServer } from '../core/net/testing/trap-server.js';
import { parseRunArgs, reproduceCommand } from './run-args.js';
import { runCommand } from './run-command.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('run --deny-private', () => {
  let trap: TestServer;
  let out: string;
  beforeAll(async () => {
    trap = await startTrap();
    out = mkdtempSync(join(tmpdir(), 'pc-deny-'));
  });
  afterAll(async () => {
    await trap?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('refuses an agent on 127.0.0.1: exit 3, one line, nothing sent, no report', () => {
    const r = cli(['run', '--deny-private', '--agent', `${trap.origin}/mcp`, '--auth-token', 'secret-token-123456', '--out', out]);
    expect(r.code, r.stderr + r.stdout).toBe(3);
    expect(r.stderr).toBe('proto-comply: refused: 127.0.0.1 is a reserved address (loopback); nothing was sent (pass --allow-host 127.0.0.1 to allow it)\n');
    expect(r.stdout).toBe('');
    expect(trap.connections).toBe(0);
    expect(existsSync(join(out, 'agent-compliance.json'))).toBe(false);
  });

  it('refuses a public-looking name that resolves to a private address', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    let code: number;
    try {
      code = await runCommand(['--deny-private', '--agent', `http://agent.example.com:${trap.port}/mcp`, '--out', out], {
        lookup: async (host) => (host === 'agent.example.com' ? [{ address: '127.0.0.1', family: 4 }] : []),
      });
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(3);
    expect(lines).toEqual([
      'proto-comply: refused: agent.example.com resolves to 127.0.0.1, a reserved address (loopback); nothing was sent (pass --allow-host 127.0.0.1 to allow it)\n',
    ]);
    expect(trap.connections).toBe(0);
  });

  it('a bad --allow-host is a usage error (exit 2, one line)', () => {
    const r = cli(['run', '--deny-private', '--allow-host', '10.0.0.0/33', '--agent', trap.origin]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--allow-host: "10\.0\.0\.0\/33" is neither a host name, an IP address nor a CIDR block/);
  });

  it('parses the flags and puts them in the reproduce command', () => {
    const args = parseRunArgs([
      '--agent',
      'https://a.example',
      '--deny-private',
      '--allow-host',
      '10.0.0.0/8',
      '--allow-host',
      'localhost',
      '--send-token-to-card-origin',
    ]);
    if (args === 'help') throw new Error('help');
    expect(args).toMatchObject({ denyPrivate: true, allowHosts: ['10.0.0.0/8', 'localhost'], allowCardOrigin: true, sendTokenToCardOrigin: true });
    expect(reproduceCommand(args)).toContain('--deny-private --allow-host 10.0.0.0/8 --allow-host localhost --send-token-to-card-origin');
    const plain = parseRunArgs(['--agent', 'https://a.example']);
    if (plain === 'help') throw new Error('help');
    expect(plain).toMatchObject({ denyPrivate: false, allowHosts: [], allowCardOrigin: false, sendTokenToCardOrigin: false });
  });
});

describe('certify({ denyPrivate })', () => {
  let seller: RunningMockSeller;
  beforeAll(async () => {
    seller = await startMockSeller({ allowPrivateWebhooks: true });
  });
  afterAll(() => seller?.close());

  it('refuses a loopback agent: unreachable, the reason in the headline', async () => {
    const run = await certify({ agentUrl: seller.baseUrl, denyPrivate: true, suites: ['capabilities'] });
    expect(run.overall_status).toBe('unreachable');
    expect(run.headline).toMatch(/^unreachable: mcp: refused: 127\.0\.0\.1 is a reserved address \(loopback\); nothing was sent; a2a: refused/);
  });

  it('lets an allow-listed local agent through, on both transports', async () => {
    const run = await certify({ agentUrl: seller.baseUrl, denyPrivate: true, allowHosts: ['127.0.0.1'], suites: ['capabilities'] });
    expect(run.overall_status, run.headline).toBe('passing');
    expect(run.transport_info.map((t) => t.reachable)).toEqual([true, true]);
  });

  it('lets an allow-listed name through and connects where the injected resolver said', async () => {
    const run = await certify({
      agentUrl: `http://seller.example.com:${new URL(seller.baseUrl).port}`,
      denyPrivate: true,
      allowHosts: ['seller.example.com'],
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      suites: ['capabilities'],
      transports: ['mcp'],
    });
    expect(run.overall_status, run.headline).toBe('passing');
  });
});

describe('an agent card pointing at another origin', () => {
  it('leaves A2A unusable with the reason in the report; the token and the calls stay home', async () => {
    const trap = await startTrap();
    const agent = await startTestServer('127.0.0.1', 0, (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'x', url: `${trap.origin}/a2a`, skills: [] })),
    );
    try {
      const run = await certify({ agentUrl: agent.origin, authToken: 'bearer-for-the-agent-only-123', transports: ['a2a'], suites: ['capabilities'] });
      const problem = `a2a: agent card url ${trap.origin}/a2a is on another origin than ${agent.origin}; pass --a2a-url to use it (or allow card origins with --allow-card-origin)`;
      expect(run.overall_status).toBe('unreachable');
      expect(run.transport_info[0]?.problem).toBe(problem);
      const applicable = run.checks.filter((c) => c.outcome !== 'not_applicable');
      expect(applicable.length).toBeGreaterThan(0);
      expect(applicable.map((c) => [c.outcome, c.blocked_by, c.message])).toEqual(
        applicable.map(() => ['blocked', 'transport.a2a', `blocked by transport.a2a: ${problem}`]),
      );
      expect(trap.connections).toBe(0);
    } finally {
      await agent.close();
      await trap.close();
    }
  });
});
