/**
 * One generator from a JSON Schema (fixtures/schemas/<task>-request.json): a fast-check arbitrary
 * of requests the schema accepts. Values that must name real agent state (the account, a product)
 * come from `bindings` (JSON pointers, `*` for any array index), never from chance. Sizes the
 * spec leaves open are capped here (strings, arrays) without becoming constraints.
 */
import fc from 'fast-check';

export type Schema = Record<string, unknown>;
export type Bindings = Record<string, fc.Arbitrary<unknown>>;

const MAX_STRING = 300;
const MAX_ITEMS = 3;
const NUMBER_CAP = 1e9;

/** Strings that trip naive decoders: combining marks, RTL, emoji with joiners, BOM, full-width, escapes. */
export const UNICODE_EDGES: readonly string[] = [
  'e\u0301\u0301 caf\u00e9',
  '\u202egnp.exe \u05e9\u05dc\u05d5\u05dd',
  '\u{1F469}\u200D\u{1F469}\u200D\u{1F467} \u{1F1FA}\u{1F1F8}',
  '\uFEFFbom',
  '\uFF21\uFF22\uFF23 \u3042',
  'quote " backslash \\ slash / newline \n tab \t',
  '\u0000nul',
  '',
];

/** Resolves a local `$ref` (`#/$defs/x`); the request schemas use no other. */
export function deref(schema: Schema, root: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 8 && typeof s.$ref === 'string'; i++) {
    const ref = s.$ref as string;
    if (!ref.startsWith('#/')) throw new Error(`schema-arbitrary: only local $ref is supported, got ${ref}`);
    s = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], root) as Schema;
    if (!s) throw new Error(`schema-arbitrary: unresolved $ref ${ref}`);
  }
  return s;
}

/** `/packages/0/budget` → `/packages/*\/budget` (the form bindings are keyed by). */
export function bindingKey(pointer: string): string {
  return pointer.replace(/\/\d+(?=\/|$)/g, '/*');
}

/**
 * Arbitraries are immutable: the ones built from the same few parameters over and over (every
 * string field of every request schema, every run) are built once per process, which spares each
 * run the grapheme tables fast-check computes for a `unit: 'grapheme'` string.
 */
const built = new Map<string, fc.Arbitrary<unknown>>();
function once<T>(key: string, make: () => fc.Arbitrary<T>): fc.Arbitrary<T> {
  let arb = built.get(key);
  if (!arb) {
    arb = make();
    built.set(key, arb);
  }
  return arb as fc.Arbitrary<T>;
}

function textArb(min: number, max: number): fc.Arbitrary<string> {
  return once(`text:${min}:${max}`, () => makeTextArb(min, max));
}

function makeTextArb(min: number, max: number): fc.Arbitrary<string> {
  const fits = (s: string) => s.length >= min && s.length <= max;
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, 40) }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.min(max, 40) }) },
    { weight: 1, arbitrary: fc.constantFrom(...UNICODE_EDGES).filter(fits) },
    // Long strings within the limits (the upper bound itself when the schema has one).
    { weight: 1, arbitrary: fc.constantFrom(Math.max(min, Math.min(max, MAX_STRING))).map((n) => 'x'.repeat(n)) },
  );
}

function dateTimeArb(): fc.Arbitrary<string> {
  return once('date-time', () => makeDateTimeArb());
}

function makeDateTimeArb(): fc.Arbitrary<string> {
  return fc
    .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2035-12-31T23:59:59Z'), noInvalidDate: true })
    .map((d) => d.toISOString().replace(/\.000Z$/, 'Z'));
}

const HOST_RE = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

function stringArb(s: Schema): fc.Arbitrary<string> {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : MAX_STRING;
  if (s.format === 'date-time') return dateTimeArb();
  if (s.format === 'hostname') return once('hostname', () => fc.domain().filter((d) => d.length <= 253 && HOST_RE.test(d)));
  if (typeof s.pattern === 'string') {
    const pattern = s.pattern;
    return once(`pattern:${min}:${max}:${pattern}`, () => fc.stringMatching(new RegExp(pattern)).filter((v) => v.length >= min && v.length <= max));
  }
  return textArb(min, max);
}

function numberArb(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : -NUMBER_CAP;
  const hi = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : NUMBER_CAP;
  if (integer) {
    const min = Math.ceil(typeof s.exclusiveMinimum === 'number' ? lo + 1 : lo);
    const max = Math.floor(typeof s.exclusiveMaximum === 'number' ? hi - 1 : hi);
    return fc.integer({ min, max });
  }
  return fc
    .double({
      min: lo,
      max: hi,
      minExcluded: typeof s.exclusiveMinimum === 'number',
      maxExcluded: typeof s.exclusiveMaximum === 'number',
      noNaN: true,
      noDefaultInfinity: true,
    })
    .map((n) => (Object.is(n, -0) ? 0 : n));
}

/** A JSON object that survives a round trip unchanged (what `context` must come back as). */
export function jsonObjectArb(): fc.Arbitrary<Record<string, unknown>> {
  return once('json-object', makeJsonObjectArb);
}

function makeJsonObjectArb(): fc.Arbitrary<Record<string, unknown>> {
  const key = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...UNICODE_EDGES)).filter((k) => k !== '__proto__');
  const leaf = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom(...UNICODE_EDGES), fc.integer(), fc.boolean(), fc.constant(null));
  return fc.dictionary(key, fc.oneof({ weight: 4, arbitrary: leaf }, { weight: 1, arbitrary: fc.array(leaf, { maxLength: 3 }) }), { maxKeys: 4 });
}

/**
 * Requests `schema` accepts; bound pointers take their binding (and are always present), and so do
 * the members on a `force`d pointer (`/packages/0/budget`: packages non-empty, budget present).
 */
export function validArbitrary(
  schema: Schema,
  bindings: Bindings = {},
  root: Schema = schema,
  pointer = '',
  force: ReadonlySet<string> = new Set(),
): fc.Arbitrary<unknown> {
  const bound = bindings[bindingKey(pointer)];
  if (bound && pointer !== '') return bound;
  const s = deref(schema, root);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.oneOf)) return fc.oneof(...(s.oneOf as Schema[]).map((b) => validArbitrary(b, bindings, root, pointer, force)));
  switch (s.type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(props).length === 0) return jsonObjectArb();
      const required = new Set((s.required ?? []) as string[]);
      for (const k of Object.keys(props))
        if ((bindings[bindingKey(`${pointer}/${k}`)] && k !== 'idempotency_key') || force.has(`${pointer}/${k}`)) required.add(k);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, sub] of Object.entries(props)) model[k] = validArbitrary(sub, bindings, root, `${pointer}/${k}`, force);
      return fc.record(model, { requiredKeys: [...required] });
    }
    case 'array': {
      const minLength = Math.max(typeof s.minItems === 'number' ? s.minItems : 0, force.has(`${pointer}/0`) ? 1 : 0);
      const maxLength = Math.max(minLength, Math.min(typeof s.maxItems === 'number' ? s.maxItems : MAX_ITEMS, MAX_ITEMS));
      return fc.array(validArbitrary((s.items ?? {}) as Schema, bindings, root, `${pointer}/0`, force), { minLength, maxLength });
    }
    case 'string':
      return stringArb(s);
    case 'number':
      return numberArb(s, false);
    case 'integer':
      return numberArb(s, true);
    case 'boolean':
      return fc.boolean();
    default:
      throw new Error(`schema-arbitrary: unsupported schema at ${pointer || '/'}: ${JSON.stringify(s).slice(0, 120)}`);
  }
}
