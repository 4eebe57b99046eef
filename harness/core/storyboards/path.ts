/**
 * The paths storyboards use to name a member of a response or a capability block (digest 6.1):
 * dot-separated member names with `[n]` array indices and `[*]` for every element, e.g.
 * `products[0].format_ids[0].id`, `products[*].format_ids[*]`.
 */

/** A member name, an index, or every element (`*`). */
export type PathSegment = string | number | { every: true };

/** The path's segments; throws on a malformed path. */
export function parseStoryboardPath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  for (const part of path.split('.')) {
    const m = /^([^[\]]*)((?:\[(?:\d+|\*)\])*)$/.exec(part);
    if (!m || (m[1] === '' && m[2] === '')) throw new Error(`malformed storyboard path ${JSON.stringify(path)}`);
    if (m[1] !== '') out.push(m[1]);
    for (const idx of m[2].matchAll(/\[(\d+|\*)\]/g)) out.push(idx[1] === '*' ? { every: true } : Number(idx[1]));
  }
  return out;
}

/** Every value `path` names in `root` (one at most without `[*]`); empty when a segment is missing. */
export function resolveStoryboardPathAll(root: unknown, path: string): unknown[] {
  let current: unknown[] = [root];
  for (const seg of parseStoryboardPath(path)) {
    const next: unknown[] = [];
    for (const cur of current) {
      if (typeof seg === 'object') {
        if (Array.isArray(cur)) next.push(...cur);
      } else if (typeof seg === 'number') {
        if (Array.isArray(cur) && seg < cur.length) next.push(cur[seg]);
      } else if (cur !== null && typeof cur === 'object' && !Array.isArray(cur) && Object.hasOwn(cur, seg)) {
        next.push((cur as Record<string, unknown>)[seg]);
      }
    }
    current = next;
  }
  return current;
}

/** The value at `path` in `root` (the first, for a `[*]` path), or undefined when there is none. */
export function resolveStoryboardPath(root: unknown, path: string): unknown {
  return resolveStoryboardPathAll(root, path)[0];
}

/** The JSON pointer of a path without wildcards (`[*]` is written `*`), for evidence. */
export function pointerOf(path: string): string {
  try {
    return parseStoryboardPath(path)
      .map((s) => `/${typeof s === 'object' ? '*' : String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`)
      .join('');
  } catch {
    return '';
  }
}
