/**
 * The `setup` suite: the buyer's account, the product to buy, a first buy and the test
 * controller, as checks that run first and publish facts (`buyer`, `accounts`, `product`) and
 * template functions (`{{account:x}}`, `{{account_if_known:x}}`, `{{account_or_natural:x}}`, `{{sync_account:x}}`,
 * `{{other_account:x}}`, `{{sandbox_account:x}}`, `{{budget:x}}`, `{{buyer_brand:x}}`) that every other suite's account-scoped calls use.
 */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import {
  accountFunction,
  accountIfKnownFunction,
  accountOrNaturalFunction,
  buyerBrandFunction,
  otherAccountFunction,
  sandboxAccountFunction,
  syncAccountFunction,
} from '../../harness/core/fixtures/accounts.js';
import { setupAccount } from './kinds/account.js';
import { setupProducts } from './kinds/products.js';
import { setupCreate } from './kinds/create.js';
import { budgetFunction } from '../../harness/core/fixtures/products.js';

export default suitePlugin(import.meta.url, 'setup', {
  stepKinds: [setupAccount, setupProducts, setupCreate],
  facts: { buyer: 'setup.account.usable', accounts: 'setup.account.usable', product: 'setup.products.offered' },
  templateFunctions: {
    account: accountFunction,
    account_if_known: accountIfKnownFunction,
    account_or_natural: accountOrNaturalFunction,
    sync_account: syncAccountFunction,
    other_account: otherAccountFunction,
    sandbox_account: sandboxAccountFunction,
    budget: budgetFunction,
    buyer_brand: buyerBrandFunction,
  },
});
