/** Expectations comparing a reply with what an earlier step saved. */
import { isDeepStrictEqual } from 'node:util';
import type { ExpectationKind } from '../types.js';
import { parsePointer } from '../../pointer.js';
import { at, OK, payloadOf, short } from './util.js';

function withoutPointers(value: unknown, pointers: string[]): unknown {
  const copy = value === undefined ? undefined : structuredClone(value);
  for (const p of pointers) {
    const tokens = parsePointer(p);
    let cur: unknown = copy;
    for (let i = 0; i < tokens.length - 1 && cur && typeof cur === 'object'; i++) {
      cur = (cur as Record<string, unknown>)[tokens[i]];
    }
    if (cur && typeof cur === 'object' && tokens.length) delete (cur as Record<string, unknown>)[tokens[tokens.length - 1]];
  }
  return copy;
}

/** First differing pointer between two JSON values (for evidence). */
export function firstDifference(a: unknown, b: unknown, base = ''): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
    for (const k of keys) {
      const d = firstDifference(
        (a as Record<string, unknown>)[k],
        (b as Record<string, unknown>)[k],
        `${base}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`,
      );
      if (d !== undefined) return d;
    }
  }
  return base || '';
}

export const sameAs: ExpectationKind = {
  name: 'same_as',
  fields: {
    step: { type: 'string' },
    path: { type: 'string' },
    /** Pointers (relative to path) left out of the comparison, e.g. envelope fields. */
    ignore: { type: 'array', items: { type: 'string' } },
  },
  required: ['step'],
  evaluate(exp, subject, ctx) {
    const prev = ctx.steps[exp.step as string];
    if (!prev) return { ok: false, message: `no saved step "${exp.step as string}"` };
    const path = (exp.path as string | undefined) ?? '';
    const ignore = ((exp.ignore as string[] | undefined) ?? []).map((p) => ctx.ids.expand(p));
    const a = withoutPointers(at(payloadOf(subject), path, ctx).value, ignore);
    const b = withoutPointers(at(prev.payload, path, ctx).value, ignore);
    const diff = firstDifference(a, b);
    if (diff !== undefined) {
      const pointer = path + diff;
      return {
        ok: false,
        message: `differs from step ${exp.step as string} at ${pointer || '(payload)'}${ignore.length ? ` (ignoring ${ignore.join(', ')})` : ''}`,
        expected: at(b, diff, ctx).value,
        actual: at(a, diff, ctx).value,
        pointer,
      };
    }
    return OK;
  },
};

export const differsFrom: ExpectationKind = {
  name: 'differs_from',
  fields: { step: { type: 'string' }, path: { type: 'string' } },
  required: ['step', 'path'],
  evaluate(exp, subject, ctx) {
    const prev = ctx.steps[exp.step as string];
    if (!prev) return { ok: false, message: `no saved step "${exp.step as string}"` };
    const a = at(payloadOf(subject), exp.path as string, ctx);
    const b = at(prev.payload, exp.path as string, ctx);
    if (!a.found) return { ok: false, message: `${a.pointer} is missing`, pointer: a.pointer };
    if (isDeepStrictEqual(a.value, b.value)) {
      return {
        ok: false,
        message: `${a.pointer} is ${short(a.value)}, the same as in step ${exp.step as string}`,
        expected: { not: b.value },
        actual: a.value,
        pointer: a.pointer,
      };
    }
    return OK;
  },
};
