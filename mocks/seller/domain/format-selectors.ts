/**
 * create_media_buy package format selectors against the product's canonical `format_options[]`
 * (line 3.1+ create_media_buy: `format_option_refs[]` win, else legacy `format_ids[]`, else the
 * direct `format_kind` + `params`; a package without any takes all the product's formats). A
 * selector that names no declaration, or a direct selector that under-specifies one (omits a
 * dimension, size, range or duration it fixes) or contradicts a param it declares, is refused
 * UNSUPPORTED_FEATURE with the selector's field. Legacy `format_ids[]` are checked only on a
 * product that declares `format_options[]` (a v1_format_ref link or the product's own format_ids).
 *
 * `get_products` on 3.1+ flags a product whose `format_ids[]` and `format_options[].v1_format_ref[]`
 * disagree with a non-fatal FORMAT_DECLARATION_DIVERGENT advisory (`source: producer`).
 *
 * Fault `canonical-selector-underspecified-accepted`: a dimension or duration a direct selector
 * omits is taken as matching the declaration's (a bare `format_kind: image` buys a fixed 300x250);
 * one it states must still match.
 */
import { isDeepStrictEqual } from 'node:util';
import { registerFault } from '../faults.js';
import { failure } from './errors.js';
import type { Product } from './catalog.js';
import type { SellerServices } from './services.js';

export const UNDERSPECIFIED_ACCEPTED = 'canonical-selector-underspecified-accepted';

registerFault({
  name: UNDERSPECIFIED_ACCEPTED,
  rule: 'a direct canonical selector (format_kind + params) must state and match the dimensions and duration the product declaration fixes, or be refused UNSUPPORTED_FEATURE (digest 6.1 canonical_format_satisfaction; 3.1 create_media_buy params); an omitted one is taken as a wildcard',
  targets: ['storyboard.canonical_selectors.create.bare_kind_refused'],
  storyboard: 'harness/core/storyboards/testing/canonical-formats',
});

type Rec = Record<string, unknown>;
/** The params a direct selector must state when the declaration has them; any other is the declaration's when left out. */
const GATING = new Set(['width', 'height', 'sizes', 'min_width', 'max_width', 'min_height', 'max_height', 'duration_ms_exact', 'duration_ms_range']);
const isRecord = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

const refuse = (field: string, why: string) => failure('UNSUPPORTED_FEATURE', `${field}: the format selector ${why}`, { field, recovery: 'correctable' });

/** Why the selector's params do not satisfy the declaration's, or undefined. */
function unmet(decl: Rec, params: Rec, lenient: boolean): string | undefined {
  const declared = isRecord(decl.params) ? decl.params : {};
  for (const [key, want] of Object.entries(declared)) {
    const got = params[key];
    if (got === undefined) {
      if (lenient || !GATING.has(key)) continue;
      return `omits params.${key}`;
    }
    const narrows =
      Array.isArray(want) && Array.isArray(got) ? got.length > 0 && got.every((x) => want.some((y) => isDeepStrictEqual(x, y))) : isDeepStrictEqual(want, got);
    if (!narrows) return `has params.${key} ${JSON.stringify(got)}, not ${JSON.stringify(want)}`;
  }
  return undefined;
}

function checkPackage(s: SellerServices, p: Rec, product: Product, at: string): void {
  const decls = (product.format_options ?? []).filter(isRecord);
  const refs = Array.isArray(p.format_option_refs) ? p.format_option_refs : [];
  if (refs.length > 0) {
    refs.forEach((ref, j) => {
      const field = `${at}.format_option_refs[${j}]`;
      if (decls.length === 0) throw refuse(field, `names a format option, but product ${product.product_id} declares only legacy format_ids`);
      const r = isRecord(ref) ? ref : {};
      const hit = decls.some((d) =>
        r.scope === 'publisher'
          ? d.publisher_domain === r.publisher_domain && d.format_option_id === r.format_option_id
          : d.format_option_id === r.format_option_id && d.publisher_domain === undefined,
      );
      if (!hit) throw refuse(field, `names ${JSON.stringify(r.format_option_id)}, which is not among product ${product.product_id}'s format_options[]`);
    });
    return;
  }
  const ids = Array.isArray(p.format_ids) ? p.format_ids : [];
  if (ids.length > 0) {
    if (decls.length === 0) return;
    ids.forEach((fid, j) => {
      const f = isRecord(fid) ? fid : {};
      const same = (x: unknown) => isRecord(x) && x.id === f.id;
      const linked = decls.some((d) => Array.isArray(d.v1_format_ref) && d.v1_format_ref.some(same)) || (product.format_ids ?? []).some(same);
      if (!linked) throw refuse(`${at}.format_ids[${j}]`, `names ${JSON.stringify(f.id)}, which is none of product ${product.product_id}'s formats`);
    });
    return;
  }
  if (typeof p.format_kind !== 'string') return;
  const field = `${at}.format_kind`;
  const same = decls.filter((d) => d.format_kind === p.format_kind);
  if (same.length === 0) throw refuse(field, `${JSON.stringify(p.format_kind)} is the kind of none of product ${product.product_id}'s format_options[]`);
  const lenient = s.faults.has(UNDERSPECIFIED_ACCEPTED);
  const params = isRecord(p.params) ? p.params : {};
  const reasons = same.map((d) => unmet(d, params, lenient));
  if (reasons.every((r) => r !== undefined))
    throw refuse(
      field,
      `${p.format_kind} ${reasons[0]}, which product ${product.product_id}'s ${String(same[0].format_option_id ?? p.format_kind)} declaration requires`,
    );
}

/** Refuses the first package whose format selector does not select from its product's formats. */
export function checkFormatSelectors(s: SellerServices, packages: readonly Rec[], base: string): void {
  packages.forEach((p, i) => {
    const product = s.catalog.product(String(p.product_id));
    if (product) checkPackage(s, p, product, `${base}[${i}]`);
  });
}

/** The producer's advisories for listed products whose v1 and canonical declarations disagree (a v1_format_ref naming no product format_id, or a format_id no declaration links). */
export function divergenceAdvisories(products: readonly Rec[]): Rec[] {
  const out: Rec[] = [];
  products.forEach((p, i) => {
    const decls = (Array.isArray(p.format_options) ? p.format_options : []).filter(isRecord);
    const ids = (Array.isArray(p.format_ids) ? p.format_ids : []).filter(isRecord);
    const links = decls.flatMap((d) => (Array.isArray(d.v1_format_ref) ? d.v1_format_ref.filter(isRecord) : []));
    if (ids.length === 0 || links.length === 0) return;
    const same = (a: Rec) => (b: Rec) => a.id === b.id && a.agent_url === b.agent_url;
    const stray = links.find((l) => !ids.some(same(l))) ?? ids.find((f) => !links.some(same(f)));
    if (!stray) return;
    out.push({
      code: 'FORMAT_DECLARATION_DIVERGENT',
      message: `product ${String(p.product_id)}: format_ids[] and format_options[].v1_format_ref[] name different formats (${String(stray.id)} is on one side only)`,
      field: `products[${i}]`,
      source: 'producer',
      recovery: 'correctable',
      details: { product_id: p.product_id, divergence_reason: `${String(stray.id)} is not on both sides` },
    });
  });
  return out;
}
