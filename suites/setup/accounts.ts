/**
 * The buyer the harness acts as, and the accounts it uses (interface spec 2.5a), as facts the
 * setup checks publish for every later check of the transport:
 *
 * - `buyer`: the brand and brief (from --fixtures, or defaults);
 * - `accounts`: how account references are made. `per-check`: the seller accepts a natural key
 *   it has not seen before, so every check gets its own `{brand, operator}` (checks stay
 *   independent, reruns start fresh); `fixed`: the seller needs accounts it knows (given in the
 *   fixtures, listed by list_accounts or created with sync_accounts), shared by every check.
 *   `sandbox`: the seller takes a new natural key only flagged `sandbox: true` (the flag the test
 *   controller's account carries, digest 4.6), so every per-check account carries it.
 */
import type { TemplateFunction } from '../../harness/engine/plugin.js';
import { OMIT, requireFact, TemplateGapError, type TemplateScope } from '../../harness/engine/template.js';
import { DEFAULT_BRAND_DOMAIN, fixturesOf, type AccountRef } from './fixtures.js';
import type { TaskReply } from '../../harness/transport/types.js';

export interface BuyerFact {
  brand: { domain: string };
  brief: string;
}

export interface AccountsFact {
  mode: 'per-check' | 'fixed';
  /** Where the accounts came from (shown in notes). */
  source: 'fixtures' | 'natural key' | 'sandbox natural key' | 'list_accounts' | 'sync_accounts' | 'unverified natural key';
  /** `per-check`: every account reference carries `sandbox: true`. */
  sandbox?: true;
  /** `per-check`: the seller showed that two natural keys are two accounts (sync_accounts gave them two account_ids). */
  distinct_keys?: true;
  brand_domain: string;
  /** `fixed`: the account every check uses. */
  primary?: AccountRef;
  /** `fixed`: a second account, for checks that need two. */
  secondary?: AccountRef;
}

/** A natural-key account no seller has seen before: `{brand: {domain}, operator: pc-<12 hex>.example}`. */
export function naturalAccount(brandDomain: string, hex: string): AccountRef {
  return { brand: { domain: brandDomain }, operator: `pc-${hex}.example` };
}

/**
 * Whether two new natural keys are two accounts: a seller may map several brands or operators to
 * one account (interface spec 2.5a names the reference, not the mapping), so what needs a second
 * account uses a second natural key only when sync_accounts showed two different account_ids for
 * two keys. `hex` gives fresh operator names, `key` the idempotency key of the sync.
 */
export async function probeDistinctKeys(
  call: (task: string, args: Record<string, unknown>) => Promise<TaskReply>,
  tasks: readonly string[],
  brandDomain: string,
  hex: (alias: string) => string,
  key: string,
): Promise<{ shown: boolean; note: string }> {
  if (!tasks.includes('sync_accounts')) return { shown: false, note: 'no sync_accounts to show that two natural keys are two accounts' };
  const keys = ['distinct_a', 'distinct_b'].map((alias) => naturalAccount(brandDomain, hex(alias)));
  const sync = await call('sync_accounts', { idempotency_key: key, accounts: keys.map((k) => ({ ...k, billing: 'operator' })) });
  const items = (sync.payload as { accounts?: Array<{ account_id?: unknown }> } | undefined)?.accounts;
  const ok = sync.ok && !sync.isError && !sync.failure;
  const ids = ok && Array.isArray(items) ? items.map((i) => i?.account_id) : [];
  if (ids.length === 2 && ids.every((id) => typeof id === 'string') && ids[0] !== ids[1])
    return { shown: true, note: 'sync_accounts gave two natural keys two account_ids' };
  return {
    shown: false,
    note: `two natural keys are not shown to be two accounts (sync_accounts: ${ok ? `account_ids ${JSON.stringify(ids).slice(0, 120)}` : (sync.error?.code ?? sync.failure?.kind ?? 'no answer')})`,
  };
}

function accounts(scope: TemplateScope): AccountsFact {
  return requireFact(scope, 'accounts') as AccountsFact;
}

function perCheck(scope: TemplateScope, alias: string, a: AccountsFact): AccountRef {
  const ref = naturalAccount(
    a.brand_domain,
    scope.random.alias('hex', `account:${alias}`, (r) => r.hex(12)),
  );
  return a.sandbox ? { ...ref, sandbox: true } : ref;
}

