/**
 * The seller's view of a buyer account: the id derived from who the buyer is (sync_accounts) and
 * the Account object media buys carry (account_id, name, status — required by the released 3.0
 * schemas), built from whichever reference the buyer sent: `{account_id}` or `{brand, operator}`.
 */
import { createHash } from 'node:crypto';

/** The account id of a brand bought by an operator for one principal: stable, so re-syncs find it. */
export function accountIdOf(principal: string, domain: string, operator: string): string {
  return `acc_${createHash('sha256').update(`${principal}|${domain.toLowerCase()}|${operator}`).digest('hex').slice(0, 16)}`;
}

export function accountName(domain: string, operator: string): string {
  return `${domain.toLowerCase()} (${operator})`;
}

/** The Account a media buy carries, for the reference the request named (undefined without one). */
export function accountView(principal: string, ref: unknown): Record<string, unknown> | undefined {
  if (typeof ref !== 'object' || ref === null) return undefined;
  const r = ref as { account_id?: unknown; brand?: { domain?: unknown }; operator?: unknown; sandbox?: unknown };
  const sandbox = r.sandbox === true ? { sandbox: true } : {};
  if (typeof r.account_id === 'string') return { account_id: r.account_id, name: r.account_id, status: 'active', ...sandbox };
  const domain = r.brand?.domain;
  if (typeof domain !== 'string' || typeof r.operator !== 'string') return undefined;
  return {
    account_id: accountIdOf(principal, domain, r.operator),
    name: accountName(domain, r.operator),
    brand: { domain: domain.toLowerCase() },
    operator: r.operator,
    status: 'active',
    ...sandbox,
  };
}

/** The account id a reference names (`{account_id}` as given, `{brand, operator}` derived), or undefined. */
export function accountIdOfRef(principal: string, ref: unknown): string | undefined {
  const view = accountView(principal, ref);
  return typeof view?.account_id === 'string' ? view.account_id : undefined;
}
