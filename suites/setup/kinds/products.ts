/**
 * `setup_products`: get_products for the buyer's brief, in the check's account, must offer a
 * product the harness can buy; the chosen product, pricing option and budget are published as
 * the `product` fact every later check buys.
 */
import type { ExpectationDef } from '../../../harness/core/engine/model.js';
import { recordOf, type StepKind } from '../../../harness/core/engine/kinds/types.js';
import { judgeReply } from '../../../harness/core/engine/kinds/steps/util.js';
import type { BuyerFact } from '../../../harness/core/fixtures/accounts.js';
import { fixturesOf } from '../../../harness/core/fixtures/fixtures.js';
import { chooseProduct } from '../../../harness/core/fixtures/products.js';

const EXPECT: ExpectationDef[] = [{ kind: 'success' }, { kind: 'array_length', path: '/products', min: 1 }];

export const setupProducts: StepKind = {
  name: 'setup_products',
  fields: {},
  async run(_step, ctx) {
    const buyer = ctx.expand('{{facts.buyer}}') as BuyerFact;
    const account = ctx.expand('{{account:products}}');
    const reply = await ctx.call('get_products', { buying_mode: 'brief', brief: buyer.brief, brand: buyer.brand, account });
    const record = recordOf(reply);
    const verdict = judgeReply(EXPECT, reply, record, ctx);
    if (verdict.status !== 'ok') return { verdict, record };
    const choice = chooseProduct(reply.payload, fixturesOf(ctx.run));
    if (!choice.ok) return { verdict: { status: 'failed', message: choice.message, actual: reply.payload }, record };
    ctx.facts.publish('product', choice.product);
    ctx.notes.push(`buying ${choice.how}`);
    return { verdict: { status: 'ok' }, record };
  },
};
