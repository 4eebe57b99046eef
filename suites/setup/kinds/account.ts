/**
 * `setup_account`: find how to give the seller an account reference (interface spec 2.5a) and
 * publish the `buyer` and `accounts` facts. In order: the fixtures' account; a natural key the
 * seller has not seen (per-check accounts), tried on get_products, then the same flagged
 * `sandbox: true` (a seller may admit unknown brands only in its sandbox); an active account from
 * list_accounts; a new one from sync_accounts. Each attempt is evidence. A seller that accepts
 * none and offers no way to obtain one is a coverage gap (give an account in --fixtures); one
 * whose list_accounts / sync_accounts answer unusably fails.
 */
import type { CheckContext, StepKind, StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import { describeReply } from '../../../harness/core/engine/kinds/types.js';
import { unreachable } from '../../../harness/core/engine/kinds/steps/util.js';
import type { TaskReply } from '../../../harness/core/transport/types.js';
import { naturalAccount, probeDistinctKeys, type AccountsFact, type BuyerFact } from '../../../harness/core/fixtures/accounts.js';
import { DEFAULT_BRAND_DOMAIN, DEFAULT_BRIEF, fixturesOf, type AccountRef } from '../../../harness/core/fixtures/fixtures.js';

function accepted(reply: TaskReply): boolean {
  return reply.ok && !reply.isError && !reply.failure;
}

function productsCall(ctx: CheckContext, buyer: BuyerFact, account: AccountRef): Promise<TaskReply> {
  return ctx.call('get_products', { buying_mode: 'brief', brief: buyer.brief, brand: buyer.brand, account });
}

function listed(payload: unknown): AccountRef[] {
  const list = (payload as { accounts?: unknown })?.accounts;
  if (!Array.isArray(list)) return [];
  return list
    .filter((a) => a !== null && typeof a === 'object' && typeof (a as { account_id?: unknown }).account_id === 'string')
    .filter((a) => {
      const status = (a as { status?: unknown }).status;
      return status === undefined || status === 'active';
    })
    .map((a) => ({ account_id: (a as { account_id: string }).account_id }));
}

export const setupAccount: StepKind = {
  name: 'setup_account',
  fields: {},
  async run(_step, ctx) {
    const fx = fixturesOf(ctx.run);
    const buyer: BuyerFact = { brand: fx.brand ?? { domain: DEFAULT_BRAND_DOMAIN }, brief: fx.brief ?? DEFAULT_BRIEF };
    ctx.facts.publish('buyer', buyer);
    const publish = (fact: AccountsFact, note: string): { verdict: StepVerdict } => {
      ctx.facts.publish('accounts', fact);
      ctx.notes.push(note);
      return { verdict: { status: 'ok' } };
    };
    const base = { brand_domain: buyer.brand.domain };
    if (fx.account) {
      return publish({ ...base, mode: 'fixed', source: 'fixtures', primary: fx.account, secondary: fx.second_account }, 'accounts from the fixtures');
    }
    const tasks = ctx.profile.tasks;
    if (!tasks.includes('get_products')) {
      return publish(
        { ...base, mode: 'per-check', source: 'unverified natural key' },
        'the agent lists no get_products: per-check natural-key accounts, not verified',
      );
    }

    const attempts: string[] = [];
    const probe = naturalAccount(
      buyer.brand.domain,
      ctx.random.alias('hex', 'probe', (r) => r.hex(12)),
    );
    const first = await productsCall(ctx, buyer, probe);
    const down = unreachable(first);
    if (down) return { verdict: down };
    if (accepted(first)) {
      const distinct = await probeDistinctKeys(
        (task, args) => ctx.call(task, args),
        ctx.profile.tasks,
        buyer.brand.domain,
        (alias) => ctx.random.alias('hex', alias, (r) => r.hex(12)),
        ctx.random.alias('uuid', 'distinct_sync', (r) => r.uuid()),
      );
      return publish(
        { ...base, mode: 'per-check', source: 'natural key', ...(distinct.shown ? { distinct_keys: true } : {}) },
        `the seller accepts a new natural-key account: one account per check; ${distinct.note}`,
      );
    }
    attempts.push(`get_products with a new natural-key account: ${describeReply(first)}`);
    const inSandbox = await productsCall(ctx, buyer, { ...probe, sandbox: true });
    if (accepted(inSandbox)) {
      return publish(
        { ...base, mode: 'per-check', source: 'sandbox natural key', sandbox: true },
        'the seller accepts a new natural-key account flagged sandbox: true: one sandbox account per check',
      );
    }
    attempts.push(`get_products with a new natural-key account flagged sandbox: ${describeReply(inSandbox)}`);

    if (tasks.includes('list_accounts')) {
      const list = await ctx.call('list_accounts', {});
      const found = accepted(list) ? listed(list.payload) : [];
      if (found.length > 0) {
        const check = await productsCall(ctx, buyer, found[0]);
        if (accepted(check)) {
          return publish(
            { ...base, mode: 'fixed', source: 'list_accounts', primary: found[0], secondary: found[1] },
            `account ${found[0].account_id} from list_accounts (${found.length} active)`,
          );
        }
        attempts.push(`get_products with listed account ${found[0].account_id}: ${describeReply(check)}`);
      } else {
        attempts.push(`list_accounts: ${accepted(list) ? 'no active account with an account_id' : describeReply(list)}`);
      }
    }

    if (tasks.includes('sync_accounts')) {
      const natural = naturalAccount(
        buyer.brand.domain,
        ctx.random.alias('hex', 'synced', (r) => r.hex(12)),
      );
      const sync = await ctx.call('sync_accounts', {
        idempotency_key: ctx.random.alias('uuid', 'sync', (r) => r.uuid()),
        accounts: [{ ...natural, billing: 'operator' }],
      });
      const item = (sync.payload as { accounts?: Array<{ account_id?: unknown; status?: unknown }> } | undefined)?.accounts?.[0];
      if (accepted(sync) && item && (item.status === undefined || item.status === 'active')) {
        const ref: AccountRef = typeof item.account_id === 'string' ? { account_id: item.account_id } : natural;
        const check = await productsCall(ctx, buyer, ref);
        if (accepted(check)) return publish({ ...base, mode: 'fixed', source: 'sync_accounts', primary: ref }, 'an account created with sync_accounts');
        attempts.push(`get_products with the synced account: ${describeReply(check)}`);
      } else {
        attempts.push(`sync_accounts: ${accepted(sync) ? `account status ${JSON.stringify(item?.status ?? '(none)')}` : describeReply(sync)}`);
      }
    }

    const tried = attempts.join('; ');
    if (!tasks.includes('list_accounts') && !tasks.includes('sync_accounts')) {
      return {
        verdict: {
          status: 'gap',
          gap: 'buyer account (--fixtures account)',
          message: `the seller accepts no new account and offers neither list_accounts nor sync_accounts: give an account it knows in --fixtures (${tried})`,
        },
      };
    }
    return { verdict: { status: 'failed', message: `no account the seller accepts could be found or created: ${tried}`, actual: attempts } };
  },
};
