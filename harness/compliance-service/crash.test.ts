/**
 * kill -9 of `proto-comply registry serve` mid-probe (SQLite): the probe's run is left `running`,
 * no result is recorded (the agent stays `unknown`, never passing); the next start declares the
 * run interrupted and probes the agent again, and only that second run's verdict counts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSeller, type RunningMockSeller } from '../../mocks/seller/index.js';
import { SqliteRegistryStore } from './sqlite-store.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));
const KEY = 'crash-test-api-key-0123456789';

let dir: string;
let seller: RunningMockSeller;
const children: ChildProcess[] = [];

function serve(db: string): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    [BIN, 'registry', 'serve', '--port', '0', '--db', db, '--api-key', KEY, '--allow-host', '127.0.0.0/8', '--interval-s', '3600', '--suite', 'idempotency'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${err}`)), 20_000);
    child.stderr!.on('data', () => {
      const m = /registry listening on (\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, stderr: () => err });
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}

async function poll<T>(get: () => Promise<T>, ok: (v: T) => boolean, what: string, limit = 300): Promise<T> {
  let v = await get();
  for (let i = 0; i < limit && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 100));
    v = await get();
  }
  if (!ok(v)) throw new Error(`${what} did not happen; last: ${JSON.stringify(v).slice(0, 300)}`);
  return v;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'registry-crash-'));
  // Slow bookings: the probe takes seconds, long enough to be killed in the middle.
  seller = await startMockSeller({ bookingLatencyMs: 400, allowPrivateWebhooks: true });
});

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await seller.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('registry serve killed with kill -9 mid-probe (SQLite)', () => {
  it('records no result for the interrupted run and probes the agent again on restart', async () => {
    const db = join(dir, 'registry.sqlite');
    const first = await serve(db);
    const agent = `${seller.baseUrl}/`;
    const reg = await fetch(`${first.url}/api/me/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ url: agent }),
    });
    expect(reg.status).toBe(201);
    const detailUrl = (base: string) => `${base}/api/registry/agents/${encodeURIComponent(agent)}/compliance`;
    await poll(
      async () => (await (await fetch(detailUrl(first.url))).json()) as { probing: boolean },
      (d) => d.probing,
      'the probe starting',
    );
    await new Promise((r) => setTimeout(r, 300));
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const store = new SqliteRegistryStore(db);
    try {
      const [row] = await store.history(agent, 10);
      expect(row).toMatchObject({ state: 'running' });
      expect((await store.getAgent(agent))?.status).toBe('unknown');
      expect(await store.latestReport(agent)).toBeUndefined();
    } finally {
      await store.close();
    }

    const second = await serve(db);
    expect(second.stderr()).toMatch(/1 run\(s\) interrupted by a previous stop will be redone/);
    const d = await poll(
      async () => (await (await fetch(detailUrl(second.url))).json()) as { status: string },
      (x) => x.status !== 'unknown',
      'the second probe',
    );
    expect(d.status).toBe('passing');
    const history = (await (await fetch(`${second.url}/api/registry/agents/${encodeURIComponent(agent)}/compliance/history`)).json()) as {
      runs: Array<{ state: string; status: string | null }>;
    };
    expect(history.runs.map((r) => [r.state, r.status])).toEqual([
      ['done', 'passing'],
      ['interrupted', null],
    ]);
    second.child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => second.child.once('exit', r));
    expect(code).toBe(0);
  }, 90_000);
});
