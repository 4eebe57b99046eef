/**
 * What the fuzzer needs from the agent before a property runs, found the way the setup suite
 * finds it (suites/setup): the fixtures' account, or a new natural-key account (flagged sandbox if
 * the seller wants that), or one list_accounts offers; the product and pricing option chosen by
 * the setup suite's chooseProduct; and, when a planned check may involve one, a media buy of the
 * run. Accounts are new for every run (the run nonce), so fuzzing a long-lived seller twice starts
 * from the same place.
 */
import { naturalAccount, probeDistinctKeys } from '../core/fixtures/accounts.js';
import { DEFAULT_BRAND_DOMAIN, DEFAULT_BRIEF, type Fixtures } from '../core/fixtures/fixtures.js';
import { chooseProduct } from '../core/fixtures/products.js';
import type { Transport, TaskReply } from '../core/transport/types.js';
import { replyProblem, short } from './judge.js';

export interface FuzzState {
  tasks: string[];
  brand: { domain: string };
  account?: Record<string, unknown>;
  product?: { product_id: string; pricing_option_id: string; currency?: string; min_budget?: number };
  mediaBuy?: { media_buy_id: string };
  /** The account is a natural key outside a sandbox, and sync_accounts showed two natural keys are two accounts. */
  distinctKeys?: true;
  /** Why the agent could not be used at all (unreachable, refused). */
  unreachable?: string;
  notes: string[];
}

const accepted = (r: TaskReply) => !r.failure && !r.isError;

/**
 * `needsMediaBuy`: whether a planned check may involve the run's media buy (run.ts); without one,
 * none is created (a buy on a real seller that nothing of the run would use).
 */
export async function findFuzzState(transport: Transport, fixtures: Fixtures, nonce: string, signal: AbortSignal, needsMediaBuy = true): Promise<FuzzState> {
  const brand = fixtures.brand ?? { domain: DEFAULT_BRAND_DOMAIN };
  const notes: string[] = [];
  const opened = await transport.open(signal);
  if (opened.failure) return { tasks: [], brand, notes, unreachable: `${transport.kind}: ${opened.failure.message}` };
  const listed = await transport.listTasks(signal);
  if (listed.failure) return { tasks: [], brand, notes, unreachable: `${transport.kind}: listing tasks failed: ${listed.failure.message}` };
  const tasks = listed.names;
  const products = (account: Record<string, unknown>) =>
    transport.call('get_products', { buying_mode: 'brief', brief: fixtures.brief ?? DEFAULT_BRIEF, brand, account }, { signal });

  let account: Record<string, unknown> | undefined;
  let offer: TaskReply | undefined;
  const candidates: Array<[string, () => Promise<Record<string, unknown> | undefined>]> = [];
  if (fixtures.account) candidates.push(['the fixtures account', async () => fixtures.account as unknown as Record<string, unknown>]);
  else {
    const natural = naturalAccount(brand.domain, nonce.slice(0, 12)) as unknown as Record<string, unknown>;
    candidates.push(
      ['a new natural-key account', async () => natural],
      ['a new natural-key account flagged sandbox', async () => ({ ...natural, sandbox: true })],
    );
    if (tasks.includes('list_accounts')) {
      candidates.push([
        'an account from list_accounts',
        async () => {
          const list = await transport.call('list_accounts', {}, { signal });
          const first = (list.payload as { accounts?: Array<{ account_id?: unknown; status?: unknown }> })?.accounts?.find(
            (a) => typeof a?.account_id === 'string' && (a.status === undefined || a.status === 'active'),
          );
          return first ? { account_id: first.account_id } : undefined;
        },
      ]);
    }
  }
  if (!tasks.includes('get_products')) {
    account = await candidates[0]?.[1]();
    notes.push('the agent lists no get_products: the account is not verified');
  } else {
    for (const [what, make] of candidates) {
      const candidate = await make();
      if (!candidate) continue;
      const reply = await products(candidate);
      const problem = replyProblem(reply);
      if (problem && reply.failure?.kind !== 'http_status') return { tasks, brand, notes, unreachable: `${transport.kind}: get_products: ${problem}` };
      if (accepted(reply)) {
        account = candidate;
        offer = reply;
        notes.push(`account: ${what}`);
        break;
      }
      notes.push(`${what} refused: ${reply.error?.code ?? problem ?? short(reply.payload, 80)}`);
    }
  }
  let distinctKeys: FuzzState['distinctKeys'];
  if (account && !fixtures.account && account.sandbox !== true && typeof account.operator === 'string') {
    const probe = await probeDistinctKeys(
      (task, args) => transport.call(task, args, { signal }),
      tasks,
      brand.domain,
      (alias) => `${nonce.slice(0, 8)}${alias === 'distinct_a' ? 'a' : 'b'}${nonce.slice(8, 11)}`,
      `${nonce.slice(0, 8)}-0000-4000-9000-${transport.kind === 'mcp' ? '0' : '1'}${nonce.slice(8, 19)}`,
    );
    if (probe.shown) distinctKeys = true;
    notes.push(probe.note);
  }
  let product: FuzzState['product'];
  if (offer) {
    const choice = chooseProduct(offer.payload, fixtures);
    if (choice.ok) {
      product = {
        product_id: choice.product.product_id,
        pricing_option_id: choice.product.pricing_option_id,
        currency: choice.product.currency,
        min_budget: choice.product.budget,
      };
      notes.push(`product: ${choice.how}`);
    } else notes.push(`no product: ${choice.message}`);
  }
  let mediaBuy: FuzzState['mediaBuy'];
  if (needsMediaBuy && account && product && tasks.includes('create_media_buy')) {
    const reply = await transport.call(
      'create_media_buy',
      {
        idempotency_key: `${nonce.slice(0, 8)}-0000-4000-8000-${transport.kind === 'mcp' ? '0' : '1'}${nonce.slice(8, 19)}`,
        account,
        brand,
        start_time: 'asap',
        end_time: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        packages: [{ product_id: product.product_id, pricing_option_id: product.pricing_option_id, budget: product.min_budget ?? 1000 }],
      },
      { signal },
    );
    const id = (reply.payload as { media_buy_id?: unknown } | undefined)?.media_buy_id;
    if (accepted(reply) && typeof id === 'string') mediaBuy = { media_buy_id: id };
    else notes.push(`no media buy to update: create_media_buy answered ${reply.error?.code ?? replyProblem(reply) ?? short(reply.payload, 80)}`);
  }
  return { tasks, brand, account, product, mediaBuy, ...(distinctKeys ? { distinctKeys } : {}), notes };
}
