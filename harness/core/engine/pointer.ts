/** RFC 6901 JSON pointers: the address every expectation and every piece of evidence uses. */

export class PointerError extends Error {}

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PointerError(`JSON pointer must start with "/": ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export function formatPointer(tokens: readonly (string | number)[]): string {
  return tokens.map((t) => `/${String(t).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

const MISSING = Symbol('missing');

/** Resolve a pointer; `found` is false when any segment is absent. */
export function resolvePointer(value: unknown, pointer: string): { found: boolean; value: unknown } {
  let cur: unknown = value;
  for (const token of parsePointer(pointer)) {
    const next = step(cur, token);
    if (next === MISSING) return { found: false, value: undefined };
    cur = next;
  }
  return { found: true, value: cur };
}

function step(cur: unknown, token: string): unknown {
  if (Array.isArray(cur)) {
    if (!/^(0|[1-9][0-9]*)$/.test(token)) return MISSING;
    const i = Number(token);
    return i < cur.length ? cur[i] : MISSING;
  }
  if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, token)) {
    return (cur as Record<string, unknown>)[token];
  }
  return MISSING;
}
