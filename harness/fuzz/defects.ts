/**
 * Near-valid requests: a valid request (schema-arbitrary.ts) with exactly one defect, chosen
 * among what the request schema states — a required member left out, a member of the wrong JSON
 * type, an enum value not in the list, a number past its bound, a malformed date-time or host
 * name, a string breaking its pattern or length (the idempotency key of digest 3.1). Nothing the
 * schema allows (unknown extra members, long free text) is ever a defect: only rules the spec
 * states are enforced, so a seller is never asked to refuse what it may accept.
 */
import fc from 'fast-check';
import { deref, validArbitrary, type Bindings, type Schema } from './schema-arbitrary.js';

export interface Defect {
  /** `missing-required`, `wrong-type`, `unknown-enum`, `out-of-range`, `malformed-date`, `malformed-host`, `bad-pattern`, `bad-length`, `too-few-items`. */
  kind: string;
  /** RFC 6901 pointer of the defect in the request. */
  pointer: string;
  /** The value put there; absent for a member left out. */
  value?: unknown;
}

export interface NearValid {
  request: Record<string, unknown>;
  defect: Defect;
}

type Site = { kind: string; pointer: string; values: unknown[] | 'delete' };

const MALFORMED_DATES = ['2027-13-01T00:00:00Z', '2027-06-32T00:00:00Z', '2027-06-01T25:00:00Z', '2027/06/01 10:00', 'next tuesday', ''];
const MALFORMED_HOSTS = ['not a domain', '-bad-.example', 'exa mple.com', 'brand..example/', ''];

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'number' ? 'number' : typeof v;
}

/** Values of other JSON types than the allowed ones (never null: absent and null the spec does not tell apart). */
function wrongTypes(allowed: readonly string[]): unknown[] {
  const pool: Array<[string, unknown]> = [
    ['string', 'x'],
    ['number', 42],
    ['boolean', true],
    ['array', []],
    ['object', {}],
  ];
  const ok = new Set(allowed.flatMap((t) => (t === 'integer' ? ['number'] : [t])));
  return pool.filter(([t]) => !ok.has(t)).map(([, v]) => v);
}

function typesOf(s: Schema, root: Schema): string[] {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.oneOf)) return (s.oneOf as Schema[]).flatMap((b) => typesOf(deref(b, root), root));
  if ('const' in s) return [typeOf(s.const)];
  return [];
}

function stringSites(s: Schema, pointer: string, out: Site[]): void {
  if (s.format === 'date-time') out.push({ kind: 'malformed-date', pointer, values: MALFORMED_DATES });
  if (s.format === 'hostname') out.push({ kind: 'malformed-host', pointer, values: MALFORMED_HOSTS });
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : undefined;
  if (typeof s.pattern === 'string') {
    const re = new RegExp(s.pattern);
    const width = Math.max(min, 20);
    const candidates = ['contains space'.padEnd(width, 'x'), 'with/slash+plus'.padEnd(width, 'x'), '\u043a\u043b\u044e\u0447'.padEnd(width, 'x')];
    out.push({ kind: 'bad-pattern', pointer, values: candidates.filter((c) => !re.test(c)) });
  }
  const lengths: string[] = [];
  if (min > 0) lengths.push('a'.repeat(min - 1));
  if (max !== undefined) lengths.push('a'.repeat(max + 1));
  if (lengths.length) out.push({ kind: 'bad-length', pointer, values: lengths });
}

function numberSites(s: Schema, pointer: string, out: Site[]): void {
  const values: number[] = [];
  if (typeof s.exclusiveMinimum === 'number') values.push(s.exclusiveMinimum, s.exclusiveMinimum - 1);
  if (typeof s.minimum === 'number') values.push(s.minimum - 1);
  if (typeof s.exclusiveMaximum === 'number') values.push(s.exclusiveMaximum, s.exclusiveMaximum + 1);
  if (typeof s.maximum === 'number') values.push(s.maximum + 1);
  if (s.type === 'integer') values.push(1.5);
  if (values.length) out.push({ kind: 'out-of-range', pointer, values });
}

/**
 * Every defect the schema states, found from the schema alone (array items at index 0), so a
 * near-valid case picks its defect first and fast-check shrinks the request around it.
 */
