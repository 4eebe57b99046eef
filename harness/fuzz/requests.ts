/**
 * The fuzzed tasks: each one's request schema (fixtures/schemas/<task>-request.json), the
 * members bound to the run's real state (the account, the product and pricing option, the media
 * buy), and the idempotency keys, materialised fresh for every call from the run seed, the run
 * nonce and a counter, so a long-lived seller fuzzed twice never sees a key again.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { loadSchemaDocuments } from '../core/schemas/loader.js';
import type { FuzzContext } from './property.js';
import { validArbitrary, type Bindings, type Schema } from './schema-arbitrary.js';
import { nearValidArbitrary, type NearValid, type OpenDefect, statedSites } from './defects.js';
import { DEFAULT_BRIEF } from '../core/fixtures/fixtures.js';
import { protocolIds } from '../core/token.js';

/** The fuzzed tasks, by the name of their request schema; `capabilities` is the token's capabilities task (wireTask). */
export const FUZZ_TASKS = ['capabilities', 'get_products', 'create_media_buy', 'update_media_buy', 'get_media_buys'] as const;

/**
 * The other mutating tasks of interface spec 4.3 (each takes an idempotency_key): their request
 * schemas are written from the spec's table and records (2.6), which name members and a few types
 * but not the values a seller must take (a feed URL's scheme, a known format, a segment id), so only
 * their malformed requests are judged (fuzz.errors.near-valid-refused), never whether a valid one is
 * accepted. A task the agent does not list is not fuzzed (reported not applicable, as for `run`).
 */
export const MUTATING_RECORD_TASKS = [
  'sync_accounts',
  'sync_creatives',
  'sync_audiences',
  'sync_catalogs',
  'build_creative',
  'activate_signal',
  'log_event',
  'provide_performance_feedback',
] as const;

/** The task name on the wire: `capabilities` is `get_<token>_capabilities`. */
export function wireTask(task: string, token: string): string {
  return task === 'capabilities' ? protocolIds(token).capabilitiesTask : task;
}

/** Valid idempotency keys are generated as shapes and materialised per call (never reused). */
const KEY_MARK = '\u0000fuzz-key:';
const KEY_SHAPES = ['uuid', 'min', 'max'] as const;

let schemaCache: Map<string, Schema> | undefined;

/** A schema of fixtures/schemas by file name (`get_products-request`, `push-notification-config`). */
export function schemaNamed(name: string): Schema {
  schemaCache ??= new Map(loadSchemaDocuments('proto').map((d) => [d.name, d.schema]));
  const s = schemaCache.get(name);
  if (!s) throw new Error(`no schema fixtures/schemas/${name}.json`);
  return s;
}

export function requestSchema(task: string): Schema {
  return schemaNamed(`${task}-request`);
}

/** Fuzzed tasks that neither update nor read media buys: a run fuzzing only these needs no media buy of its own (run.ts). */
export const BUY_FREE_TASKS: ReadonlySet<string> = new Set([
  'capabilities',
  'get_products',
  ...MUTATING_RECORD_TASKS.filter((t) => t !== 'provide_performance_feedback'),
]);

/** What a task needs from the run before it can be fuzzed; undefined when it has it. */
export function missingState(task: string, ctx: FuzzContext): string | undefined {
  if (task === 'create_media_buy' && !ctx.product) return 'no product and pricing option the seller offers (get_products gave none usable)';
  if (task === 'update_media_buy' && !ctx.mediaBuy) return 'no media buy of the run to update (create_media_buy did not create one)';
  if (task === 'provide_performance_feedback' && !ctx.mediaBuy) return 'no media buy of the run to give feedback on (create_media_buy did not create one)';
  return undefined;
}

/** A refinement's ask: natural language, never blank (built once: grapheme strings cost tables to build). */
const ASK = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).filter((t) => t.trim().length > 0);
const NAME = fc.string({ minLength: 1, maxLength: 40 }).filter((t) => t.trim().length > 0);
const KEY = fc.constantFrom(...KEY_SHAPES).map((shape) => `${KEY_MARK}${shape}`);

