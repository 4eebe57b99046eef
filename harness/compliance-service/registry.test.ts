/**
 * The registry service end to end on loopback: agents registered through the REST API (with its
 * refusals), probed by the scheduler against a fleet of mock sellers, a faulty one `failing` with
 * its failing check id, then fixed (a clean seller on the same address) and seen passing in the
 * change feed; history, the full report, the badge; a private address refused with the reason
 * stored on the agent.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockFleet, type RunningMockFleet } from '../../mocks/fleet/index.js';
import { startMockSeller, type RunningMockSeller } from '../../mocks/seller/index.js';
import { validateAgentCompliance } from '../../reports/json.js';
import { startRegistryService, type RunningRegistryService } from './service.js';
import { SqliteRegistryStore } from './sqlite-store.js';

const KEY = 'registry-test-key-0123456789';
const FAULT = 'replay-not-flagged';

let dir: string;
let fleet: RunningMockFleet;
let store: SqliteRegistryStore;
let svc: RunningRegistryService;
let fixed: RunningMockSeller | undefined;

const api = (path: string, init: RequestInit = {}) => fetch(`${svc.url}${path}`, init);
const register = (body: unknown, key: string | null = KEY, type = 'application/json') =>
  api('/api/me/agents', {
    method: 'POST',
    headers: { 'content-type': type, ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const enc = (url: string) => encodeURIComponent(url);

async function detail(url: string): Promise<Record<string, unknown>> {
  return (await (await api(`/api/registry/agents/${enc(url)}/compliance`)).json()) as Record<string, unknown>;
}

/** Polls (bounded) until `test` holds on the agent's detail. */
async function until(url: string, test: (d: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> {
  let d: Record<string, unknown> = {};
  for (let i = 0; i < 300; i++) {
    d = await detail(url);
    if (test(d)) return d;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url}: ${what} did not happen in 30 s; last: ${JSON.stringify(d).slice(0, 400)}`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'registry-'));
  fleet = await startMockFleet({ count: 3, faultsFor: (i) => (i === 1 ? [FAULT] : []) });
  store = new SqliteRegistryStore(join(dir, 'registry.sqlite'));
  svc = await startRegistryService({
    store,
    apiKeys: [KEY],
    workers: 4,
    perHost: 1,
    intervalMs: 300,
    settings: { budgetS: 60, denyPrivate: true, allowHosts: ['127.0.0.0/8'], suites: ['idempotency'] },
  });
});

afterAll(async () => {
  await svc?.close();
  await store?.close();
  await fleet?.close();
  await fixed?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('registry REST API: registration', () => {
  it('refuses writes without a key or with a wrong one, with a JSON error and a Bearer challenge', async () => {
    for (const key of [null, 'wrong-key-wrong-key-0000']) {
      const r = await register({ url: fleet.agents[0]!.url }, key);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(((await r.json()) as { error: string }).error).toMatch(/API key/);
    }
  });

  it.each([
    ['a malformed URL', { url: 'not a url' }, 400, /not a URL/],
    ['an ftp URL', { url: 'ftp://example.com/agent' }, 400, /http or https/],
    ['credentials in the URL', { url: 'https://user:pw@example.com/mcp' }, 400, /credentials/],
    ['an unknown transport', { url: 'https://example.com/mcp', transports: ['smtp'] }, 400, /transports/],
    ['an unknown field', { url: 'https://example.com/mcp', colour: 'red' }, 400, /unknown field\(s\) colour/],
    ['no url', {}, 400, /url \(or agent_url\) is required/],
    ['an array', [1, 2], 400, /JSON object/],
    ['broken JSON', '{"url":', 400, /not valid JSON/],
    ['a body over 64 KiB', JSON.stringify({ url: 'https://example.com/mcp', owner: 'x'.repeat(70_000) }), 413, /larger than/],
  ])('refuses %s with a JSON error', async (_, body, status, message) => {
    const r = await register(body);
    expect(r.status).toBe(status);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await r.json()) as { error: string }).error).toMatch(message);
  });

  it('refuses a body that is not JSON by its content type (415), an unknown agent (404) and an unknown endpoint (404)', async () => {
    expect((await register('url=x', KEY, 'application/x-www-form-urlencoded')).status).toBe(415);
    expect((await api(`/api/registry/agents/${enc('https://nobody.example/mcp')}/compliance`)).status).toBe(404);
    const r = await api('/api/nothing');
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: string }).error).toMatch(/no such endpoint/);
  });
});

describe('registry: probing a fleet', () => {
  it('probes every registered agent; the faulty one is failing with its failing check id; duplicates are refused', async () => {
    for (const a of fleet.agents) expect((await register({ url: a.url, owner: 'team-a' })).status).toBe(201);
    const dup = await register({ url: fleet.agents[0]!.url });
    expect(dup.status).toBe(409);
    const [good, bad] = [fleet.agents[0]!, fleet.agents[1]!];
    const g = await until(good.url, (d) => d.status !== 'unknown', 'a first verdict');
    expect(g.status).toBe('passing');
    const b = await until(bad.url, (d) => d.status !== 'unknown', 'a first verdict');
    expect(b.status).toBe('failing');
    expect(b.failing_checks).toContain('idempotency.replay.flagged');
    expect(['development', 'testing', 'production', 'deprecated']).toContain(b.lifecycle_stage);
    expect(b.tracks).toMatchObject({ idempotency: 'fail' });
    const list = (await (await api('/api/registry/agents')).json()) as { agents: Array<Record<string, unknown>>; count: number };
    expect(list.count).toBe(3);
    expect(list.agents.every((a) => typeof a.domain === 'string' && Array.isArray(a.capabilities) && Array.isArray(a.channels))).toBe(true);
    expect(JSON.stringify(list)).not.toContain('auth_token');
    const failing = (await (await api('/api/registry/agents?status=failing')).json()) as { agents: Array<{ agent_url: string }> };
    expect(failing.agents.map((a) => a.agent_url)).toEqual([`${bad.url}/`]);
  }, 60_000);

  it('shows a fixed agent going from failing to passing in the change feed, after the cursor', async () => {
    const bad = fleet.agents[1]!;
    const before = (await (await api('/api/registry/changes')).json()) as { changes: Array<Record<string, unknown>>; next_cursor: number };
    expect(before.changes.filter((c) => c.agent_url === `${bad.url}/`).map((c) => c.to)).toContain('failing');
    // Fixing it: the faulty seller stops, a clean one takes its address.
    const { hostname, port } = new URL(bad.url);
    await fleet.close();
    fleet = await startMockFleet({ count: 1, faultsFor: () => [], firstHost: 10 });
    fixed = await startMockSeller({ host: hostname, port: Number(port), allowPrivateWebhooks: true });
    const d = await until(bad.url, (x) => x.status === 'passing', 'the fixed agent passing');
    // Between the two sellers the agent may have been unreachable (unknown) or half there (degraded).
    expect(d.previous_status).not.toBe('passing');
    expect(typeof d.status_changed_at).toBe('string');
    const after = (await (await api(`/api/registry/changes?cursor=${before.next_cursor}`)).json()) as { changes: Array<Record<string, unknown>> };
    const mine = after.changes.filter((c) => c.agent_url === `${bad.url}/`);
    expect(mine.at(-1)).toMatchObject({ to: 'passing' });
    expect(mine[0]).toMatchObject({ from: 'failing' });
    const history = (await (await api(`/api/registry/agents/${enc(bad.url)}/compliance/history?limit=100`)).json()) as {
      runs: Array<{ status: string; state: string; failing_checks: string[]; changes_since_previous: Record<string, string[]> | null }>;
    };
    expect(history.runs.length).toBeGreaterThanOrEqual(2);
    expect(history.runs.some((r) => r.status === 'failing' && r.failing_checks.includes('idempotency.replay.flagged'))).toBe(true);
    // The history says which check flipped: the faulty check stopped failing (fixed, or changed when an unreachable run came between).
    const flipped = history.runs.flatMap((r) => [...(r.changes_since_previous?.fixed ?? []), ...(r.changes_since_previous?.changed ?? [])]);
    expect(flipped.some((l) => /^idempotency\.replay\.flagged@mcp: \w+ → pass$/.test(l))).toBe(true);
    // The full report holds the requests and responses: its owner's (the operator's) only.
    expect((await api(`/api/registry/agents/${enc(bad.url)}/compliance/report`)).status).toBe(401);
    const report = await (await api(`/api/registry/agents/${enc(bad.url)}/compliance/report`, { headers: { authorization: `Bearer ${KEY}` } })).json();
    expect(validateAgentCompliance(report).errors ?? []).toEqual([]);
  }, 90_000);

  it('renders the status badge as SVG', async () => {
    const r = await api(`/api/registry/agents/${enc(fleet.agents.length ? `${new URL(svc.url).origin}` : '')}/badge.svg`);
    expect(r.status).toBe(404);
    const list = (await (await api('/api/registry/agents?status=passing')).json()) as { agents: Array<{ agent_url: string }> };
    const badge = await api(`/api/registry/agents/${enc(list.agents[0]!.agent_url)}/badge.svg`);
    expect(badge.status).toBe(200);
    expect(badge.headers.get('content-type')).toBe('image/svg+xml');
    const svg = await badge.text();
    expect(svg).toMatch(/^<svg [^>]*role="img"/);
    expect(svg).toContain('>passing</text>');
  });

  it('refuses to probe a private address that is not allowlisted, storing the reason on the agent', async () => {
    const url = 'http://192.168.77.1:9/';
    expect((await register({ url })).status).toBe(201);
    const d = await until(url, (x) => typeof x.problem === 'string', 'the refusal recorded');
    expect(d.status).toBe('unknown');
    expect(d.problem).toMatch(/192\.168\.77\.1 is a reserved address \(private\); nothing was sent/);
  }, 30_000);

  it("keeps the database, which holds the agents' bearer tokens, readable by its owner only", () => {
    expect(statSync(join(dir, 'registry.sqlite')).mode & 0o777).toBe(0o600);
  });

  it('removes an agent with the key (then 404), and not without it', async () => {
    const url = enc('http://192.168.77.1:9/');
    expect((await api(`/api/me/agents/${url}`, { method: 'DELETE' })).status).toBe(401);
    expect((await api(`/api/me/agents/${url}`, { method: 'DELETE', headers: { authorization: `Bearer ${KEY}` } })).status).toBe(204);
    expect((await api(`/api/registry/agents/${url}/compliance`)).status).toBe(404);
    expect((await api(`/api/me/agents/${url}`, { method: 'DELETE', headers: { authorization: `Bearer ${KEY}` } })).status).toBe(404);
  });
});
