/** What the passive audit's rule sets share: bounded memory, media-buy task and status sets, accounts. */
import canonicalize from 'canonicalize';
import { isObject } from '../core/transport/jsonrpc.js';
import type { WireExchange } from '../core/transport/types.js';

export const MEDIA_BUY_TASKS = new Set(['create_media_buy', 'update_media_buy']);

/**
 * The mutating tasks: those whose arguments name `idempotency_key` in interface spec 4.3 (the
 * read get_media_buys aside), and update_media_buy (4.4 rule 1: every mutating request).
 */
export const MUTATING = new Set([
  'create_media_buy',
  'update_media_buy',
  'sync_accounts',
  'build_creative',
  'sync_creatives',
  'sync_audiences',
  'activate_signal',
  'log_event',
  'provide_performance_feedback',
  'sync_catalogs',
]);
/** The idempotency key format (digest 3.1 for requests, 5.2 for webhooks; fixtures/schemas `$defs/idempotencyKey`). */
export const KEY_FORMAT = /^[A-Za-z0-9_.:-]{16,255}$/;
/** A UUID v4, the key buyers and sellers are asked to use (interface spec 4.4 rule 1, 6.1). */
export const UUID_V4 = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;

export const TERMINAL = new Set(['completed', 'canceled', 'rejected']);

/** What the audit remembers is bounded (a proxy may run for days): the oldest entries go first. */
export const MAX_REMEMBERED = 20_000;

export function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

export type ActionRow = { include?: string[]; exclude?: string[]; exactly?: string[] };

/** An account as the controller and the buyer's calls both name it (the controller's carries `sandbox: true`). */
export function accountOf(account: unknown): string {
  if (!isObject(account)) return canonicalize(account ?? null) ?? '';
  const { sandbox: _s, ...rest } = account;
  return canonicalize(rest) ?? '';
}

/** One judgement of one rule on observed traffic, with the exchanges that show it. */
export interface Verdict {
  checkId: string;
  ok: boolean;
  message: string;
  exchanges: WireExchange[];
  expected?: unknown;
  actual?: unknown;
}

/** A request's payload as idempotency compares it: all but the closed exclusion list of digest 3.3 (key, context, governance_context, push credential value). */
export function requestHash(args: Record<string, unknown>): string {
  const { context: _c, idempotency_key: _k, governance_context: _g, ...rest } = args;
  // Of the push registration only the credential value is left out (digest 3.3): the URL and scheme stay.
  const push = rest.push_notification_config;
  if (isObject(push) && isObject(push.authentication) && 'credentials' in push.authentication) {
    const { credentials: _cr, ...authentication } = push.authentication;
    rest.push_notification_config = { ...push, authentication };
  }
  return canonicalize(rest) ?? '';
}
