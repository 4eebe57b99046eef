/**
 * `canonical_format_satisfaction` (the bundle's storyboard-schema.yaml, "Canonical format
 * satisfaction"; line 3.1+): on a create_media_buy step, each package the request sent (`path`
 * selects one package or an array of them; default `packages`) is matched against its product as
 * the latest earlier response listing that product_id declared it. The selector route judged is
 * the 3.1 precedence: `format_option_refs[]` (each must name one of the product's
 * `format_options[]`), else legacy `format_ids[]` (each normalized through a declaration's
 * `v1_format_ref`, else the released set's v1 → canonical registry, which a declaration must
 * narrow; a product with no `format_options[]` must list it in `format_ids[]`), else a direct
 * `format_kind` + `params` (canonical-match.ts); no selector takes all the product's formats.
 * `value: true` passes when the request satisfies every package's product and the agent accepted
 * it; `value: false` when some package does not, the agent refused, and its error names a format
 * cause (a FORMAT_* or CONFLICTING_SELECTORS code, or a format selector in its field or message).
 * A non-boolean value, a missing or malformed package, selector or product is the storyboard's
 * defect (not applicable). The agent's products, declarations and error are read within caps.
 */
import { fail, na, type Judge } from './judge.js';
import { pointerOf, resolveStoryboardPathAll } from './path.js';
import { LIST_CAP, unmetByProjection, unmetBySelector, type Params } from './canonical-match.js';
import type { V1Registry } from './v1-registry.js';

/** Products read per earlier response, declarations per product, packages per request. */
const PRODUCTS_CAP = 1_000;
const DECLARATIONS_CAP = 100;
const PACKAGES_CAP = 50;

type Rec = Record<string, unknown>;
const isRecord = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const shown = (v: unknown) => JSON.stringify(v)?.slice(0, 120) ?? 'undefined';
const sameUrl = (a: unknown, b: unknown) =>
  typeof a === 'string' && typeof b === 'string' && a.replace(/\/+$/, '').toLowerCase() === b.replace(/\/+$/, '').toLowerCase();

/** One package's verdict: satisfied, or the unmet requirement and where in the request; or the storyboard's defect. */
type Verdict = { satisfied: true; how: string } | { satisfied: false; unmet: string; pointer: string } | { defect: string };

const declName = (d: Rec, i: number) => `format_options[${i}] (${typeof d.format_option_id === 'string' ? d.format_option_id : shown(d.format_kind)})`;
const declarationsOf = (p: Rec): Rec[] => (Array.isArray(p.format_options) ? p.format_options.slice(0, DECLARATIONS_CAP).filter(isRecord) : []);
const paramsOf = (x: Rec): Params => (isRecord(x.params) ? x.params : {});

/** The product as the latest earlier response listing it declared it, with that step's id. */
function productOf(id: string, prior: ReadonlyMap<string, unknown>): { product: Rec; step: string } | undefined {
  for (const [step, r] of [...prior.entries()].reverse()) {
    const products = isRecord(r) && Array.isArray(r.products) ? r.products.slice(0, PRODUCTS_CAP) : [];
    const product = products.find((p): p is Rec => isRecord(p) && p.product_id === id);
    if (product) return { product, step };
  }
  return undefined;
}

function byRefs(refs: unknown[], product: Rec, at: string): Verdict {
  const decls = declarationsOf(product);
  for (const [j, ref] of refs.slice(0, LIST_CAP).entries()) {
    const here = `${at}/format_option_refs/${j}`;
    if (!isRecord(ref) || typeof ref.format_option_id !== 'string') return { defect: `format_option_refs[${j}] names no format_option_id` };
    if (ref.scope !== undefined && ref.scope !== 'product' && ref.scope !== 'publisher')
      return { defect: `format_option_refs[${j}] has an unknown scope ${shown(ref.scope)}` };
    if (ref.scope === 'publisher' && typeof ref.publisher_domain !== 'string')
      return { defect: `format_option_refs[${j}] of scope publisher names no publisher_domain` };
    if (decls.length === 0)
      return { satisfied: false, unmet: `format_option_refs[${j}] ${shown(ref.format_option_id)}: the product declares no format_options[]`, pointer: here };
    const hit = decls.some((d) =>
      ref.scope === 'publisher'
        ? d.publisher_domain === ref.publisher_domain && d.format_option_id === ref.format_option_id
        : d.format_option_id === ref.format_option_id && d.publisher_domain === undefined,
    );
    if (!hit) {
      const ids = decls.map((d, i) => declName(d, i)).join(', ');
      return { satisfied: false, unmet: `format_option_refs[${j}] ${shown(ref.format_option_id)} is none of the product's ${ids}`, pointer: here };
    }
  }
  return { satisfied: true, how: 'every format_option_refs[] entry names one of its format_options[]' };
}

