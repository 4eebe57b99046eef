/**
 * The paths storyboards use to name a member of a response or a capability block (digest 6.1):
 * dot-separated member names with `[n]` array indices, e.g. `products[0].format_ids[0].id`.
 */

/** The path's segments (member names and indices); throws on a malformed path. */
export function parseStoryboardPath(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const part of path.split('.')) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!m || (m[1] === '' && m[2] === '')) throw new Error(`malformed storyboard path ${JSON.stringify(path)}`);
    if (m[1] !== '') out.push(m[1]);
    for (const idx of m[2].matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

/** The value at `path` in `root`, or undefined when a segment is missing. */
export function resolveStoryboardPath(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const seg of parseStoryboardPath(path)) {
    if (typeof seg === 'number') {
      if (!Array.isArray(cur) || seg >= cur.length) return undefined;
      cur = cur[seg];
    } else {
      if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, seg)) return undefined;
      cur = (cur as Record<string, unknown>)[seg];
    }
  }
  return cur;
}
