/** Expectations on items of an array found by their fields (e.g. one media buy among many). */
import { isDeepStrictEqual } from 'node:util';
import type { ExpectationDef } from '../../model.js';
import type { CheckContext, ExpectationKind, Subject } from '../types.js';
import { at, OK, payloadOf, short } from './util.js';

const WHERE = { type: 'object', additionalProperties: true, minProperties: 1 } as const;

function matching(
  subject: Subject,
  exp: ExpectationDef,
  ctx: CheckContext,
): { list?: unknown[]; pointer: string; items: unknown[]; where: Record<string, unknown> } {
  const r = at(payloadOf(subject), exp.in as string, ctx);
  const where = ctx.expand(exp.where) as Record<string, unknown>;
  if (!r.found || !Array.isArray(r.value)) return { pointer: r.pointer, items: [], where };
  const items = r.value.filter((item) =>
    Object.entries(where).every(([p, want]) => {
      const v = at(item, p, ctx);
      return v.found && isDeepStrictEqual(v.value, want);
    }),
  );
  return { list: r.value, pointer: r.pointer, items, where };
}

/** Exactly one item of the array at `in` matches `where`; the nested expectations judge it. */
export const item: ExpectationKind = {
  name: 'item',
  fields: { in: { type: 'string' }, where: WHERE, expect: { type: 'array' } },
  required: ['in', 'where'],
  expectationFields: ['expect'],
  evaluate(exp, subject, ctx) {
    const m = matching(subject, exp, ctx);
    if (!m.list) return { ok: false, message: `${m.pointer} must be an array`, pointer: m.pointer };
    if (m.items.length !== 1) {
      return {
        ok: false,
        message: `${m.items.length} items of ${m.pointer} match ${short(m.where)}, expected exactly one`,
        expected: m.where,
        actual: m.items.length,
        pointer: m.pointer,
      };
    }
    const index = m.list.indexOf(m.items[0]);
    const j = ctx.judge(exp.expect as ExpectationDef[] | undefined, { record: { payload: m.items[0] } });
    if (j.ok) return OK;
    return { ...j, pointer: `${m.pointer}/${index}${j.pointer ?? ''}` };
  },
};

/** How many items of the array at `in` match `where`: exactly `equals` (default 1), or `at_least`. */
export const countMatching: ExpectationKind = {
  name: 'count_matching',
  fields: { in: { type: 'string' }, where: WHERE, equals: { type: 'integer', minimum: 0 }, at_least: { type: 'integer', minimum: 1 } },
  required: ['in', 'where'],
  evaluate(exp, subject, ctx) {
    const m = matching(subject, exp, ctx);
    if (!m.list) return { ok: false, message: `${m.pointer} must be an array`, pointer: m.pointer };
    const atLeast = exp.at_least as number | undefined;
    const wanted = (exp.equals as number | undefined) ?? atLeast ?? 1;
    if (atLeast !== undefined ? m.items.length < atLeast : m.items.length !== wanted) {
      return {
        ok: false,
        message: `${m.items.length} items of ${m.pointer} match ${short(m.where)}, expected ${atLeast !== undefined ? 'at least ' : ''}${wanted}`,
        expected: atLeast !== undefined ? { at_least: atLeast } : wanted,
        actual: m.items,
        pointer: m.pointer,
      };
    }
    return OK;
  },
};

/** The array at `in` has at least `min_items` (default 1) items, and every one matches `where` (e.g. a filter honoured). */
export const everyItem: ExpectationKind = {
  name: 'every_item',
  fields: { in: { type: 'string' }, where: WHERE, min_items: { type: 'integer', minimum: 0 } },
  required: ['in', 'where'],
  evaluate(exp, subject, ctx) {
    const m = matching(subject, exp, ctx);
    if (!m.list) return { ok: false, message: `${m.pointer} must be an array`, pointer: m.pointer };
    const min = (exp.min_items as number | undefined) ?? 1;
    if (m.list.length < min) return { ok: false, message: `${m.pointer} has ${m.list.length} items, expected at least ${min}`, pointer: m.pointer };
    const odd = m.list.findIndex((x) => !m.items.includes(x));
    if (odd >= 0) {
      return {
        ok: false,
        message: `${m.pointer}/${odd} does not match ${short(m.where)} (${m.list.length - m.items.length} of ${m.list.length} items do not)`,
        expected: m.where,
        actual: m.list[odd],
        pointer: `${m.pointer}/${odd}`,
      };
    }
    return OK;
  },
};

/** The error object, exactly as the agent sent it, satisfies an inline schema. */
export const errorMatches: ExpectationKind = {
  name: 'error_matches',
  fields: { schema: { type: 'object' }, description: { type: 'string' } },
  required: ['schema'],
  evaluate(exp, subject) {
    const raw = subject.reply?.error?.raw ?? subject.record.error?.raw;
    if (raw === undefined) return { ok: false, message: 'no error object to judge' };
    return checkSchema(exp.schema as object, raw, (exp.description as string | undefined) ?? 'the error object');
  },
};

import { compileInline } from './schema.js';

function checkSchema(schema: object, value: unknown, what: string): { ok: boolean; message?: string; expected?: unknown; actual?: unknown; pointer?: string } {
  const fn = compileInline(schema);
  if (fn(value)) return { ok: true };
  const e = fn.errors?.[0];
  return {
    ok: false,
    message: `${what}: ${e?.instancePath || '/'} ${e?.message ?? 'invalid'}${e?.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`,
    expected: schema,
    actual: value,
    pointer: e?.instancePath,
  };
}