function byLegacy(ids: unknown[], product: Rec, at: string, registry: V1Registry | undefined): Verdict {
  const decls = declarationsOf(product);
  for (const [j, fid] of ids.slice(0, LIST_CAP).entries()) {
    const here = `${at}/format_ids/${j}`;
    if (!isRecord(fid) || typeof fid.agent_url !== 'string' || typeof fid.id !== 'string')
      return { defect: `format_ids[${j}] is not a format id {agent_url, id}` };
    const same = (x: unknown) => isRecord(x) && x.id === fid.id && sameUrl(x.agent_url, fid.agent_url);
    if (decls.some((d) => Array.isArray(d.v1_format_ref) && d.v1_format_ref.slice(0, LIST_CAP).some(same))) continue;
    if (decls.length === 0) {
      if (Array.isArray(product.format_ids) && product.format_ids.slice(0, LIST_CAP).some(same)) continue;
      return { satisfied: false, unmet: `legacy format ${fid.id} is not among the product's format_ids[]`, pointer: here };
    }
    if (!registry)
      return {
        defect: `legacy format ${fid.id} is linked by no v1_format_ref of the product, and the run's schema set has no v1-canonical mapping registry to normalize it`,
      };
    const projected = registry(fid.id);
    if (!projected)
      return {
        satisfied: false,
        unmet: `legacy format ${fid.id} is linked by no v1_format_ref and matches no entry of the v1-canonical mapping registry`,
        pointer: here,
      };
    const reasons = decls.map((d, i) =>
      d.format_kind !== projected.format_kind ? `${declName(d, i)} is ${shown(d.format_kind)}` : unmetByProjection(paramsOf(d), projected.params),
    );
    if (!reasons.some((r) => r === undefined))
      return {
        satisfied: false,
        unmet: `legacy format ${fid.id} normalizes to ${projected.format_kind} ${shown(projected.params)}, which no declaration narrows: ${reasons[0]}`,
        pointer: here,
      };
  }
  return { satisfied: true, how: 'every legacy format_ids[] entry normalizes to one of its declarations' };
}

function byKind(pkg: Rec, product: Rec, at: string): Verdict {
  const kind = pkg.format_kind as string;
  const decls = declarationsOf(product);
  const here = `${at}/format_kind`;
  if (decls.length === 0) return { satisfied: false, unmet: `format_kind ${shown(kind)}: the product declares no format_options[]`, pointer: here };
  const same = decls.map((d, i) => [d, i] as const).filter(([d]) => d.format_kind === kind);
  if (same.length === 0) return { satisfied: false, unmet: `format_kind ${shown(kind)} is the kind of none of its format_options[]`, pointer: here };
  const reasons = same.map(([d, i]) => [i, unmetBySelector(paramsOf(d), paramsOf(pkg))] as const);
  const ok = reasons.find(([, r]) => r === undefined);
  if (ok) return { satisfied: true, how: `format_kind ${kind} with its params satisfies ${declName(decls[ok[0]], ok[0])}` };
  const [i, why] = reasons[0];
  return { satisfied: false, unmet: `${declName(decls[i], i)}: ${why}`, pointer: pkg.params !== undefined ? `${at}/params` : here };
}

function judgePackage(pkg: Rec, at: string, prior: ReadonlyMap<string, unknown>, registry: V1Registry | undefined): Verdict & { product?: string } {
  if (typeof pkg.product_id !== 'string') return { defect: `the package at ${at || '/'} names no product_id` };
  const found = productOf(pkg.product_id, prior);
  if (!found) return { defect: `no earlier step's response lists product ${pkg.product_id} (the storyboard must read it with get_products first)` };
  const label = `product ${pkg.product_id} (as step ${found.step} returned it)`;
  const withLabel = (v: Verdict) => ({ ...v, product: label });
  if (Array.isArray(pkg.format_option_refs) && pkg.format_option_refs.length > 0) return withLabel(byRefs(pkg.format_option_refs, found.product, at));
  if (Array.isArray(pkg.format_ids) && pkg.format_ids.length > 0) return withLabel(byLegacy(pkg.format_ids, found.product, at, registry));
  if (pkg.format_kind !== undefined) {
    if (typeof pkg.format_kind !== 'string') return { defect: `the package's format_kind ${shown(pkg.format_kind)} is not a canonical kind` };
    return withLabel(byKind(pkg, found.product, at));
  }
  if (pkg.params !== undefined) return { defect: 'the package sends params without a format_kind' };
  return withLabel({ satisfied: true, how: 'no format selector, so all the product’s formats' });
}