/** `{{account:<alias>}}`: the account of this check (one per alias in per-check mode). */
export const accountFunction: TemplateFunction = {
  needs: ['accounts'],
  resolve(alias, scope) {
    const a = accounts(scope);
    return a.mode === 'fixed' ? structuredClone(a.primary) : perCheck(scope, alias, a);
  },
};

/**
 * `{{account_if_known:<alias>}}`: the account of `{{account:<alias>}}` when the run has learnt how
 * to make one (the setup of a media-buy seller), else the member is left out (OMIT): tasks that
 * take an optional account (list_creative_formats, build_creative) on an agent of another kind.
 */
export const accountIfKnownFunction: TemplateFunction = {
  resolve(alias, scope) {
    return scope.fact?.('accounts') === undefined ? OMIT : accountFunction.resolve(alias, scope);
  },
};

/**
 * `{{account_or_natural:<alias>}}`: the account of `{{account:<alias>}}` when the run knows how to
 * make one, else a natural key of the harness's own test brand (`proto-comply.invalid`): tasks that
 * need an account (sync_creatives) on an agent that runs no media-buy setup.
 */
export const accountOrNaturalFunction: TemplateFunction = {
  resolve(alias, scope) {
    if (scope.fact?.('accounts') !== undefined) return accountFunction.resolve(alias, scope);
    return naturalAccount(
      'proto-comply.invalid',
      scope.random.alias('hex', `account:${alias}`, (r) => r.hex(12)),
    );
  },
};

/**
 * `{{sync_account:<alias>}}`: a sync_accounts item (interface spec 2.6: brand, operator, billing)
 * for a natural key no seller has seen, `operator` = `pc-{{hex:<alias>}}.example`, flagged
 * `sandbox: true` when the seller takes new natural keys only so.
 */
export const syncAccountFunction: TemplateFunction = {
  needs: ['accounts'],
  resolve(alias, scope) {
    const a = accounts(scope);
    const hex = scope.random.alias('hex', alias, (r) => r.hex(12));
    return { ...naturalAccount(a.brand_domain, hex), billing: 'operator', ...(a.sandbox ? { sandbox: true } : {}) };
  },
};

/** `{{other_account:<alias>}}`: a second account, distinct from `{{account:…}}`. */
export const otherAccountFunction: TemplateFunction = {
  needs: ['accounts'],
  resolve(alias, scope) {
    const a = accounts(scope);
    if (a.mode === 'per-check' && a.sandbox) {
      throw new TemplateGapError(
        'the check needs a second account, and the seller takes new natural keys only in its sandbox, where two keys need not be two accounts: give one as second_account in --fixtures (with account)',
        'second buyer account (--fixtures second_account)',
      );
    }
    if (a.mode === 'per-check' && !a.distinct_keys) {
      throw new TemplateGapError(
        'the check needs a second account, and two natural keys need not be two accounts (a seller may map several brands or operators to one); the seller did not show these are two (sync_accounts gave them no two account_ids): give one as second_account in --fixtures (with account)',
        'second buyer account (--fixtures second_account)',
      );
    }
    if (a.mode === 'per-check') return perCheck(scope, `other:${alias}`, a);
    if (!a.secondary) {
      throw new TemplateGapError(
        `the check needs a second account, and the seller accepts only accounts it knows (${a.source}): give one as second_account in --fixtures`,
        'second buyer account (--fixtures second_account)',
      );
    }
    return structuredClone(a.secondary);
  },
};

/** `{{sandbox_account:<alias>}}`: the account of `{{account:<alias>}}` flagged `sandbox: true`, as the test controller wants it (digest 4.6). */
export const sandboxAccountFunction: TemplateFunction = {
  needs: ['accounts'],
  resolve(alias, scope) {
    return { ...(accountFunction.resolve(alias, scope) as AccountRef), sandbox: true };
  },
};

/**
 * `{{buyer_brand:_}}`: the buyer's brand reference, `{domain}`, from the fixtures (`brand:`), else
 * the default test brand: the brand the setup account uses, for agents that run no media-buy setup
 * (a brand agent asked get_brand_identity).
 */
export const buyerBrandFunction: TemplateFunction = {
  resolve(_alias, scope) {
    return structuredClone(fixturesOf(scope).brand ?? { domain: DEFAULT_BRAND_DOMAIN });
  },
};
