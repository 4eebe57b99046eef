/**
 * The scheduler's limits with a stand-in prober (no network; the store is a real SQLite file):
 * never more than `workers` probes at once, never more than `perHost` on one host, each agent at
 * most once per interval, and an unreachable agent retried with a growing backoff.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRunFixture, buildUnreachableFixture } from '../../reports/testing/run-result.js';
import type { Prober } from './probe.js';
import { hostOf, nextDue, Scheduler } from './scheduler.js';
import { SqliteRegistryStore } from './sqlite-store.js';

let dir: string;
let store: SqliteRegistryStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scheduler-'));
  store = new SqliteRegistryStore(join(dir, 'r.sqlite'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const SETTINGS = { budgetS: 10, denyPrivate: true, allowHosts: [] };
const passing = buildRunFixture({ withoutHarnessError: true });

describe('scheduler', () => {
  it('keeps to the global and per-host limits and probes each agent once per interval', async () => {
    // 3 hosts with 6 agents each.
    for (const h of ['a', 'b', 'c'])
      for (let i = 0; i < 6; i++) await store.addAgent({ url: `https://${h}.example/agent${i}`, transports: ['mcp'], token: 'proto' }, Date.now());
    const now = new Map<string, number>();
    let running = 0;
    let maxRunning = 0;
    const maxPerHost = new Map<string, number>();
    const probes = new Map<string, number>();
    const probe: Prober = async (agent) => {
      const host = hostOf(agent.url);
      running++;
      now.set(host, (now.get(host) ?? 0) + 1);
      maxRunning = Math.max(maxRunning, running);
      maxPerHost.set(host, Math.max(maxPerHost.get(host) ?? 0, now.get(host)!));
      probes.set(agent.url, (probes.get(agent.url) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 20));
      running--;
      now.set(host, now.get(host)! - 1);
      return { ...passing, agent_url: agent.url, overall_status: 'passing' };
    };
    const s = new Scheduler({ store, probe, settings: SETTINGS, workers: 5, perHost: 2, intervalMs: 3_600_000, runner: 'test', tickMs: 20 });
    s.start();
    await s.idle();
    await s.stop();
    expect(maxRunning).toBe(5);
    expect(Math.max(...maxPerHost.values())).toBe(2);
    expect([...probes.values()]).toEqual(new Array(18).fill(1));
    expect((await store.counts()).passing).toBe(18);
  });

  it('retries an unreachable agent with a growing backoff, capped, and resets it after a verdict', () => {
    const unreachable = buildUnreachableFixture();
    expect(nextDue(0, unreachable, 0, 60_000, 3_600_000)).toEqual({ at: 60_000, failures: 1 });
    expect(nextDue(0, unreachable, 1, 60_000, 3_600_000)).toEqual({ at: 120_000, failures: 2 });
    expect(nextDue(0, unreachable, 3, 60_000, 3_600_000)).toEqual({ at: 480_000, failures: 4 });
    expect(nextDue(0, unreachable, 40, 60_000, 3_600_000)).toEqual({ at: 3_600_000, failures: 41 });
    expect(nextDue(5, passing, 7, 60_000, 3_600_000)).toEqual({ at: 60_005, failures: 0 });
  });

  it('records an unreachable probe as unknown with its problem, never as a pass', async () => {
    await store.addAgent({ url: 'https://down.example/mcp', transports: ['mcp'], token: 'proto' }, Date.now());
    const unreachable = buildUnreachableFixture();
    const s = new Scheduler({
      store,
      probe: async () => unreachable,
      settings: SETTINGS,
      workers: 1,
      perHost: 1,
      intervalMs: 3_600_000,
      runner: 'test',
      tickMs: 20,
    });
    s.start();
    await s.idle();
    await s.stop();
    const agent = await store.getAgent('https://down.example/mcp');
    expect(agent?.status).toBe('unknown');
    expect(agent?.failures).toBe(1);
    expect(agent?.problem).toBeTruthy();
  });
});
