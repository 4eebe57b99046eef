/**
 * The product the harness buys, chosen from what the seller offers (interface spec 2.5): the
 * one the fixtures name, or else the first product with a pricing option, preferring a CPM
 * option with a price. The budget respects the option's minimum spend when it declares one.
 */
import type { TemplateFunction } from '../../harness/engine/plugin.js';
import { requireFact } from '../../harness/engine/template.js';
import type { Fixtures } from './fixtures.js';

export interface ProductFact {
  product_id: string;
  pricing_option_id: string;
  /** Per-package budget the checks start from (at least the option's minimum). */
  budget: number;
  currency?: string;
  pricing_model?: string;
}

interface PricingOption {
  pricing_option_id?: unknown;
  pricing_model?: unknown;
  model?: unknown;
  currency?: unknown;
  fixed_price?: unknown;
  price?: unknown;
  [field: string]: unknown;
}

const DEFAULT_BUDGET = 1000;
/** Fields sellers use for a minimum spend, per package or per buy. */
const MINIMUM_FIELDS = ['min_spend_per_package', 'min_spend', 'minimum_spend', 'min_budget', 'minimum_budget'];

function options(product: unknown): PricingOption[] {
  const list = (product as { pricing_options?: unknown })?.pricing_options;
  return Array.isArray(list)
    ? list.filter((o): o is PricingOption => o !== null && typeof o === 'object' && typeof (o as PricingOption).pricing_option_id === 'string')
    : [];
}

function minimumOf(option: PricingOption): number {
  let min = 0;
  for (const f of MINIMUM_FIELDS) {
    const v = option[f];
    if (typeof v === 'number' && Number.isFinite(v) && v > min) min = v;
  }
  return min;
}

function preference(o: PricingOption): number {
  const model = String(o.pricing_model ?? o.model ?? '').toLowerCase();
  const priced = typeof (o.fixed_price ?? o.price) === 'number';
  return (model === 'cpm' ? 0 : 2) + (priced ? 0 : 1);
}

export type Choice = { ok: true; product: ProductFact; how: string } | { ok: false; message: string };

/** Chooses the product and pricing option to buy from a get_products payload. */
export function chooseProduct(payload: unknown, fixtures: Fixtures): Choice {
  const products = (payload as { products?: unknown })?.products;
  if (!Array.isArray(products) || products.length === 0) return { ok: false, message: 'get_products offered no product' };
  const wanted = fixtures.product;
  let product: unknown;
  let how: string;
  if (wanted?.product_id) {
    product = products.find((p) => (p as { product_id?: unknown })?.product_id === wanted.product_id);
    if (!product) return { ok: false, message: `the product the fixtures name (${wanted.product_id}) is not among the ${products.length} offered` };
    how = 'named in the fixtures';
  } else {
    product = products.find((p) => options(p).length > 0);
    if (!product) return { ok: false, message: `none of the ${products.length} products offered has a pricing option with a pricing_option_id` };
    how = 'the first product offered with a pricing option';
  }
  const opts = options(product);
  let option: PricingOption | undefined;
  if (wanted?.pricing_option_id) {
    option = opts.find((o) => o.pricing_option_id === wanted.pricing_option_id);
    if (!option) return { ok: false, message: `the pricing option the fixtures name (${wanted.pricing_option_id}) is not offered for ${wanted.product_id}` };
  } else {
    option = [...opts].sort((a, b) => preference(a) - preference(b))[0];
    if (!option) return { ok: false, message: `product ${(product as { product_id?: unknown }).product_id} has no pricing option with a pricing_option_id` };
  }
  const minimum = minimumOf(option);
  const budget = wanted?.budget ?? Math.max(DEFAULT_BUDGET, Math.ceil(minimum * 1.1));
  const chosen: ProductFact = {
    product_id: String((product as { product_id: unknown }).product_id),
    pricing_option_id: String(option.pricing_option_id),
    budget,
    ...(typeof option.currency === 'string' ? { currency: option.currency } : {}),
    ...(typeof (option.pricing_model ?? option.model) === 'string' ? { pricing_model: String(option.pricing_model ?? option.model) } : {}),
  };
  const minNote = minimum > 0 ? `, minimum ${minimum}` : '';
  return {
    ok: true,
    product: chosen,
    how: `${how}: ${chosen.product_id} / ${chosen.pricing_option_id} (${chosen.pricing_model ?? 'model?'} ${chosen.currency ?? ''}${minNote}), budget ${budget}`,
  };
}

/** `{{budget:<alias>}}`: a per-package budget at least the chosen option's, unique per alias (a marker checks can count by). */
export const budgetFunction: TemplateFunction = {
  needs: ['product'],
  resolve(alias, scope) {
    const product = requireFact(scope, 'product') as ProductFact;
    const marker = Number(scope.random.alias('int', `budget:${alias}`, (r) => String(1 + (r.bytes(4).readUInt32BE(0) % 99_999))));
    return product.budget + marker;
  },
};