/** The packages the validation names in the sent request, with their pointers; or the storyboard's defect. */
function packagesOf(sent: unknown, path: string | undefined): { pkg: Rec; at: string }[] | string {
  const where = path ?? 'packages';
  let at: unknown[];
  try {
    at = resolveStoryboardPathAll(sent, where);
  } catch {
    return `the path ${JSON.stringify(where)} is malformed`;
  }
  const base = pointerOf(where);
  const one = at.length === 1 ? at[0] : undefined;
  if (isRecord(one)) return [{ pkg: one, at: base }];
  const list = Array.isArray(one) ? one.map((p, i) => ({ p, at: `${base}/${i}` })) : at.map((p, i) => ({ p, at: `${base}/${i}` }));
  if (list.length === 0) return `the request sent has no package at ${where}`;
  if (list.length > PACKAGES_CAP) return `the request sends ${list.length} packages at ${where}, more than ${PACKAGES_CAP}`;
  const bad = list.find((x) => !isRecord(x.p));
  if (bad) return `the request's ${where} holds a value that is not a package at ${bad.at}`;
  return list.map((x) => ({ pkg: x.p as Rec, at: x.at }));
}

/** What the refusal says, read at most 5 levels and 200 values deep: its codes, and whether it names a format cause. */
function rejectionOf(payload: unknown, code: string | undefined): { codes: string[]; formatCause: boolean } {
  const codes = new Set<string>(code ? [code] : []);
  const texts: string[] = [];
  let budget = 200;
  const walk = (v: unknown, depth: number) => {
    if (budget-- <= 0 || depth > 5) return;
    if (Array.isArray(v)) for (const x of v.slice(0, 20)) walk(x, depth + 1);
    else if (isRecord(v))
      for (const [k, x] of Object.entries(v).slice(0, 40)) {
        if (typeof x === 'string' && (k === 'code' || k === 'error_code')) codes.add(x.slice(0, 80));
        else if (typeof x === 'string' && ['field', 'message', 'path', 'detail', 'suggestion'].includes(k)) texts.push(x.slice(0, 500));
        else if (typeof x === 'object') walk(x, depth + 1);
      }
  };
  walk(payload, 0);
  const formatCause = [...codes].some((c) => c.startsWith('FORMAT_') || c === 'CONFLICTING_SELECTORS') || texts.some((t) => /format|selector/i.test(t));
  return { codes: [...codes], formatCause };
}

export const canonicalFormatSatisfaction: Judge = (v, o, env) => {
  if (typeof v.value !== 'boolean') return na("the storyboard's canonical_format_satisfaction validation needs value true (accepted) or false (rejected)");
  if (!isRecord(env.sent)) return na('no request was sent on this step to judge its format selectors');
  const packages = packagesOf(env.sent, v.path);
  if (typeof packages === 'string') return na(`the storyboard's canonical_format_satisfaction request: ${packages}`);
  const verdicts = packages.map(({ pkg, at }) => judgePackage(pkg, at, env.priorSteps ?? new Map(), env.v1Registry));
  const defect = verdicts.find((x) => 'defect' in x);
  if (defect && 'defect' in defect) return na(`the storyboard's canonical_format_satisfaction request: ${defect.defect}`);
  const unmet = verdicts.find((x) => 'satisfied' in x && !x.satisfied) as
    | (Verdict & { product?: string; satisfied: false; unmet: string; pointer: string })
    | undefined;
  const local = unmet === undefined;
  const accepted = o.ok;
  const rejection = accepted ? undefined : rejectionOf(o.payload, o.errorCode);
  const expected = { accepted: v.value, local_satisfied: v.value };
  const actual = { accepted, local_satisfied: local, ...(rejection ? { rejection: { codes: rejection.codes, format_cause: rejection.formatCause } } : {}) };
  const pointer = unmet?.pointer ?? packages[0].at;
  const what = unmet ? `${unmet.product}: ${unmet.unmet}` : `${(verdicts[0] as { product?: string }).product}: ${(verdicts[0] as { how: string }).how}`;
  const refused = `rejected${rejection?.codes.length ? ` (${rejection.codes.join(', ')})` : ''}`;
  if (local !== v.value)
    return fail(
      `the storyboard expects the request to be ${v.value ? 'accepted' : 'rejected'}, yet it ${local ? 'satisfies' : 'does not satisfy'} ${what}`,
      expected,
      actual,
      pointer,
    );
  if (accepted !== v.value)
    return fail(
      accepted ? `the agent accepted a request that does not satisfy ${what}` : `the agent ${refused} a request that satisfies ${what}`,
      expected,
      actual,
      pointer,
    );
  if (rejection && !rejection.formatCause)
    return fail(
      `the agent ${refused} the request, but its error names no format selector cause; the request does not satisfy ${what}`,
      expected,
      actual,
      pointer,
    );
  return { outcome: 'passed', message: v.value ? `accepted; ${what}` : `${refused} for its format selector; ${what}`, expected, actual };
};
