/**
 * Step kinds of the `registry` suite, run on the `rest` column (harness/core/registry-face):
 *
 * `registry_request`: one request to the registry (method, path, query, JSON body or one padded
 * to `body_bytes`, auth `key` / `none` / `wrong`) and what its answer must be: the status
 * (`2xx`, `4xx`, `401|403`, a number), a JSON object body, a JSON content type, a CORS header.
 * `{listed_agent}` in the path is the URL-encoded `agent_url` of the first agent
 * `GET /api/registry/agents` lists, skipping the throwaway agents proto-comply's checks register
 * (`https://proto-comply-<hex>.example/mcp`; none left: a coverage gap). `body_list` adds to the
 * JSON body an array member of `count` strings, each the `item` template with `{n}` replaced by
 * its index 1..count (101 distinct agent URLs without writing them out).
 *
 * What the answer's body must hold:
 * - `expect_json_members`: top-level members and what each must be (a type, `nonempty-array`,
 *   `any`, or a list of allowed values);
 * - `expect_each`: every entry of an array member judged the same way (`members`), and members
 *   no entry may have (`absent`);
 * - `expect_max_items`: an array member's largest length;
 * - `expect_object_keys`: keys (templates) an object member must have (`{member: agents, keys:
 *   [URL]}`: the bulk storyboard status answers for that agent);
 * - these four are judged only when the status is `members_on_status`, if given;
 * - `expect_json_members_by_status`: members per status (`{"200": {...}, "500": {...}}`: an
 *   operation the digest gives several answer shapes), a status it does not name judged by
 *   nothing but `expect_status`.
 * `expect_content_type` is the media type the answer must have (`image/svg+xml`), parameters
 * ignored.
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

const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'nonempty-array', 'object', 'any'] as const;
type Members = Record<string, (typeof TYPES)[number] | Array<string | number | boolean>>;
const MEMBERS = {
  type: 'object',
  additionalProperties: { oneOf: [{ enum: [...TYPES] }, { type: 'array', items: { type: ['string', 'number', 'boolean'] }, minItems: 1 }] },
};

function typeOk(v: unknown, t: (typeof TYPES)[number]): boolean {
  switch (t) {
    case 'any':
      return v !== undefined;
    case 'array':
      return Array.isArray(v);
    case 'nonempty-array':
      return Array.isArray(v) && v.length > 0;
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    case 'integer':
      return Number.isInteger(v);
    default:
      return typeof v === t;
  }
}

/** The first member of `o` that is not what `want` says, as a failure. */
function membersProblem(
  o: Record<string, unknown>,
  want: Members,
  at: string,
): { message: string; pointer: string; expected: unknown; actual: unknown } | undefined {
  for (const [name, t] of Object.entries(want)) {
    const v = o[name];
    const pointer = `${at}/${name}`;
    if (Array.isArray(t)) {
      if (!t.includes(v as string))
        return {
          message: `${pointer.slice(1)} is ${v === undefined ? 'missing' : JSON.stringify(v)}, not one of ${t.join(' | ')}`,
          pointer,
          expected: t,
          actual: v ?? null,
        };
    } else if (!typeOk(v, t))
      return {
        message: `${pointer.slice(1)} is ${v === undefined ? 'missing' : `not ${t === 'any' ? 'present' : `a${/^[aeiou]/.test(t) ? 'n' : ''} ${t}`}`}`,
        pointer,
        expected: t,
        actual: v ?? null,
      };
  }
  return undefined;
}

const LISTED = '{listed_agent}';
/** Most strings `body_list` makes. */
const MAX_BODY_LIST = 1_000;

