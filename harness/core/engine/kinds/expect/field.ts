/** Expectations on values inside the payload, addressed by JSON pointer. */
import { isDeepStrictEqual } from 'node:util';
import type { ExpectationKind, Judgement } from '../types.js';
import { at, OK, PATH_FIELD, payloadOf, short, typeOf } from './util.js';

export const field: ExpectationKind = {
  name: 'field',
  fields: {
    path: PATH_FIELD,
    present: { type: 'boolean' },
    /** Judge the value only when it is present (absent passes). */
    if_present: { type: 'boolean' },
    equals: {},
    not_equals: {},
    one_of: { type: 'array', minItems: 1 },
    /** The array holds every element of this list (a template such as {{profile.…}} may give it). */
    includes: {},
    type: { enum: ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] },
    pattern: { type: 'string' },
    min: { type: 'number' },
    max: { type: 'number' },
  },
  required: ['path'],
  evaluate(exp, subject, ctx): Judgement {
    const r = at(payloadOf(subject), exp.path as string | string[], ctx);
    const where = r.pointer || '(payload)';
    const present = exp.present as boolean | undefined;
    if (present === false) {
      return r.found ? { ok: false, message: `${where} must be absent`, expected: 'absent', actual: r.value, pointer: r.pointer } : OK;
    }
    if (!r.found) {
      if (exp.if_present) return OK;
      return { ok: false, message: `${where} is missing`, expected: 'present', actual: 'absent', pointer: r.pointer };
    }
    const v = r.value;
    if (exp.type !== undefined) {
      const t = typeOf(v);
      const want = exp.type as string;
      const okType = t === want || (want === 'number' && t === 'integer');
      if (!okType) return { ok: false, message: `${where} must be ${want}, is ${t}`, expected: want, actual: v, pointer: r.pointer };
    }
    if (exp.equals !== undefined) {
      const want = ctx.expand(exp.equals);
      if (!isDeepStrictEqual(v, want)) {
        return { ok: false, message: `${where} is ${short(v)}, expected ${short(want)}`, expected: want, actual: v, pointer: r.pointer };
      }
    }
    if (exp.not_equals !== undefined) {
      const bad = ctx.expand(exp.not_equals);
      if (isDeepStrictEqual(v, bad)) return { ok: false, message: `${where} must not be ${short(bad)}`, expected: { not: bad }, actual: v, pointer: r.pointer };
    }
    if (exp.one_of !== undefined) {
      const options = ctx.expand(exp.one_of) as unknown[];
      if (!options.some((o) => isDeepStrictEqual(o, v))) {
        return { ok: false, message: `${where} is ${short(v)}, expected one of ${short(options)}`, expected: options, actual: v, pointer: r.pointer };
      }
    }
    if (exp.includes !== undefined) {
      const wanted = ctx.expand(exp.includes);
      if (!Array.isArray(wanted)) throw new Error(`field includes: expected a list, got ${short(wanted)}`);
      const missing = Array.isArray(v) ? wanted.filter((w) => !v.some((x) => isDeepStrictEqual(x, w))) : wanted;
      if (missing.length > 0) {
        return { ok: false, message: `${where} lacks ${short(missing)}`, expected: { includes: wanted }, actual: v, pointer: r.pointer };
      }
    }
    if (exp.pattern !== undefined) {
      if (typeof v !== 'string' || !new RegExp(exp.pattern as string).test(v)) {
        return { ok: false, message: `${where} does not match ${exp.pattern as string}`, expected: exp.pattern, actual: v, pointer: r.pointer };
      }
    }
    if (exp.min !== undefined || exp.max !== undefined) {
      if (typeof v !== 'number') return { ok: false, message: `${where} must be a number`, actual: v, pointer: r.pointer };
      if (exp.min !== undefined && v < (exp.min as number))
        return { ok: false, message: `${where} is ${v}, below ${exp.min as number}`, expected: { min: exp.min }, actual: v, pointer: r.pointer };
      if (exp.max !== undefined && v > (exp.max as number))
        return { ok: false, message: `${where} is ${v}, above ${exp.max as number}`, expected: { max: exp.max }, actual: v, pointer: r.pointer };
    }
    return OK;
  },
};

export const arrayLength: ExpectationKind = {
  name: 'array_length',
  fields: { path: PATH_FIELD, equals: { type: 'integer' }, min: { type: 'integer' }, max: { type: 'integer' } },
  required: ['path'],
  evaluate(exp, subject, ctx) {
    const r = at(payloadOf(subject), exp.path as string | string[], ctx);
    if (!r.found || !Array.isArray(r.value)) {
      return { ok: false, message: `${r.pointer} must be an array`, expected: 'array', actual: r.found ? r.value : 'absent', pointer: r.pointer };
    }
    const n = r.value.length;
    if (exp.equals !== undefined && n !== exp.equals)
      return { ok: false, message: `${r.pointer} has ${n} items, expected ${exp.equals as number}`, expected: exp.equals, actual: n, pointer: r.pointer };
    if (exp.min !== undefined && n < (exp.min as number))
      return {
        ok: false,
        message: `${r.pointer} has ${n} items, expected at least ${exp.min as number}`,
        expected: { min: exp.min },
        actual: n,
        pointer: r.pointer,
      };
    if (exp.max !== undefined && n > (exp.max as number))
      return {
        ok: false,
        message: `${r.pointer} has ${n} items, expected at most ${exp.max as number}`,
        expected: { max: exp.max },
        actual: n,
        pointer: r.pointer,
      };
    return OK;
  },
};

/** The value at `path` equals the value an earlier step saw at `step_path` plus `by`. */
export const increments: ExpectationKind = {
  name: 'increments',
  fields: { path: { type: 'string' }, step: { type: 'string' }, step_path: { type: 'string' }, by: { type: 'integer' } },
  required: ['path', 'step', 'by'],
  evaluate(exp, subject, ctx) {
    const r = at(payloadOf(subject), exp.path as string, ctx);
    const prev = ctx.steps[exp.step as string];
    if (!prev) return { ok: false, message: `no saved step "${exp.step as string}"` };
    const before = at(prev.payload, (exp.step_path as string | undefined) ?? (exp.path as string), ctx);
    if (!before.found || typeof before.value !== 'number') {
      return { ok: false, message: `step ${exp.step as string} has no number at ${before.pointer}`, actual: before.value, pointer: before.pointer };
    }
    const want = before.value + (exp.by as number);
    if (!r.found || r.value !== want) {
      return {
        ok: false,
        message: `${r.pointer} is ${r.found ? short(r.value) : 'absent'}, expected ${want} (${before.value} ${(exp.by as number) >= 0 ? '+' : '-'} ${Math.abs(exp.by as number)})`,
        expected: want,
        actual: r.found ? r.value : 'absent',
        pointer: r.pointer,
      };
    }
    return OK;
  },
};
