import { resolvePointer } from '../../pointer.js';
import type { CheckContext, Judgement, Subject } from '../types.js';

export const PATH_FIELD = {
  oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }],
} as const;

/** The payload an expectation looks at: the reply's, else the saved record's. */
export function payloadOf(subject: Subject): unknown {
  return subject.reply ? subject.reply.payload : subject.record.payload;
}

/** Resolve one pointer or the first of several that exists; `{token}` is expanded. */
export function at(value: unknown, path: string | string[] | undefined, ctx: CheckContext): { found: boolean; value: unknown; pointer: string } {
  const list = path === undefined ? [''] : Array.isArray(path) ? path : [path];
  for (const p of list) {
    const pointer = ctx.ids.expand(p);
    const r = resolvePointer(value, pointer);
    if (r.found) return { ...r, pointer };
  }
  return { found: false, value: undefined, pointer: ctx.ids.expand(list[0]) };
}

export const OK: Judgement = { ok: true };

export function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isInteger(v)) return 'integer';
  return typeof v;
}

export function short(v: unknown, max = 200): string {
  let s: string;
  try {
    s = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
