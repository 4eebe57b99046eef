/**
 * create_media_buy package format selectors against the product's canonical `format_options[]`
 * (line 3.1+ create_media_buy: `format_option_refs[]` win, else legacy `format_ids[]`, else the
 * direct `format_kind` + `params`; a package without any takes all the product's formats). A
 * selector that names no declaration, or a direct selector that under-specifies one (omits a
 * dimension or duration it fixes, or another param it declares) or contradicts it, is refused
 * UNSUPPORTED_FEATURE with the selector's field. Legacy `format_ids[]` are checked only on a
 * product that declares `format_options[]` (a v1_format_ref link or the product's own format_ids).
 *
 * Fault `canonical-selector-underspecified-accepted`: a direct selector omitting what the
 * declaration fixes is taken as matching it (a bare `format_kind: image` buys a fixed 300x250).
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
const isRecord = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const FIXED = ['width', 'height', 'duration_ms_exact'];

const refuse = (field: string, why: string) => failure('UNSUPPORTED_FEATURE', `${field}: the format selector ${why}`, { field, recovery: 'correctable' });

/** Why the selector's params do not satisfy the declaration's, or undefined. */
function unmet(decl: Rec, params: Rec, lenient: boolean): string | undefined {
  const declared = isRecord(decl.params) ? decl.params : {};
  for (const [key, want] of Object.entries(declared)) {
    const got = params[key];
    if (got === undefined) {
      if (lenient && FIXED.includes(key)) continue;
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