/** The step's JSON body: `body` expanded, padded to `body_bytes`, with `body_list`'s array added. */
function bodyOf(step: StepDef, ctx: CheckContext): unknown {
  const list = step.body_list as { member: string; count: number; item: string } | undefined;
  if (step.body_bytes === undefined && list === undefined) return step.body === undefined ? undefined : ctx.expand(step.body);
  const base = { ...((ctx.expand(step.body ?? {}) as object) ?? {}) } as Record<string, unknown>;
  if (list) {
    const item = String(ctx.expand(list.item));
    base[list.member] = Array.from({ length: list.count }, (_, i) => item.split('{n}').join(String(i + 1)));
  }
  if (step.body_bytes !== undefined) base.padding = 'x'.repeat(step.body_bytes as number);
  return step.body_bytes !== undefined ? JSON.stringify(base) : base;
}

/** The throwaway agents proto-comply's checks register (https://proto-comply-<hex>.example/mcp): never the listed agent asked about. */
const THROWAWAY = /^https:\/\/proto-comply-[0-9a-f]+(?:-\d+)?\.example\/mcp$/;

/** The agent_url of the first agent the registry lists (not one of proto-comply's own test agents), or the verdict when there is none to take. */
async function listedAgent(ctx: CheckContext): Promise<string | StepVerdict> {
  const all = await listing(ctx, {});
  if (isVerdict(all))
    return { status: 'unmet', message: `no agent to ask about: ${'message' in all ? all.message : 'the listing failed'}`, blocked_by: 'registry.search.shape' };
  const urls = all.agents.map((e) => (e as Entry | null)?.agent_url).filter((u): u is string => typeof u === 'string' && u !== '');
  const url = urls.find((u) => !THROWAWAY.test(u));
  if (url !== undefined) return url;
  if (all.agents.length > 0 && urls.length === 0) return { status: 'unmet', message: 'no listed agent has an agent_url', blocked_by: 'registry.search.shape' };
  return {
    status: 'gap',
    message: `the registry lists no agent${urls.length ? " but proto-comply's own test agents" : ''}: no agent to ask about`,
    gap: 'a registry with agents',
  };
}

