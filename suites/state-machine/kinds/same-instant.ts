/**
 * `same_instant`: the date-time at `path` is the same instant as `equals` (a template, e.g. an
 * earlier step's value): `2026-01-01T00:00:00Z` and `2026-01-01T00:00:00.000Z` are one time, so a
 * seller that formats a stored time differently on another reply is not taken for one that moved
 * it (digest 4.5: confirmed_at is set exactly once). Values that are not date-times compare as
 * strings.
 */
import type { ExpectationKind } from '../../../harness/core/engine/kinds/types.js';
import { at, OK, payloadOf, short } from '../../../harness/core/engine/kinds/expect/util.js';

export const sameInstant: ExpectationKind = {
  name: 'same_instant',
  fields: { path: { type: 'string', minLength: 1 }, equals: {} },
  required: ['path', 'equals'],
  evaluate(exp, subject, ctx) {
    const r = at(payloadOf(subject), exp.path as string, ctx);
    const want = ctx.expand(exp.equals);
    if (!r.found) return { ok: false, message: `${r.pointer} is missing`, expected: want, actual: 'absent', pointer: r.pointer };
    const a = typeof r.value === 'string' ? Date.parse(r.value) : Number.NaN;
    const b = typeof want === 'string' ? Date.parse(want) : Number.NaN;
    const same = Number.isNaN(a) || Number.isNaN(b) ? r.value === want : a === b;
    return same
      ? OK
      : { ok: false, message: `${r.pointer} is ${short(r.value)}, not the instant ${short(want)}`, expected: want, actual: r.value, pointer: r.pointer };
  },
};
