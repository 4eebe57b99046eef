/**
 * The registry API's OpenAPI description (openapi/): a valid OpenAPI 3.1.0 document (checked by
 * @seriousme/openapi-schema-validator, not by us), one operation for each route of the route table
 * and none other, every schema in it valid JSON Schema 2020-12, and real replies of the running
 * service (SQLite, mock sellers probed by the scheduler) valid against the schema the document
 * gives for their status, so a description that lies fails here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockFleet, type RunningMockFleet } from '../../mocks/fleet/index.js';
import { HARNESS_VERSION } from '../core/version.js';
import { registryRoutes } from './api.js';
import { memberKeyOf } from './http/callers.js';
import { DEFAULT_REFRESH_LIMITS } from './routes/context.js';
import type { Route } from './http/router.js';
import { coverageOf, describedOperations, openApiDocument, operationKey } from './openapi/index.js';
import { startRegistryService, type RunningRegistryService } from './service.js';
import { SqliteRegistryStore } from './sqlite-store.js';
import { type Json, untilDetail } from './testing/api-client.js';
import type { RegistryStore } from './types.js';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

type Doc = { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> }; info: Json };

/** The route table as the service builds it (building it touches no store). */
const routes = registryRoutes({
  store: {} as RegistryStore,
  now: Date.now,
  intervalMs: 3_600_000,
  refreshLimits: DEFAULT_REFRESH_LIMITS,
  publicUrl: () => 'http://registry.invalid',
  badgePolicy: { graceMs: 1 },
});
const doc = openApiDocument(routes) as unknown as Doc;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const documented = (d: Doc): string[] =>
  Object.entries(d.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => METHODS.includes(m))
      .map((m) => operationKey({ method: m.toUpperCase(), path })),
  );
const pointer = (...parts: string[]): string => parts.map((p) => `/${p.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** The document in ajv (draft 2020-12, strict) under `openapi.json`, its OpenAPI members known as non-schema keywords. */
function ajvOf(d: Doc): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
  addFormats(ajv);
  for (const keyword of ['openapi', 'info', 'paths', 'components', 'tags', 'security', 'servers', 'webhooks', 'jsonSchemaDialect']) ajv.addKeyword({ keyword });
  ajv.addSchema(d, 'openapi.json');
  return ajv;
}

describe('the OpenAPI description', () => {
  it('is a valid OpenAPI 3.1.0 document whose $refs all resolve (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as Json);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
    // Interface spec 9: API version 1.0.0; the harness's own version rides along.
    expect(doc).toMatchObject({ openapi: '3.1.0', info: { version: '1.0.0', 'x-proto-comply-version': HARNESS_VERSION } });
    // The validator is not a rubber stamp: a response without its description, or a dangling $ref, is refused.
    const broken = structuredClone(doc);
    delete (broken.paths['/api/registry/stats']!.get!.responses as Record<string, Json>)['200']!.description;
    expect((await new Validator().validate(broken as unknown as Json)).valid).toBe(false);
    const dangling = structuredClone(doc);
    dangling.components.schemas.AgentList = { $ref: '#/components/schemas/NoSuchSchema' };
    const v = new Validator();
    await v.validate(dangling as unknown as Json);
    expect(() => v.resolveRefs()).toThrow();
  });

  it('describes every route of registryRoutes() exactly once, and nothing that is not a route', () => {
    expect(coverageOf(routes), 'add an OperationDoc under harness/compliance-service/openapi/ for each route in `undescribed`').toEqual({
      undescribed: [],
      unrouted: [],
      twice: [],
    });
    const routeKeys = routes.map(operationKey);
    expect(new Set(routeKeys).size, 'the route table lists a method and path twice').toBe(routeKeys.length);
    expect([...documented(doc)].sort()).toEqual([...routeKeys].sort());
  });

  it('names a route added without a description, and a description whose route is gone', () => {
    const extra: Route = { method: 'GET', path: '/api/registry/agents/{encodedUrl}/undescribed', access: 'public', summary: 'x', handle: () => {} };
    const withExtra = [...routes, extra];
    expect(coverageOf(withExtra).undescribed).toEqual(['GET /api/registry/agents/{encodedUrl}/undescribed']);
    expect(documented(openApiDocument(withExtra) as unknown as Doc)).not.toContain('GET /api/registry/agents/{encodedUrl}/undescribed');
    const withoutStats = routes.filter((r) => r.path !== '/api/registry/stats');
    expect(coverageOf(withoutStats)).toMatchObject({ undescribed: [], unrouted: ['GET /api/registry/stats'] });
    const twice = [...describedOperations(), describedOperations()[0]!];
    expect(coverageOf(routes, twice).twice).toEqual([operationKey(describedOperations()[0]!)]);
  });

  it("takes each operation's summary and security from its route; operationIds are unique; path parameters are declared", () => {
    const ids = new Set<string>();
    for (const route of routes) {
      const op = doc.paths[route.path]![route.method.toLowerCase()]!;
      expect(op.summary, operationKey(route)).toBe(route.summary);
      expect(op.security, operationKey(route)).toEqual(route.access === 'public' ? [] : [{ bearerAuth: [] }, { apiKeyAuth: [] }]);
      if (route.access !== 'public') expect(Object.keys(op.responses as Json), operationKey(route)).toContain('401');
      expect(ids.has(op.operationId as string), `operationId ${op.operationId} twice`).toBe(false);
      ids.add(op.operationId as string);
      const names = [...route.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]);
      const declared = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'path').map((p) => p.name);
      expect(declared.sort(), operationKey(route)).toEqual(names.sort());
    }
    expect(doc.paths['/api/registry/agents/{encodedUrl}/compliance']!.get!.operationId).toBe('getAgentCompliance');
  });

  it('gives only schemas that compile as JSON Schema 2020-12 (ajv, strict)', () => {
    const ajv = ajvOf(doc);
    const at: string[] = Object.keys(doc.components.schemas).map((n) => pointer('components', 'schemas', n));
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        for (const [status, r] of Object.entries(op.responses as Record<string, Json>))
          for (const media of Object.keys((r.content ?? {}) as Json)) at.push(pointer('paths', path, method, 'responses', status, 'content', media, 'schema'));
        for (const media of Object.keys(((op.requestBody as Json | undefined)?.content ?? {}) as Json))
          at.push(pointer('paths', path, method, 'requestBody', 'content', media, 'schema'));
        ((op.parameters ?? []) as Json[]).forEach((_, i) => {
          at.push(pointer('paths', path, method, 'parameters', String(i), 'schema'));
        });
      }
    for (const p of at) expect(() => ajv.compile({ $ref: `openapi.json#${p}` }), p).not.toThrow();
    expect(at.length).toBeGreaterThan(40);
  });
});

