/**
 * Agent JSON is parsed only through here: a nesting-depth pre-scan (brackets counted outside
 * strings) runs before `JSON.parse`, so a reply of 100,000 nested arrays is refused as data
 * instead of reaching code that recurses over it (stringify, schema validation, reports).
 */

/** Deepest nesting of arrays and objects accepted in anything an agent sends. */
export const MAX_JSON_DEPTH = 64;

export type BoundedJson = { ok: true; value: unknown } | { ok: false; tooDeep?: number };

/** True when `text` has at most `limit` opening brackets in all (strings included): it cannot nest deeper. */
function fewOpeners(text: string, limit: number): boolean {
  let n = 0;
  for (const opener of ['{', '[']) {
    for (let i = text.indexOf(opener); i !== -1; i = text.indexOf(opener, i + 1)) if (++n > limit) return false;
  }
  return true;
}

/** The first depth above `limit` reached in `text` (outside strings), or 0 when it stays within. */
export function depthBeyond(text: string, limit = MAX_JSON_DEPTH): number {
  if (fewOpeners(text, limit)) return 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > limit) return depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return 0;
}

/** Parse agent JSON without throwing; too deep a document is refused before parsing. */
export function parseBoundedJson(text: string, limit = MAX_JSON_DEPTH): BoundedJson {
  if (depthBeyond(text, limit) > 0) return { ok: false, tooDeep: limit };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** One line naming why agent JSON was refused. */
export function tooDeepMessage(what: string, limit = MAX_JSON_DEPTH): string {
  return `${what} nests arrays/objects deeper than ${limit} levels; refused unparsed`;
}
