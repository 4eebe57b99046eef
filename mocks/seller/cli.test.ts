/** The `proto-comply mock seller` command: flags, --list-faults, URLs, clean stop on a signal. */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mockSellerCommand } from './cli.js';
import { listFaults } from './faults.js';
import { McpTestClient } from './testing/wire-client.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) } };
}

async function waitFor(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('mock seller command', () => {
  it('--list-faults prints every fault, name first, then the rule it breaks', async () => {
    const { out, io } = capture();
    expect(await mockSellerCommand(['--list-faults'], io)).toBe(0);
    const lines = out.join('').trimEnd().split('\n');
    const faults = listFaults();
    expect(lines).toHaveLength(faults.length);
    lines.forEach((line, i) => {
      expect(line.startsWith(`${faults[i].name} `)).toBe(true);
      expect(line).toContain(faults[i].rule);
    });
  });

  it.each([
    [['--nope'], /nope/],
    [['--port', 'abc'], /--port/],
    [['--port', '70000'], /--port/],
    [['--reply-mode', 'xml'], /--reply-mode/],
    [['--fault', 'no-such-fault'], /no-such-fault.*valid faults/],
    [['--token', 'Not A Token'], /token/],
    [['stray-positional'], /stray-positional/],
    [['--kind', 'signals,seller'], /--kind "seller" is no agent kind \(known: media-buy, creative, signals, governance, brand\)/],
    [['--line', '3.3'], /--line must be one of 3\.0, 3\.1, 3\.2, got "3\.3"/],
    [['--rate-limit', '20'], /--rate-limit must be INSERTS\/MS/],
    [['--rate-limit', '0/1000'], /--rate-limit must be INSERTS\/MS/],
  ])('rejects %j with one line on stderr and exit code 2', async (argv, message) => {
    const { out, err, io } = capture();
    expect(await mockSellerCommand(argv, io)).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('')).toMatch(message);
    expect(err.join('').trimEnd().split('\n')).toHaveLength(1);
  });

  it('--kind serves only that kind: its tasks and the capability tasks in the agent card', async () => {
    const { out, io } = capture();
    const stop = new AbortController();
    const running = mockSellerCommand(['--kind', 'signals', '--kind', 'governance'], { ...io, stop: stop.signal });
    await waitFor(() => out.join('').includes('card '), 'the URL lines');
    const card = /^card (\S+)$/m.exec(out.join(''))![1]!;
    const body = (await (await fetch(card, { signal: AbortSignal.timeout(5_000) })).json()) as { skills: { id: string }[] };
    expect(body.skills.map((s) => s.id).sort()).toEqual([
      'activate_signal',
      'check_governance',
      'get_agent_capabilities',
      'get_plan_audit_logs',
      'get_proto_capabilities',
      'get_signals',
    ]);
    stop.abort();
    expect(await running).toBe(0);
  });

  it('--line sets the protocol line it speaks: a 3.2 seller declares 3.2 alone', async () => {
    const { out, io } = capture();
    const stop = new AbortController();
    const running = mockSellerCommand(['--line', '3.2'], { ...io, stop: stop.signal });
    await waitFor(() => out.join('').includes('MCP '), 'the URL lines');
    const mcp = /^MCP\s+(\S+)$/m.exec(out.join(''))![1]!;
    const client = new McpTestClient(mcp);
    await client.initialize();
    expect(((await client.ok('get_proto_capabilities')).proto as { supported_versions: string[] }).supported_versions).toEqual(['3.2']);
    stop.abort();
    expect(await running).toBe(0);
  });

  it('prints its URLs when ready, serves, and returns 0 once stopped', async () => {
    const { out, io } = capture();
    const stop = new AbortController();
    const running = mockSellerCommand(['--fault', 'pause-ignored', '--reply-mode', 'json', '--token', 'adcp'], { ...io, stop: stop.signal });
    await waitFor(() => out.join('').includes('card '), 'the URL lines');
    const text = out.join('');
    const mcp = /^MCP {2}(http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(text)?.[1];
    const a2a = /^A2A {2}(http:\/\/127\.0\.0\.1:\d+\/a2a)$/m.exec(text)?.[1];
    const card = /^card (http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json)$/m.exec(text)?.[1];
    expect(mcp && a2a && card).toBeTruthy();
    const body = (await (await fetch(card!, { signal: AbortSignal.timeout(5_000) })).json()) as { url: string; skills: { id: string }[] };
    expect(body.url).toBe(a2a);
    expect(body.skills.map((s) => s.id)).toContain('get_adcp_capabilities');
    stop.abort();
    expect(await running).toBe(0);
    await expect(fetch(card!, { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
  });

  it('says which webhook URL policy it applies: strict by default, loopback and private networks with --allow-private-webhooks', async () => {
    for (const [argv, policy] of [
      [[], 'webhook URLs must be https and public'],
      [['--allow-private-webhooks'], 'webhooks to loopback or private networks, over http too (never link-local or metadata addresses): local testing'],
    ] as const) {
      const { err, io } = capture();
      const stop = new AbortController();
      const running = mockSellerCommand([...argv], { ...io, stop: stop.signal });
      await waitFor(() => err.join('').includes('listening on'), 'the start line');
      expect(err.join('')).toContain(policy);
      stop.abort();
      expect(await running).toBe(0);
    }
  });

  it('stops cleanly on SIGTERM as a real process', async () => {
    const script = "import { mockSellerCommand } from './mocks/seller/cli.ts'; process.exitCode = await mockSellerCommand(process.argv.slice(1));";
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, '--', '--port', '0'], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => stdout.includes('card '), 'the child seller', 20_000);
      const mcp = /^MCP {2}(\S+)$/m.exec(stdout)![1];
      const res = await fetch(mcp, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(5_000) });
      expect(res.status).toBe(400);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});
