/**
 * Canonical format matching for `canonical_format_satisfaction` (canonical-format.ts): whether a
 * buyer's direct canonical selector (`format_kind` + `params`) is specific enough for one of a
 * product's `format_options[]` declarations (directional product gating: fixed width, height and
 * duration must be stated and equal, listed sizes and ranges stated and contained rather than
 * overlapping; any other declared param the selector states must narrow it, a list to a subset,
 * while one it leaves out is the declaration's), and whether a declaration narrows a legacy
 * named format's canonical projection (the v2-narrows-v1 comparison). Each answer is the unmet
 * requirement in words, or undefined when met. Lists are read up to LIST_CAP items.
 */
import { isDeepStrictEqual } from 'node:util';

export type Params = Readonly<Record<string, unknown>>;

/** Items of an agent's list read at most (a declaration's `sizes`, a codec list). */
export const LIST_CAP = 200;

/** Params the dimension and duration rules handle; every other declared param is compared as a whole. */
const GATED = new Set([
  'width',
  'height',
  'sizes',
  'min_width',
  'max_width',
  'min_height',
  'max_height',
  'duration_ms',
  'duration_ms_exact',
  'duration_ms_range',
]);

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const shown = (v: unknown) => JSON.stringify(v)?.slice(0, 120) ?? 'undefined';
const span = (lo?: number, hi?: number) => `[${lo ?? '-∞'}, ${hi ?? '∞'}]`;
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const primitive = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

function pair(v: unknown): [number, number] | undefined {
  if (!Array.isArray(v) || v.length !== 2) return undefined;
  const [a, b] = [num(v[0]), num(v[1])];
  return a !== undefined && b !== undefined ? [a, b] : undefined;
}

function sizesOf(v: unknown): { w: number; h: number }[] {
  if (!Array.isArray(v)) return [];
  return v.slice(0, LIST_CAP).flatMap((s) => {
    const w = isRecord(s) ? num(s.width) : undefined;
    const h = isRecord(s) ? num(s.height) : undefined;
    return w !== undefined && h !== undefined ? [{ w, h }] : [];
  });
}

function fixed(decl: Params, req: Params, key: 'width' | 'height'): string | undefined {
  const want = num(decl[key]);
  if (want === undefined) return undefined;
  if (req[key] === undefined) return `the selector omits params.${key}, which the declaration fixes at ${want}`;
  return req[key] === want ? undefined : `params.${key} ${shown(req[key])} is not the declared ${want}`;
}

function sizeList(decl: Params, req: Params): string | undefined {
  const allowed = sizesOf(decl.sizes);
  if (allowed.length === 0) return undefined;
  const asked = sizesOf(req.sizes);
  const w = num(req.width);
  const h = num(req.height);
  const chosen = asked.length > 0 ? asked : w !== undefined && h !== undefined ? [{ w, h }] : [];
  if (chosen.length === 0) return 'the selector names neither sizes nor width and height, which the declaration lists in params.sizes';
  const outside = chosen.find((s) => !allowed.some((a) => a.w === s.w && a.h === s.h));
  return outside ? `size ${outside.w}x${outside.h} is not among the declared params.sizes` : undefined;
}

function range(decl: Params, req: Params, exact: 'width' | 'height'): string | undefined {
  const lo = num(decl[`min_${exact}`]);
  const hi = num(decl[`max_${exact}`]);
  if (lo === undefined && hi === undefined) return undefined;
  const inside = (x: number) => (lo === undefined || x >= lo) && (hi === undefined || x <= hi);
  const e = num(req[exact]);
  if (e !== undefined) return inside(e) ? undefined : `params.${exact} ${e} is outside the declared range ${span(lo, hi)}`;
  const rlo = num(req[`min_${exact}`]);
  const rhi = num(req[`max_${exact}`]);
  if (rlo === undefined && rhi === undefined) return `the selector omits ${exact}, which the declaration bounds to ${span(lo, hi)}`;
  const contained = (lo === undefined || (rlo !== undefined && rlo >= lo)) && (hi === undefined || (rhi !== undefined && rhi <= hi));
  return contained ? undefined : `the ${exact} range ${span(rlo, rhi)} is not contained in the declared ${span(lo, hi)} (overlap is not enough)`;
}

function duration(decl: Params, req: Params): string | undefined {
  const exactOf = (p: Params) => num(p.duration_ms_exact) ?? num(p.duration_ms);
  const want = num(decl.duration_ms_exact);
  const e = exactOf(req);
  if (want !== undefined) {
    if (e === undefined) return `the selector omits a duration, which the declaration fixes at duration_ms_exact ${want}`;
    return e === want ? undefined : `duration ${e} ms is not the declared duration_ms_exact ${want}`;
  }
  const r = pair(decl.duration_ms_range);
  if (!r) return undefined;
  if (e !== undefined) return e >= r[0] && e <= r[1] ? undefined : `duration ${e} ms is outside the declared duration_ms_range ${span(...r)}`;
  const q = pair(req.duration_ms_range);
  if (!q) return `the selector omits a duration, which the declaration bounds to duration_ms_range ${span(...r)}`;
  return q[0] >= r[0] && q[1] <= r[1] ? undefined : `duration_ms_range ${span(...q)} is not contained in the declared ${span(...r)} (overlap is not enough)`;
}

/** A list of plain values narrows by subset; anything else must be equal. */
function narrows(outer: unknown, inner: unknown): boolean {
  if (Array.isArray(outer) && outer.every(primitive) && Array.isArray(inner) && inner.length > 0 && inner.length <= LIST_CAP)
    return inner.every((x) => outer.slice(0, LIST_CAP).some((y) => isDeepStrictEqual(x, y)));
  return isDeepStrictEqual(outer, inner);
}

function others(decl: Params, req: Params): string | undefined {
  for (const [key, declared] of Object.entries(decl)) {
    if (GATED.has(key) || declared === undefined || (Array.isArray(declared) && declared.length === 0)) continue;
    // Not a gating param: the 3.1+ scenarios buy a fixed image declaring file size, formats and slots with width and height alone.
    if (req[key] === undefined) continue;
    if (!narrows(declared, req[key])) return `params.${key} ${shown(req[key])} does not narrow the declared ${shown(declared)}`;
  }
  return undefined;
}

/** Why a direct canonical selector's params do not satisfy a declaration's params, or undefined. */
export function unmetBySelector(decl: Params, req: Params): string | undefined {
  return (
    fixed(decl, req, 'width') ??
    fixed(decl, req, 'height') ??
    sizeList(decl, req) ??
    range(decl, req, 'width') ??
    range(decl, req, 'height') ??
    duration(decl, req) ??
    others(decl, req)
  );
}

/** Why a declaration's params do not narrow a legacy format's projected params (each projected param must hold on the declaration), or undefined. */
export function unmetByProjection(decl: Params, projected: Params): string | undefined {
  for (const [key, want] of Object.entries(projected)) {
    if (decl[key] === undefined) return `the declaration states no params.${key}; the legacy format fixes ${shown(want)}`;
    if (!narrows(want, decl[key])) return `the declaration's params.${key} ${shown(decl[key])} does not narrow the legacy format's ${shown(want)}`;
  }
  return undefined;
}