export const registryRequest: StepKind = {
  name: 'registry_request',
  fields: {
    method: { enum: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'] },
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
    expect_json_members: MEMBERS,
    members_on_status: { type: 'integer', minimum: 100, maximum: 599 },
    expect_json_members_by_status: { type: 'object', propertyNames: { pattern: '^[1-5][0-9][0-9]$' }, additionalProperties: MEMBERS, minProperties: 1 },
    expect_each: {
      type: 'object',
      properties: { member: { type: 'string', minLength: 1 }, members: MEMBERS, absent: { type: 'array', items: { type: 'string' }, minItems: 1 } },
      required: ['member'],
      additionalProperties: false,
    },
    expect_max_items: {
      type: 'object',
      properties: { member: { type: 'string', minLength: 1 }, max: { type: 'integer', minimum: 0 } },
      required: ['member', 'max'],
      additionalProperties: false,
    },
    expect_object_keys: {
      type: 'object',
      properties: { member: { type: 'string', minLength: 1 }, keys: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 } },
      required: ['member', 'keys'],
      additionalProperties: false,
    },
    expect_content_type: { type: 'string', pattern: '^[a-z0-9.+-]+/[a-z0-9.+-]+$' },
    body_list: {
      type: 'object',
      properties: {
        member: { type: 'string', minLength: 1 },
        count: { type: 'integer', minimum: 1, maximum: MAX_BODY_LIST },
        item: { type: 'string', minLength: 1 },
      },
      required: ['member', 'count', 'item'],
      additionalProperties: false,
    },
  },
  required: ['method', 'path'],
  async run(step, ctx) {
    const auth = (step.auth as RegistryRequest['auth']) ?? 'none';
    const blocked = precondition(ctx, auth);
    if (blocked) return { verdict: blocked };
    const body = bodyOf(step, ctx);
    let path = step.path as string;
    if (path.includes(LISTED)) {
      const agent = await listedAgent(ctx);
      if (typeof agent !== 'string') return { verdict: agent };
      path = path.split(LISTED).join(encodeURIComponent(agent));
    }
    path = String(ctx.expand(path));
    const res = await send(ctx, {
      method: step.method as RegistryRequest['method'],
      path,
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
    const wantType = step.expect_content_type as string | undefined;
    if (wantType !== undefined && type !== wantType)
      return fail(`${what}: Content-Type is ${JSON.stringify(res.headers['content-type'] ?? '')}, not ${wantType}`, {
        expected: wantType,
        actual: res.headers['content-type'] ?? null,
      });
    if (step.expect_json_object === true && !record.payload)
      return fail(`${what}: the body is not a JSON object${res.text ? `: ${res.text.slice(0, 120)}` : ' (empty)'}`, { pointer: '' });
    if (step.expect_cors === true && !res.headers['access-control-allow-origin'])
      return fail(`${what}: no Access-Control-Allow-Origin header: a browser client of this public API is refused its answer`, {
        expected: 'Access-Control-Allow-Origin',
      });
    const answer = record.payload;
    const judged = step.members_on_status === undefined || step.members_on_status === res.status;
    const byStatus = (step.expect_json_members_by_status as Record<string, Members> | undefined)?.[String(res.status)];
    const needsBody =
      byStatus !== undefined ||
      (judged &&
        (step.expect_json_members !== undefined ||
          step.expect_each !== undefined ||
          step.expect_max_items !== undefined ||
          step.expect_object_keys !== undefined));
    if (needsBody && !answer) return fail(`${what}: the body is not a JSON object${res.text ? `: ${res.text.slice(0, 120)}` : ' (empty)'}`, { pointer: '' });
    if (answer && judged && step.expect_json_members !== undefined) {
      const p = membersProblem(answer, step.expect_json_members as Members, '');
      if (p) return fail(`${what}: ${p.message}`, p);
    }
    if (answer && byStatus !== undefined) {
      const p = membersProblem(answer, byStatus, '');
      if (p) return fail(`${what} (HTTP ${res.status}): ${p.message}`, p);
    }
    if (answer && judged && step.expect_each !== undefined) {
      const e = step.expect_each as { member: string; members?: Members; absent?: string[] };
      const list = answer[e.member];
      if (!Array.isArray(list)) return fail(`${what}: ${e.member} is not an array`, { pointer: `/${e.member}`, actual: list ?? null });
      for (const [i, item] of list.entries()) {
        const at = `/${e.member}/${i}`;
        if (item === null || typeof item !== 'object' || Array.isArray(item)) return fail(`${what}: ${at.slice(1)} is not an object`, { pointer: at });
        const p = e.members ? membersProblem(item as Record<string, unknown>, e.members, at) : undefined;
        if (p) return fail(`${what}: ${p.message}`, p);
        const bad = (e.absent ?? []).filter((m) => Object.hasOwn(item, m));
        if (bad.length) return fail(`${what}: ${at.slice(1)} has ${bad.map((m) => `"${m}"`).join(', ')}, which it must not`, { pointer: `${at}/${bad[0]}` });
      }
    }
    if (answer && judged && step.expect_max_items !== undefined) {
      const m = step.expect_max_items as { member: string; max: number };
      const list = answer[m.member];
      if (!Array.isArray(list)) return fail(`${what}: ${m.member} is not an array`, { pointer: `/${m.member}`, actual: list ?? null });
      if (list.length > m.max)
        return fail(`${what}: ${m.member} has ${list.length} entries, above ${m.max}`, {
          pointer: `/${m.member}`,
          expected: `≤ ${m.max}`,
          actual: list.length,
        });
    }
    if (answer && judged && step.expect_object_keys !== undefined) {
      const k = step.expect_object_keys as { member: string; keys: string[] };
      const o = answer[k.member];
      if (o === null || typeof o !== 'object' || Array.isArray(o))
        return fail(`${what}: ${k.member} is not an object`, { pointer: `/${k.member}`, expected: 'object', actual: o ?? null });
      for (const key of k.keys.map((t) => String(ctx.expand(t))))
        if (!Object.hasOwn(o, key))
          return fail(`${what}: ${k.member} has no member ${JSON.stringify(key)}`, {
            pointer: `/${k.member}`,
            expected: key,
            actual: Object.keys(o).slice(0, 10),
          });
    }
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