const OPERATOR = 'openapi-operator-key-0123';
const ALICE = 'openapi-alice-key-0123456';
const BOB = 'openapi-bob-key-01234567890';

describe('replies of the running service (SQLite) match the document', () => {
  let fleet: RunningMockFleet;
  let dir: string;
  let store: RegistryStore;
  let svc: RunningRegistryService;
  const ajv = ajvOf(doc);
  let good: string;
  let bad: string;

  /**
   * Calls `method template` (`{encodedUrl}` filled in with `agent`, other `{name}`s from `params`) and checks the reply against the
   * document: its status is documented for that operation, its media type is the documented one,
   * and a JSON body is valid against the schema given for that status.
   */
  const call = async (
    method: string,
    template: string,
    o: { agent?: string; params?: Record<string, string>; query?: string; key?: string; body?: unknown } = {},
  ) => {
    const values: Record<string, string> = { encodedUrl: o.agent ?? '', ...o.params };
    const path = template.replace(/\{([A-Za-z]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
    const r = await fetch(`${svc.url}${path}${o.query ? `?${o.query}` : ''}`, {
      method,
      headers: { ...(o.key ? { authorization: `Bearer ${o.key}` } : {}), ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
    });
    const text = await r.text();
    const what = `${method} ${template} → ${r.status}`;
    const op = doc.paths[template]?.[method.toLowerCase()];
    expect(op, `${method} ${template} is not in the document`).toBeDefined();
    const response = (op!.responses as Record<string, Json>)[String(r.status)];
    expect(response, `${what} is not documented (body ${text.slice(0, 300)})`).toBeDefined();
    const content = (response!.content ?? undefined) as Record<string, Json> | undefined;
    let body: unknown;
    if (!content) expect(text, `${what}: documented without a body`).toBe('');
    else {
      const media = (r.headers.get('content-type') ?? '').split(';')[0]!.trim();
      expect(Object.keys(content), `${what}: content-type ${media}`).toContain(media);
      if (media === 'application/json') {
        body = JSON.parse(text);
        const validate = ajv.compile({
          $ref: `openapi.json#${pointer('paths', template, method.toLowerCase(), 'responses', String(r.status), 'content', media, 'schema')}`,
        });
        const ok = validate(body);
        expect(ok ? [] : validate.errors, `${what}: the body does not match the documented schema: ${text.slice(0, 500)}`).toEqual([]);
      }
    }
    return { status: r.status, headers: r.headers, body: body as Json };
  };
  const detail = '/api/registry/agents/{encodedUrl}/compliance';

  const until = (url: string, test: (d: Json) => boolean, what: string) =>
    untilDetail(async () => (await call('GET', detail, { agent: url, key: OPERATOR })).body, test, what);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'registry-openapi-'));
    fleet = await startMockFleet({ count: 2, faultsFor: (i) => (i === 1 ? ['replay-not-flagged'] : []) });
    store = new SqliteRegistryStore(join(dir, 'registry.sqlite'));
    svc = await startRegistryService({
      store,
      apiKeys: [OPERATOR],
      memberKeys: [memberKeyOf(`alice=${ALICE}`), memberKeyOf(`bob=${BOB}`)],
      workers: 2,
      perHost: 1,
      intervalMs: 3_600_000,
      settings: { budgetS: 60, denyPrivate: true, allowHosts: ['127.0.0.0/8'], suites: ['idempotency'] },
    });
    good = (await call('POST', '/api/me/agents', { key: ALICE, body: { url: fleet.agents[0]!.url } })).body.agent_url as string;
    bad = (await call('POST', '/api/me/agents', { key: ALICE, body: { url: fleet.agents[1]!.url } })).body.agent_url as string;
    await until(good, (d) => d.status === 'passing', 'the clean agent passing');
    await until(bad, (d) => d.status === 'failing', 'the faulty agent failing');
  }, 120_000);
  afterAll(async () => {
    await svc?.close();
    await store?.close();
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the document itself at /openapi.json', async () => {
    const r = await call('GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('compliance detail (public and owner views), history and the fleet reads', async () => {
    const pub = await call('GET', detail, { agent: bad });
    expect(pub.status).toBe(200);
    const owner = await call('GET', detail, { agent: bad, key: ALICE });
    expect(owner.body.verdict_source).toBe('heartbeat');
    expect((owner.body.storyboard_statuses as Json[]).some((s) => s.first_failed_step_id)).toBe(true);
    expect((await call('GET', `${detail}/history`, { agent: bad })).body.count).toBeGreaterThan(0);
    expect((await call('GET', `${detail}/history`, { agent: good, query: 'limit=1' })).status).toBe(200);
    expect((await call('GET', `${detail}/history`, { agent: good, query: 'limit=x' })).status).toBe(400);
    expect((await call('GET', '/api/registry/stats')).body.agents).toBe(2);
    expect((await call('GET', '/api/registry/agents', { query: 'status=failing' })).body.count).toBe(1);
    expect(((await call('GET', '/api/registry/changes')).body.changes as Json[]).length).toBeGreaterThan(0);
  });

  it('diagnostics, the full report and storyboard statuses', async () => {
    const d = await call('GET', `${detail}/diagnostics`, { agent: bad, key: ALICE });
    expect(d.status).toBe(200);
    expect(d.body.count).toBeGreaterThan(0);
    expect((await call('GET', `${detail}/diagnostics`, { agent: bad, key: ALICE, query: 'run_id=999999' })).status).toBe(404);
    expect((await call('GET', `${detail}/report`, { agent: bad, key: OPERATOR })).status).toBe(200);
    expect((await call('GET', '/api/registry/agents/{encodedUrl}/storyboard-status', { agent: bad, key: ALICE })).body.total_count).toBeGreaterThan(0);
    const bulk = await call('POST', '/api/registry/agents/storyboard-status', { key: BOB, body: { agent_urls: [bad, 'https://nobody.example/mcp'] } });
    expect(bulk.body.invalid_urls).toEqual(['https://nobody.example/mcp']);
    expect((await call('GET', '/api/registry/agents/{encodedUrl}/badge.svg', { agent: good })).status).toBe(200);
  });

  it('verification, role badges and embeds, and the dashboard', async () => {
    const base = '/api/registry/agents/{encodedUrl}';
    expect((await call('GET', `${base}/verification`, { agent: good })).body.verified).toBe(true);
    expect((await call('GET', `${base}/verification`, { agent: bad })).body.verified).toBe(false);
    expect((await call('GET', `${base}/badge/{role}.svg`, { agent: good, params: { role: 'media-buy' } })).status).toBe(200);
    expect((await call('GET', `${base}/badge/{role}.svg`, { agent: good, params: { role: 'pirate' } })).status).toBe(400);
    expect((await call('GET', `${base}/badge/{role}/{version}.svg`, { agent: good, params: { role: 'media-buy', version: 'x' } })).status).toBe(400);
    expect((await call('GET', `${base}/badge/{role}/{version}.svg`, { agent: good, params: { role: 'media-buy', version: '3.1' } })).status).toBe(200);
    expect((await call('GET', `${base}/badge/{role}/embed`, { agent: good, params: { role: 'media-buy' } })).body.verified).toBe(true);
    expect((await call('GET', `${base}/badge/{role}/{version}/embed`, { agent: good, params: { role: 'creative', version: '3.0' } })).body.verified).toBe(
      false,
    );
    for (const path of ['/', '/dashboard.css', '/dashboard.js']) expect((await call('GET', path)).status).toBe(200);
    expect((await call('GET', '/agents/{encodedUrl}', { agent: bad })).status).toBe(200);
  });

  it('monitoring settings and the owner writes', async () => {
    const base = '/api/registry/agents/{encodedUrl}';
    expect((await call('GET', `${base}/monitoring/settings`, { agent: good, key: ALICE })).status).toBe(200);
    expect((await call('PUT', `${base}/monitoring/interval`, { agent: good, key: ALICE, body: { interval_hours: 12 } })).status).toBe(200);
    expect((await call('PUT', `${base}/monitoring/interval`, { agent: good, key: ALICE, body: { interval_hours: 5 } })).status).toBe(400);
    expect((await call('PUT', `${base}/monitoring/pause`, { agent: bad, key: ALICE, body: { paused: true } })).status).toBe(200);
    expect((await call('POST', `${base}/monitoring/requeue`, { agent: bad, key: ALICE })).status).toBe(409);
    expect((await call('PUT', `${base}/monitoring/pause`, { agent: bad, key: ALICE, body: { paused: false } })).status).toBe(200);
    expect((await call('PUT', `${base}/lifecycle`, { agent: good, key: ALICE, body: { lifecycle_stage: 'testing' } })).status).toBe(200);
    // A third agent, opted out: the minimal detail and its storyboard statuses; then removed.
    const third = (await call('POST', '/api/me/agents', { key: OPERATOR, body: { url: 'http://127.0.0.1:9/openapi-third', owner: 'bob' } })).body
      .agent_url as string;
    expect((await call('POST', '/api/me/agents', { key: OPERATOR, body: { url: third } })).status).toBe(409);
    expect((await call('PUT', `${base}/compliance/opt-out`, { agent: third, key: BOB, body: { opt_out: true } })).body.compliance_opt_out).toBe(true);
    expect((await call('GET', detail, { agent: third })).body.status).toBe('opted_out');
    expect((await call('GET', `${base}/storyboard-status`, { agent: third, key: BOB })).body.status).toBe('opted_out');
    expect((await call('POST', '/api/registry/agents/storyboard-status', { key: BOB, body: { agent_urls: [third, good] } })).status).toBe(200);
    expect((await call('DELETE', '/api/me/agents/{encodedUrl}', { agent: third, key: BOB })).status).toBe(204);
  });

  it('the errors: 404, 401, 403 (members_only) and 429 (retry_after) from refresh', async () => {
    expect((await call('GET', detail, { agent: 'https://nobody.example/mcp' })).status).toBe(404);
    expect((await call('GET', '/api/registry/agents/{encodedUrl}/monitoring/settings', { agent: good })).status).toBe(401);
    expect((await call('GET', '/api/registry/agents/{encodedUrl}/monitoring/settings', { agent: good, key: 'not-a-key-of-this-registry' })).status).toBe(401);
    expect((await call('GET', '/api/registry/agents/{encodedUrl}/monitoring/settings', { agent: good, key: BOB })).status).toBe(403);
    expect((await call('GET', '/api/registry/agents/{encodedUrl}/storyboard-status', { agent: good })).body).toMatchObject({ members_only: true });
    expect((await call('POST', '/api/me/agents', { body: { url: 'https://x.example/mcp' } })).status).toBe(401);
    const refresh = '/api/registry/agents/{encodedUrl}/refresh';
    // The owner writes above may have made it due: a refresh while the scheduler probes it is a 409.
    await until(good, (d) => d.probing === false, 'the scheduled probe finishing');
    const first = await call('POST', refresh, { agent: good, key: ALICE });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ online: true, compliance: { ran: true } });
    const again = await call('POST', refresh, { agent: good, key: ALICE });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBe(again.body.retry_after);
  }, 60_000);
});
