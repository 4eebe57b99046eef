import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FixturesError, loadFixtures, validateFixtures } from './fixtures.js';
import { chooseProduct } from './products.js';

describe('--fixtures', () => {
  it('accepts every documented field', () => {
    const f = validateFixtures({
      brand: { domain: 'acme.example' },
      brief: 'Outdoor gear',
      account: { account_id: 'acc_1' },
      second_account: { brand: { domain: 'acme.example' }, operator: 'agency.example' },
      product: { product_id: 'p1', pricing_option_id: 'po1', budget: 5000 },
      tasks: { get_products: { filters: { channels: ['olv'] } } },
    });
    expect(f.account).toEqual({ account_id: 'acc_1' });
    expect(validateFixtures(null)).toEqual({});
  });

  it.each([
    ['an unknown top-level field', { acount: {} }, /unknown field "acount"/],
    ['an unknown account field', { account: { account_id: 'a', extra: 1 } }, /\/account: unknown field "extra"/],
    ['an account mixing both forms', { account: { account_id: 'a', operator: 'o', brand: { domain: 'x.example' } } }, /\/account: an account is either/],
    ['an account with only an operator', { account: { operator: 'o' } }, /\/account: an account is either/],
    ['a bad brand domain', { brand: { domain: 'not a domain' } }, /\/brand\/domain: must match/],
    ['a non-positive budget', { product: { product_id: 'p', budget: 0 } }, /\/product\/budget: must be > 0/],
    ['a pricing option without its product', { product: { pricing_option_id: 'po' } }, /\/product: pricing_option_id needs product_id/],
    ['a second account without a first', { second_account: { account_id: 'b' } }, /second_account needs account/],
    ['task arguments that are not an object', { tasks: { get_products: 'x' } }, /\/tasks\/get_products: must be object/],
  ])('rejects %s, naming the field', (_name, data, message) => {
    expect(() => validateFixtures(data, 'fixtures f.yaml')).toThrow(FixturesError);
    expect(() => validateFixtures(data, 'fixtures f.yaml')).toThrow(message);
  });

  it('reads YAML files and names the file in every error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-fixtures-'));
    const good = join(dir, 'good.yaml');
    writeFileSync(good, 'brand: { domain: acme.example }\naccount: { account_id: acc_1 }\n');
    expect(loadFixtures(good).brand).toEqual({ domain: 'acme.example' });
    const dup = join(dir, 'dup.yaml');
    writeFileSync(dup, 'brief: a\nbrief: b\n');
    expect(() => loadFixtures(dup)).toThrow(/dup\.yaml: not valid YAML/);
    expect(() => loadFixtures(join(dir, 'missing.yaml'))).toThrow(/missing\.yaml: cannot read: ENOENT/);
  });
});

describe('choosing what to buy', () => {
  const payload = {
    products: [
      { product_id: 'none', pricing_options: [] },
      {
        product_id: 'p1',
        pricing_options: [
          { pricing_option_id: 'flat', pricing_model: 'flat_rate', currency: 'USD' },
          { pricing_option_id: 'cpm', pricing_model: 'cpm', currency: 'EUR', fixed_price: 12, min_spend_per_package: 15000 },
        ],
      },
    ],
  };

  it('takes the first product with a pricing option, prefers a priced CPM option, and respects its minimum spend', () => {
    const c = chooseProduct(payload, {});
    expect(c).toMatchObject({ ok: true, product: { product_id: 'p1', pricing_option_id: 'cpm', currency: 'EUR', pricing_model: 'cpm', budget: 16500 } });
  });

  it('follows the fixtures, and says when what they name is not offered', () => {
    expect(chooseProduct(payload, { product: { product_id: 'p1', pricing_option_id: 'flat', budget: 900 } })).toMatchObject({
      ok: true,
      product: { pricing_option_id: 'flat', budget: 900 },
    });
    expect(chooseProduct(payload, { product: { product_id: 'p9' } })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/p9\) is not among the 2 offered/),
    });
    expect(chooseProduct({ products: [] }, {})).toMatchObject({ ok: false, message: 'get_products offered no product' });
    expect(chooseProduct({ products: [{ product_id: 'x' }] }, {})).toMatchObject({ ok: false });
  });
});