export function defectSites(schema: Schema, root: Schema = schema, pointer = ''): Site[] {
  const s = deref(schema, root);
  const out: Site[] = [];
  const types = typesOf(s, root);
  if (pointer !== '' && types.length) out.push({ kind: 'wrong-type', pointer, values: wrongTypes(types) });
  if (Array.isArray(s.enum)) {
    const first = String(s.enum[0]);
    const unknown = [`${first}_unknown`, first.toUpperCase(), 'unknown-value'].filter((v) => !(s.enum as unknown[]).includes(v));
    out.push({ kind: 'unknown-enum', pointer, values: unknown });
  }
  if (Array.isArray(s.oneOf)) {
    const branches = (s.oneOf as Schema[]).map((b) => deref(b, root));
    if (branches.some((b) => b.format === 'date-time')) {
      const consts = branches.filter((b) => 'const' in b).map((b) => b.const);
      out.push({ kind: 'malformed-date', pointer, values: MALFORMED_DATES.filter((d) => !consts.includes(d)) });
    }
    return out;
  }
  if (s.type === 'string') stringSites(s, pointer, out);
  if (s.type === 'number' || s.type === 'integer') numberSites(s, pointer, out);
  if (s.type === 'array') {
    if (typeof s.minItems === 'number' && s.minItems > 0) out.push({ kind: 'too-few-items', pointer, values: [[]] });
    out.push(...defectSites((s.items ?? {}) as Schema, root, `${pointer}/0`));
  }
  if (s.type === 'object') {
    for (const k of (s.required ?? []) as string[]) out.push({ kind: 'missing-required', pointer: `${pointer}/${k}`, values: 'delete' });
    for (const [k, sub] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) out.push(...defectSites(sub, root, `${pointer}/${k}`));
  }
  return out.filter((site) => site.values === 'delete' || site.values.length > 0);
}

/** Defects whose refusal the spec leaves open: at or under `pointer` (`*` for any), of `kinds` (default every kind). */
export interface OpenDefect {
  pointer: string;
  kinds?: readonly string[];
}

function isOpen(site: Site, open: readonly OpenDefect[]): boolean {
  return open.some(
    (o) => (o.pointer === '*' || site.pointer === o.pointer || site.pointer.startsWith(`${o.pointer}/`)) && (!o.kinds || o.kinds.includes(site.kind)),
  );
}

/** The defect sites of `schema` but the open ones (a refusal the spec leaves open). */
export function statedSites(schema: Schema, open: readonly OpenDefect[] = []): Site[] {
  return defectSites(schema).filter((site) => !isOpen(site, open));
}

/** `/packages/0/budget` → the pointers that must exist for it: `/packages`, `/packages/0`, `/packages/0/budget`. */
function pathOf(pointer: string): Set<string> {
  const parts = pointer.split('/').slice(1);
  return new Set(parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`));
}

/** A shallow copy of an object or array node. */
function copyNode(node: unknown): Record<string, unknown> {
  if (Array.isArray(node)) return [...node] as unknown as Record<string, unknown>;
  return node !== null && typeof node === 'object' ? { ...(node as Record<string, unknown>) } : {};
}

/**
 * The request with the defect applied. Only the nodes on the pointer's path are copied: the rest
 * is shared with the generated value, which fast-check keeps for shrinking and must not change.
 */
function apply(request: unknown, pointer: string, value: unknown, remove: boolean): Record<string, unknown> {
  const copy = copyNode(request);
  const parts = pointer.split('/').slice(1);
  const last = parts.pop()!;
  let node: Record<string, unknown> = copy;
  // The path exists (the request was generated with it); were a member dropped on the way, it is recreated.
  for (const p of parts) {
    node[p] = copyNode(node[p]);
    node = node[p] as Record<string, unknown>;
  }
  if (remove) delete node[last];
  else node[last] = structuredClone(value);
  return copy;
}

/**
 * Near-valid requests: a defect the schema states, then a valid request that has its place
 * (`finish` makes it consistent), with the defect applied. The defect is chosen first, so shrinking
 * keeps it and shrinks the request around it.
 */
export function nearValidArbitrary(
  schema: Schema,
  bindings: Bindings = {},
  finish: (request: Record<string, unknown>) => Record<string, unknown> = (r) => r,
  open: readonly OpenDefect[] = [],
): fc.Arbitrary<NearValid> {
  const stated = statedSites(schema, open);
  if (stated.length === 0) throw new Error('the request schema states no defect whose refusal the spec requires');
  // Top-level members (the task's own arguments, the idempotency key) weigh more than nested ones.
  const sites = stated.map((site) => ({
    weight: site.pointer.split('/').length === 2 ? 3 : 1,
    arbitrary:
      site.values === 'delete' ? fc.constant({ site, value: undefined as unknown }) : fc.constantFrom(...site.values).map((value) => ({ site, value })),
  }));
  // One valid-request arbitrary per defect pointer, built once (a schema walk compiles patterns).
  const around = new Map<string, fc.Arbitrary<unknown>>();
  const validAround = (pointer: string): fc.Arbitrary<unknown> => {
    let arb = around.get(pointer);
    if (!arb) around.set(pointer, (arb = validArbitrary(schema, bindings, schema, '', pathOf(pointer))));
    return arb;
  };
  return fc.oneof(...sites).chain(({ site, value }) =>
    validAround(site.pointer).map((valid) => {
      const base = finish(valid as Record<string, unknown>);
      const remove = site.values === 'delete';
      const defect: Defect = remove ? { kind: site.kind, pointer: site.pointer } : { kind: site.kind, pointer: site.pointer, value };
      return { request: apply(base, site.pointer, value, remove), defect };
    }),
  );
}
