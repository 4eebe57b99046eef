/**
 * The registry's fleet probing (issue 15): 200 mock sellers served by one other process (a tenth
 * of them faulty), each certified with the full suites over MCP. `registry probe`'s engine at 50,
 * 100 and 200 agents (agents per minute, per-agent cost: it should stay flat as the fleet grows,
 * peak memory), then the same 200 through `registry serve --postgres` and two `registry worker`
 * processes on an embedded PostgreSQL server. The goal: all 200 certified within 60 s.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from '../harness/signing/bench/bench.js';
import { probeFleet } from '../harness/registry/fleet-probe.js';
import { registryStatus } from '../reports/compliance-detail.js';
import { startTestPostgres } from '../harness/registry/testing/postgres.js';

const BIN = fileURLToPath(new URL('../bin/proto-comply.js', import.meta.url));
const SETTINGS = { budgetS: 600, denyPrivate: true, allowHosts: ['127.0.0.0/8'] };
const CONCURRENCY = 24;

async function startFleet(count: number): Promise<{ agents: Array<{ url: string; faults: string[] }>; child: ChildProcess }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL('./fleet-server.ts', import.meta.url)), String(count)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (c) => reject(new Error(`fleet exited with ${c}`)));
  });
  return { agents: JSON.parse(line), child };
}

function spawnCli(args: string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, [BIN, 'registry', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      err += d;
      const m = ready.exec(err);
      if (m) resolve({ child, match: m });
    });
    child.once('exit', (c) => reject(new Error(`registry ${args[0]} exited with ${c}: ${err.slice(-500)}`)));
  });
}

export async function fleetBench(o: { sizes?: number[] } = {}): Promise<BenchResult[]> {
  const sizes = o.sizes ?? [50, 100, 200];
  const max = Math.max(...sizes);
  const fleet = await startFleet(max);
  const out: BenchResult[] = [];
  try {
    const agents = fleet.agents.map((a) => ({ url: a.url, transports: ['mcp' as const], token: 'proto' }));
    let base: number | undefined;
    for (const n of sizes) {
      const t0 = performance.now();
      const results = await probeFleet(agents.slice(0, n), { concurrency: CONCURRENCY, perHost: 2, settings: SETTINGS });
      const s = (performance.now() - t0) / 1000;
      const wrong = results
        .map((r, i) => ({ r, a: fleet.agents[i]! }))
        .filter(({ r, a }) => registryStatus(r.overall_status) !== (a.faults.length ? 'failing' : 'passing'))
        .map(({ r, a }) => `${a.url} (faults: ${a.faults.join(',') || 'none'}): ${r.headline}`);
      if (wrong.length) throw new Error(`${wrong.length} of ${n} agents got the wrong verdict:\n${wrong.join('\n')}`);
      const perAgent = s / n;
      base ??= perAgent;
      out.push({
        name: `registry probe, ${n} agents (full suites, MCP, ${CONCURRENCY} at once)`,
        ops_per_sec: n / s,
        iterations: n,
        ...(n !== sizes[0] ? { baseline: `registry probe, ${sizes[0]} agents (full suites, MCP, ${CONCURRENCY} at once)`, ratio: base / perAgent } : {}),
        note: `${((n / s) * 60).toFixed(0)} agents/min, ${s.toFixed(1)} s wall, ${(perAgent * 1000).toFixed(0)} ms per agent, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
      });
    }
    out.push(await postgresRun(agents.slice(0, max)));
  } finally {
    fleet.child.stdin!.end();
  }
  return out;
}

async function postgresRun(agents: Array<{ url: string }>): Promise<BenchResult> {
  const pg = await startTestPostgres();
  const key = 'bench-api-key-0123456789abcdef';
  const common = ['--allow-host', '127.0.0.0/8', '--interval-s', '3600'];
  const procs: ChildProcess[] = [];
  try {
    const serve = await spawnCli(
      ['serve', '--postgres', pg.url, '--workers', '0', '--port', '0', '--api-key', key, '--per-host', '2', ...common],
      /listening on (\S+)/,
    );
    procs.push(serve.child);
    const api = serve.match[1]!;
    for (let i = 0; i < 2; i++)
      procs.push((await spawnCli(['worker', '--postgres', pg.url, '--concurrency', String(CONCURRENCY / 2), ...common], /taking probe jobs/)).child);
    const t0 = performance.now();
    for (const a of agents)
      await fetch(`${api}/api/me/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ url: a.url, transports: ['mcp'] }),
      });
    for (;;) {
      const stats = (await (await fetch(`${api}/api/registry/stats`)).json()) as { runs: number };
      if (stats.runs >= agents.length) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const s = (performance.now() - t0) / 1000;
    return {
      name: `registry serve --postgres + 2 workers, ${agents.length} agents (full suites, MCP)`,
      ops_per_sec: agents.length / s,
      iterations: agents.length,
      note: `${((agents.length / s) * 60).toFixed(0)} agents/min, ${s.toFixed(1)} s wall (goal: ${agents.length} within 60 s)`,
    };
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
    await pg.stop();
  }
}
