/**
 * Step kinds of the `registry` suite, run on the `rest` column (harness/core/registry-face):
 *
 * `registry_request`: one request to the registry (method, path, query, JSON body or one padded
 * to `body_bytes`, auth `key` / `none` / `wrong`) and what its answer must be: the status
 * (`2xx`, `4xx`, `401|403`, a number), a JSON object body, a JSON content type, a CORS header.
 *
 * `registry_search`: `GET /api/registry/agents`, optionally filtered by `capability` / `channel`
 * (`from_listing: true` takes the value from an agent the unfiltered list shows, which must then
 * be in the filtered one), and judges every entry's shape (spec 2.4) and that it matches the filter.
 * `expect_agent_url` (a template: the URL a registration step of the check used) must be found.
 */
import type { StepDef } from '../../../harness/core/engine/model.js';
import type { CheckContext, StepKind, StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import { RegistryFaceTransport, type RegistryRequest } from '../../../harness/core/registry-face/transport.js';
import type { HttpResult } from '../../../harness/core/transport/http-client.js';
import { parseBoundedJson } from '../../../harness/core/transport/bounded-json.js';

export const NO_REGISTRY = 'no registry under test: give one with --registry URL';
const NO_KEY = 'needs an organization API key of the registry (--api-key)';

function face(ctx: CheckContext): RegistryFaceTransport | undefined {
  return ctx.transport instanceof RegistryFaceTransport && ctx.transport.target.url ? ctx.transport : undefined;
}

/** The verdict when a request cannot be made, or undefined to go on. */
function precondition(ctx: CheckContext, auth: string | undefined): StepVerdict | undefined {
  const f = face(ctx);
  if (!f) return { status: 'not_applicable', message: NO_REGISTRY };
  if (auth === 'key' && !f.target.apiKey) return { status: 'gap', message: NO_KEY, gap: 'registry API key (--api-key)' };
  return undefined;
}

async function send(ctx: CheckContext, r: Omit<RegistryRequest, 'signal'>): Promise<HttpResult> {
  const res = await face(ctx)!.request({ ...r, signal: ctx.signal });
  ctx.exchanges.push(res.exchange);
  return res;
}

function statusMatches(status: number, expected: unknown): boolean {
  const one = (e: unknown): boolean => {
    if (typeof e === 'number') return status === e;
    if (typeof e === 'string' && /^[1-5]xx$/.test(e)) return Math.floor(status / 100) === Number(e[0]);
    return false;
  };
  return Array.isArray(expected) ? expected.some(one) : one(expected);
}

const jsonObject = (text: string): Record<string, unknown> | undefined => {
  const p = parseBoundedJson(text);
  return p.ok && p.value !== null && typeof p.value === 'object' && !Array.isArray(p.value) ? (p.value as Record<string, unknown>) : undefined;
};

const STATUS = {
  oneOf: [
    { type: 'integer', minimum: 100, maximum: 599 },
    { type: 'string', pattern: '^[1-5]xx$' },
  ],
};

export const registryRequest: StepKind = {
  name: 'registry_request',
  fields: {
    method: { enum: ['GET', 'POST', 'DELETE', 'OPTIONS'] },
    path: { type: 'string', pattern: '^/' },
    query: { type: 'object', additionalProperties: { type: 'string' } },
    body: {},
    body_bytes: { type: 'integer', minimum: 1, maximum: 16_777_216 },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    auth: { enum: ['key', 'none', 'wrong'] },
    expect_status: { oneOf: [STATUS, { type: 'array', items: STATUS, minItems: 1 }] },
    expect_json_object: { type: 'boolean' },
    expect_json_type: { type: 'boolean' },
    expect_cors: { type: 'boolean' },
  },
  required: ['method', 'path'],
  async run(step, ctx) {
    const auth = (step.auth as RegistryRequest['auth']) ?? 'none';
    const blocked = precondition(ctx, auth);
    if (blocked) return { verdict: blocked };
    const body =
      step.body_bytes !== undefined
        ? JSON.stringify({ ...((ctx.expand(step.body ?? {}) as object) ?? {}), padding: 'x'.repeat(step.body_bytes as number) })
        : step.body === undefined
          ? undefined
          : ctx.expand(step.body);
    const res = await send(ctx, {
      method: step.method as RegistryRequest['method'],
      path: step.path as string,
      query: ctx.expand(step.query ?? {}) as Record<string, string>,
      body,
      headers: step.headers as Record<string, string> | undefined,
      auth,
      purpose: `registry ${step.method} ${step.path}`,
    });
    if (!res.ok) return { verdict: { status: 'failed', message: `${step.method} ${step.path}: no HTTP answer (${res.failure.kind}: ${res.failure.message})` } };
    const record = { http_status: res.status, payload: jsonObject(res.text), ok: true, status: 'completed' as const, is_error: false };
    const fail = (message: string, extra: Partial<Extract<StepVerdict, { status: 'failed' }>> = {}) => ({
      verdict: { status: 'failed' as const, message, ...extra },
      record,
    });
    const what = `${step.method} ${step.path}${step.auth ? ` (auth: ${auth})` : ''}`;
    if (step.expect_status !== undefined && !statusMatches(res.status, step.expect_status))
      return fail(`${what} answered HTTP ${res.status}`, { expected: step.expect_status, actual: res.status });
    const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (step.expect_json_type === true && type !== 'application/json' && !type.endsWith('+json'))
      return fail(`${what}: Content-Type is ${JSON.stringify(res.headers['content-type'] ?? '')}, not application/json`, {
        expected: 'application/json',
        actual: res.headers['content-type'] ?? null,
      });
    if (step.expect_json_object === true && !record.payload)
      return fail(`${what}: the body is not a JSON object${res.text ? `: ${res.text.slice(0, 120)}` : ' (empty)'}`, { pointer: '' });
    if (step.expect_cors === true && !res.headers['access-control-allow-origin'])
      return fail(`${what}: no Access-Control-Allow-Origin header: a browser client of this public API is refused its answer`, {
        expected: 'Access-Control-Allow-Origin',
      });
    return { verdict: { status: 'ok' }, record };
  },
};

interface Entry {
  agent_url?: unknown;
  domain?: unknown;
  capabilities?: unknown;
  channels?: unknown;
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Spec 2.4: domain string, agent_url string, capabilities[] and channels[] of strings. */
function shapeProblem(e: unknown, i: number): { pointer: string; message: string } | undefined {
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return { pointer: `/agents/${i}`, message: 'an entry is not an object' };
  const a = e as Entry;
  for (const f of ['domain', 'agent_url'] as const) if (typeof a[f] !== 'string') return { pointer: `/agents/${i}/${f}`, message: `${f} is not a string` };
  for (const f of ['capabilities', 'channels'] as const)
    if (!strings(a[f])) return { pointer: `/agents/${i}/${f}`, message: `${f} is not an array of strings` };
  return undefined;
}

async function listing(ctx: CheckContext, query: Record<string, string>): Promise<{ agents: unknown[] } | StepVerdict> {
  const res = await send(ctx, { method: 'GET', path: '/api/registry/agents', query, auth: 'none', purpose: 'registry agent search' });
  const q = new URLSearchParams(query).toString();
  if (!res.ok) return { status: 'failed', message: `agent search${q ? ` ?${q}` : ''}: no HTTP answer (${res.failure.message})` };
  if (res.status !== 200)
    return { status: 'failed', message: `agent search${q ? ` ?${q}` : ''} answered HTTP ${res.status}`, expected: 200, actual: res.status };
  const agents = jsonObject(res.text)?.agents;
  if (!Array.isArray(agents))
    return { status: 'failed', message: `agent search${q ? ` ?${q}` : ''}: the body is not an object with agents[]`, pointer: '/agents' };
  return { agents };
}

const isVerdict = (v: unknown): v is StepVerdict => typeof (v as StepVerdict).status === 'string';

export const registrySearch: StepKind = {
  name: 'registry_search',
  fields: {
    filter: { enum: ['capability', 'channel'] },
    expect_shape: { type: 'boolean' },
    expect_agent_url: { type: 'string', minLength: 1 },
    filter_value: { type: 'string' },
    /** false: only look for `expect_agent_url` in the filtered list (whether the filter is applied is the filter checks' business). */
    expect_filtered: { type: 'boolean' },
  },
  async run(step: StepDef, ctx) {
    const blocked = precondition(ctx, undefined);
    if (blocked) return { verdict: blocked };
    const all = await listing(ctx, {});
    if (isVerdict(all)) return { verdict: all };
    if (step.expect_shape === true) {
      if (all.agents.length === 0)
        return { verdict: { status: 'gap', message: 'the registry lists no agent: no entry to judge', gap: 'a registry with agents' } };
      for (const [i, e] of all.agents.entries()) {
        const p = shapeProblem(e, i);
        if (p) return { verdict: { status: 'failed', message: `agent search result: ${p.message} (spec 2.4)`, pointer: p.pointer, actual: e } };
      }
    }
    const filter = step.filter as 'capability' | 'channel' | undefined;
    const wanted = step.expect_agent_url === undefined ? undefined : String(ctx.expand(step.expect_agent_url));
    if (!filter) return { verdict: { status: 'ok' } };
    const field = filter === 'capability' ? 'capabilities' : 'channels';
    let value = step.filter_value === undefined ? undefined : String(ctx.expand(step.filter_value));
    let known: string | undefined = wanted;
    if (value === undefined) {
      const usable = (e: unknown): e is Entry => typeof (e as Entry | null)?.agent_url === 'string' && strings((e as Entry)[field]);
      const sample = all.agents.find((e): e is Entry => usable(e) && (e[field] as string[]).length > 0);
      if (!sample && !all.agents.every(usable))
        return {
          verdict: { status: 'unmet', message: `the search results lack agent_url or ${field}[]: nothing to filter by`, blocked_by: 'registry.search.shape' },
        };
      if (!sample)
        return { verdict: { status: 'gap', message: `no listed agent declares a ${filter}: nothing to filter by`, gap: `a registry agent with a ${filter}` } };
      value = (sample[field] as string[])[0]!;
      known = sample.agent_url as string;
    }
    const filtered = await listing(ctx, { [filter]: value });
    if (isVerdict(filtered)) return { verdict: filtered };
    for (const [i, e] of step.expect_filtered === false ? [] : filtered.agents.entries()) {
      const list = (e as Entry | null)?.[field];
      if (!strings(list) || !list.includes(value))
        return {
          verdict: {
            status: 'failed',
            message: `?${filter}=${value} returned ${String((e as Entry | null)?.agent_url ?? `entry ${i}`)}, which does not declare it: the filter is not applied`,
            pointer: `/agents/${i}/${field}`,
            expected: value,
            actual: list ?? null,
          },
        };
    }
    if (known !== undefined && !filtered.agents.some((e) => (e as Entry | null)?.agent_url === known))
      return {
        verdict: {
          status: 'failed',
          message: `?${filter}=${value} does not return ${known}, which declares it${wanted ? ' (registered by this check)' : ' (in the unfiltered list)'}`,
          expected: known,
        },
      };
    return { verdict: { status: 'ok' } };
  },
};