export function taskBindings(task: string, ctx: FuzzContext): Bindings {
  const b: Bindings = {
    '/account': fc.constant(ctx.account),
    '/idempotency_key': KEY,
  };
  if (ctx.brand) b['/brand'] = fc.constant(ctx.brand);
  // Spec 4.3 names refine actions by example only (`more_like_this`): the vocabulary is the seller's, so the example is sent.
  if (task === 'get_products') {
    b['/refine/*/action'] = fc.constant('more_like_this');
    // An `ask` is natural language (spec 4.3): whether an empty one means anything the spec leaves open.
    b['/refine/*/ask'] = ASK;
  }
  if (task === 'create_media_buy' && ctx.product) {
    b['/packages/*/product_id'] = fc.constant(ctx.product.product_id);
    b['/packages/*/pricing_option_id'] = fc.constant(ctx.product.pricing_option_id);
    const min = ctx.product.min_budget ?? 0;
    b['/packages/*/budget'] = fc.integer({ min: Math.max(1, Math.ceil(min)), max: Math.max(10_000, Math.ceil(min) * 10) });
  }
  // Members whose values the spec gives by example only (2.6, 4.3): the examples are sent, so a
  // defect elsewhere is not hidden behind a value the seller's vocabulary lacks.
  if (task === 'log_event') {
    b['/events/*/event_type'] = fc.constantFrom('purchase', 'lead', 'sign-up');
    b['/events/*/action_source'] = fc.constant('website');
    b['/events/*/custom_data/currency'] = fc.constant(ctx.product?.currency ?? 'USD');
  }
  if (task === 'activate_signal') b['/destinations/*/type'] = fc.constant('platform');
  if (task === 'sync_audiences') {
    b['/audiences/*/audience_type'] = fc.constant('suppression');
    // Always named (2.6 lists the name with the id): whether a nameless audience is taken the spec leaves open.
    b['/audiences/*/name'] = NAME;
  }
  if (task === 'sync_catalogs') {
    b['/catalogs/*/type'] = fc.constant('product');
    b['/catalogs/*/update_frequency'] = fc.constant('daily');
  }
  if (task === 'sync_accounts') b['/accounts/*/billing'] = fc.constant('operator');
  // An index (spec 4.3: a number); what range a seller takes the spec leaves open, so the values stay near 1.
  if (task === 'provide_performance_feedback') b['/performance_index'] = fc.double({ min: 0, max: 2, noNaN: true }).map((n) => Math.round(n * 1000) / 1000);
  if ((task === 'update_media_buy' || task === 'provide_performance_feedback') && ctx.mediaBuy) b['/media_buy_id'] = fc.constant(ctx.mediaBuy.media_buy_id);
  return b;
}

/** Valid requests of a task: its schema, bound to the run's state, made consistent. */
export function validRequests(task: string, ctx: FuzzContext): fc.Arbitrary<Record<string, unknown>> {
  return validArbitrary(requestSchema(task), taskBindings(task, ctx)).map((r) => consistent(task, r as Record<string, unknown>, ctx));
}

/**
 * Defects the schema can express but whose refusal the spec leaves open, so they are never
 * near-valid cases: a malformed `context` (spec 4.3 says the seller echoes it, not that it refuses
 * a malformed one); a `$schema` that is not a string (spec 4.3, 9: a request may carry one, with no
 * word on refusing another); the syntax of a host name (spec 4.3 names a `domain`, not the syntax a seller
 * must refuse); a budget of zero or less (spec 4.3 says a number); a create without packages (the
 * released 3.0 and 3.1 schemas leave packages optional, for proposal mode); and the key format on
 * reads (digest 3.1: reads may omit the key; the format binds the mutating requests that require
 * it, and refusing low-entropy keys is a SHOULD).
 */
const OPEN_DEFECTS: Record<string, readonly OpenDefect[]> = {
  '*': [{ pointer: '/context' }, { pointer: '/$schema' }, { pointer: '*', kinds: ['malformed-host'] }],
  create_media_buy: [
    { pointer: '/packages/0/budget', kinds: ['out-of-range'] },
    { pointer: '/packages', kinds: ['missing-required'] },
  ],
  get_products: [{ pointer: '/idempotency_key' }],
  get_media_buys: [{ pointer: '/idempotency_key' }],
};

function openDefects(task: string): OpenDefect[] {
  return [...OPEN_DEFECTS['*'], ...(OPEN_DEFECTS[task] ?? [])];
}

/**
 * The tasks whose malformed requests the spec requires refused: the mutating ones (their schema
 * requires idempotency_key). Digest 3.2 rule 1 (validate the request before the cache; a missing or
 * malformed key is INVALID_REQUEST) binds them; for reads the spec names the code of bad input
 * (interface spec 7) but no rule to refuse it, so a read that answers a malformed request is not
 * judged. Each with at least one defect whose refusal is required.
 */
