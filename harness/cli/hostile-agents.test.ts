/**
 * The hostile-agent battery: misbehaving agents on loopback, each certified by the CLI in a child
 * process (as a user runs it), with short budgets. Every property is its own test per agent:
 * the run ends within its budget plus a margin with a documented exit code, writes a report that
 * is bounded, leaks the bearer token nowhere (plain, base64, base64url, URL-encoded), prints no
 * raw control character, workflow command or stack trace, and sends nothing to a trap origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTrap, type TestServer } from '../core/net/testing/trap-server.js';
import { startHostileAgent } from './testing/hostile-agent.js';
import { hostileCases } from './testing/hostile-scenarios.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));
const BUDGET_S = 6;
const TIMEOUT_S = 2;
/** The run itself: its budget, the give-up grace (timeout + 2 s) and a margin for closing and assembling. */
const RUN_LIMIT_MS = (BUDGET_S + TIMEOUT_S + 2 + 3) * 1000;
/** The process: the run plus start-up and report writing, on a 2-core machine busy with other tests. */
const WALL_LIMIT_MS = RUN_LIMIT_MS + 45_000;
const DIR_CAP_BYTES = 16 * 1024 * 1024;
const PARALLEL = 3;
const DOCUMENTED_EXITS = [0, 1, 3, 4, 5];

const SECRET_CORE = randomBytes(12).toString('hex');
const SECRET = `hostile~Tok.${SECRET_CORE}+/=`;
const SPELLINGS: Record<string, string> = {
  plain: SECRET,
  base64: Buffer.from(SECRET).toString('base64'),
  base64url: Buffer.from(SECRET).toString('base64url'),
  'url-encoded': encodeURIComponent(SECRET),
};

interface Outcome {
  code: number | null;
  signal: string | null;
  ms: number;
  stdout: string;
  stderr: string;
  out: string;
  trapConnections: number;
}

const names = hostileCases('http://127.0.0.1:9').map((c) => c.name);
const outcomes = new Map<string, Outcome>();
const root = mkdtempSync(join(tmpdir(), 'pc-hostile-'));

function runCli(args: string[]): Promise<Omit<Outcome, 'out' | 'trapConnections'>> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const killer = setTimeout(() => child.kill('SIGKILL'), WALL_LIMIT_MS * 2);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, ms: performance.now() - t0, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

async function runCase(index: number): Promise<void> {
  const trap: TestServer = await startTrap();
  const c = hostileCases(trap.origin)[index];
  const agent = await startHostileAgent(c.scenario);
  const out = join(root, String(index));
  try {
    const r = await runCli([
      'run',
      '--agent',
      agent.origin,
      '--suite',
      'capabilities',
      '--auth-token',
      SECRET,
      '--budget-s',
      String(BUDGET_S),
      '--timeout-s',
      String(TIMEOUT_S),
      '--out',
      out,
      ...(c.args ?? []),
    ]);
    outcomes.set(c.name, { ...r, out, trapConnections: trap.connections });
  } finally {
    await agent.close();
    await trap.close();
  }
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

beforeAll(async () => {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) await runCase(next++);
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}, 600_000);

afterAll(() => {
  // PROTO_COMPLY_BATTERY_TABLE=1 prints each agent's exit code and times.
  if (process.env.PROTO_COMPLY_BATTERY_TABLE) {
    for (const [name, o] of outcomes) process.stdout.write(`${String(o.code).padEnd(4)} ${String(Math.round(o.ms)).padStart(6)} ms  ${name}\n`);
  }
  rmSync(root, { recursive: true, force: true });
});

it(`the battery holds at least 25 hostile agents (${names.length})`, () => {
  expect(names.length).toBeGreaterThanOrEqual(25);
  expect(new Set(names).size).toBe(names.length);
});

describe.each(names.map((name, i) => [name, i] as const))('hostile agent: %s', (name, index) => {
  const get = (): Outcome => {
    const o = outcomes.get(name);
    if (!o) throw new Error(`no outcome for ${name}`);
    return o;
  };
  const console = (): string => `${get().stdout}${get().stderr}`;

  it('ends its run within the budget plus the give-up grace and a margin (report duration)', () => {
    const doc = JSON.parse(readFileSync(join(get().out, 'agent-compliance.json'), 'utf8')) as { duration_ms?: number };
    expect(doc.duration_ms).toBeTypeOf('number');
    expect(doc.duration_ms).toBeLessThan(RUN_LIMIT_MS);
  });

  it('exits by itself, well before the watchdog (wall clock, start-up included)', () => {
    expect(get().signal, 'killed by the watchdog').toBeNull();
    expect(get().ms).toBeLessThan(WALL_LIMIT_MS);
  });

  it('exits with a documented code, the one this misbehaviour calls for', () => {
    const { code } = get();
    expect(DOCUMENTED_EXITS).toContain(code);
    expect(hostileCases('http://127.0.0.1:9')[index].exits, get().stderr.slice(0, 2000)).toContain(code);
  });

  it('writes the report', () => {
    const path = join(get().out, 'agent-compliance.json');
    expect(existsSync(path)).toBe(true);
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { overall_status?: string; checks?: unknown[] };
    expect(typeof doc.overall_status).toBe('string');
    expect(Array.isArray(doc.checks)).toBe(true);
    for (const f of ['junit.xml', 'report.html']) expect(existsSync(join(get().out, f)), f).toBe(true);
  });

  it(`keeps the report directory under ${DIR_CAP_BYTES / 1024 / 1024} MiB`, () => {
    const total = filesUnder(get().out).reduce((n, f) => n + statSync(f).size, 0);
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThan(DIR_CAP_BYTES);
  });

  it('leaks the bearer token into no file of the report directory (any spelling)', () => {
    const leaks: string[] = [];
    for (const f of filesUnder(get().out)) {
      const text = readFileSync(f, 'utf8');
      for (const [spelling, form] of Object.entries(SPELLINGS)) if (text.includes(form)) leaks.push(`${spelling} in ${f}`);
    }
    expect(leaks).toEqual([]);
  });

  it('leaves no piece of the bearer token anywhere (a snippet cut inside it)', () => {
    const texts = [console(), ...filesUnder(get().out).map((f) => readFileSync(f, 'utf8'))];
    expect(texts.filter((t) => t.includes(SECRET_CORE.slice(0, 12)) || t.includes(SECRET_CORE.slice(-12)))).toEqual([]);
  });

  it('leaks the bearer token onto no console line (any spelling)', () => {
    const leaks = Object.entries(SPELLINGS).filter(([, form]) => console().includes(form));
    expect(leaks.map(([s]) => s)).toEqual([]);
  });

  it('prints no raw control character', () => {
    expect(console()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('prints no line a CI runner would take for a workflow command', () => {
    expect(
      console()
        .split('\n')
        .filter((l) => /^\s*(::|##\[)/.test(l)),
    ).toEqual([]);
  });

  it('prints no stack trace', () => {
    expect(console()).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  });

  it('sends nothing to the trap origin', () => {
    expect(get().trapConnections).toBe(0);
  });
});