export const NEAR_VALID_TASKS = [...FUZZ_TASKS, ...MUTATING_RECORD_TASKS].filter(
  (t) => ((requestSchema(t).required as string[] | undefined) ?? []).includes('idempotency_key') && statedSites(requestSchema(t), openDefects(t)).length > 0,
);

/** Near-valid requests of a task: a valid one (validRequests) with one defect the schema states. */
export function nearValidRequests(task: string, ctx: FuzzContext): fc.Arbitrary<NearValid> {
  return nearValidArbitrary(requestSchema(task), taskBindings(task, ctx), (r) => consistent(task, r, ctx), openDefects(task));
}

/** An update must change something the state allows: pause an active buy, resume a paused one (digest 4.2). Set per call. */
export function withStateChange(task: string, request: Record<string, unknown>, ctx: FuzzContext): Record<string, unknown> {
  return task === 'update_media_buy' ? { ...request, paused: !(ctx.mediaBuy?.paused ?? false) } : request;
}

/**
 * What the schema cannot say: a request names its buying_mode, a brief-mode request has a brief and a refine-mode one a
 * refinement (spec 4.3), a product-scope refinement names a product (spec 4.3), a flight ends
 * after it starts.
 */
function consistent(task: string, request: Record<string, unknown>, ctx: FuzzContext): Record<string, unknown> {
  if (task === 'get_products') {
    const r = { ...request };
    // Spec 4.3 lists buying_mode with no word of it being optional: a valid request names one.
    if (r.buying_mode === undefined) r.buying_mode = 'brief';
    if (r.buying_mode === 'brief' && (typeof r.brief !== 'string' || !r.brief.trim())) r.brief = DEFAULT_BRIEF;
    if (typeof r.brief === 'string' && !r.brief.trim()) delete r.brief; // an empty brief in refine mode: open, so not sent
    if (r.buying_mode === 'refine' && !(Array.isArray(r.refine) && r.refine.length)) r.refine = [{ scope: 'request', ask: 'more like this' }];
    if (Array.isArray(r.refine) && r.refine.length === 0) delete r.refine;
    if (Array.isArray(r.refine)) {
      // The spec's one action (`more_like_this`) is about a product: request-scope items carry only their ask.
      r.refine = r.refine.map((x: Record<string, unknown>) => {
        const { product_id: _p, action: _a, ...rest } = x;
        return x.scope === 'product' && ctx.product
          ? { ...rest, product_id: ctx.product.product_id, ...(x.action !== undefined ? { action: x.action } : {}) }
          : { ...rest, scope: 'request' };
      });
    }
    return r;
  }
  if (task !== 'create_media_buy') return request;
  const start = request.start_time === 'asap' ? Date.now() : Date.parse(String(request.start_time));
  const end = Date.parse(String(request.end_time));
  if (Number.isFinite(start) && Number.isFinite(end) && end > start + 3_600_000) return request;
  if (!Number.isFinite(start)) return request;
  return { ...request, end_time: new Date(start + 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

const prefixes = new WeakMap<FuzzContext, string>();

/** 52 hex digits of the run (seed, nonce, transport), computed once per context; the counter makes each key. */
function keyPrefix(ctx: FuzzContext): string {
  let p = prefixes.get(ctx);
  if (!p) {
    p = createHash('sha256')
      .update(`${ctx.runSeed ?? 0}:${ctx.nonce ?? ''}:${ctx.transport.kind}`)
      .digest('hex')
      .slice(0, 52);
    prefixes.set(ctx, p);
  }
  return p;
}

/** Replaces key shapes with fresh keys (seed, nonce, counter): UUID v4, or the 16 / 255 character bounds of digest 3.1. */
export function materializeKeys(request: Record<string, unknown>, ctx: FuzzContext): Record<string, unknown> {
  const key = request.idempotency_key;
  if (typeof key !== 'string' || !key.startsWith(KEY_MARK)) return request;
  const shape = key.slice(KEY_MARK.length);
  ctx.keyCounter = (ctx.keyCounter ?? 0) + 1;
  const run = keyPrefix(ctx);
  const counter = ctx.keyCounter.toString(16).padStart(12, '0');
  let fresh: string;
  // Every shape holds the counter (unique in the run) and enough of the run's digits (unique across runs).
  if (shape === 'min') fresh = `${run.slice(0, 10)}${counter.slice(-6)}`;
  else if (shape === 'max') fresh = `${run}${counter}`.repeat(4).slice(0, 255);
  else {
    const hex = `${run.slice(0, 20)}${counter}`;
    fresh = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
  return { ...request, idempotency_key: fresh };
}
