/**
 * The sync_* tasks (interface spec 4.3, records of 2.6): accounts, creatives, audiences, catalogs,
 * plus list_accounts. Each item is upserted per principal; the answer says per item whether it
 * was created, updated or unchanged.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { accountIdOf, accountName } from '../accounts.js';
import { invalidRequest } from '../errors.js';
import { isTerminal } from '../media-buy-record.js';
import type { SellerServices } from '../services.js';
import { type TaskDef, completed } from '../task-def.js';
import { paginate, paginationArg } from '../pagination.js';
import { accountRef, brandRef, formatId, httpUrl, taskSchema } from '../validation.js';
import { rehearseCreativeSync } from './sync-creatives-dry-run.js';
import { TaskFailure } from '../errors.js';
import { ACCOUNT_EVENT_TYPES, type NotificationConfig } from '../../webhooks/subscriptions.js';

type SyncAction = 'created' | 'updated' | 'unchanged';

/** Upserts one item; returns what happened to it. */
function upsert(s: SellerServices, kind: string, principal: string, account: string, id: string, value: unknown): SyncAction {
  const existing = s.records.get<unknown>(kind, principal, id);
  if (existing !== undefined && JSON.stringify(existing) === JSON.stringify(value)) return 'unchanged';
  s.records.put(kind, principal, id, account, value, s.clock.now());
  return existing === undefined ? 'created' : 'updated';
}

function uniqueIds(items: { [k: string]: unknown }[], idField: string, listField: string): void {
  const seen = new Set<unknown>();
  items.forEach((item, i) => {
    if (seen.has(item[idField])) throw invalidRequest(`${listField}[${i}].${idField}`, 'duplicate id in this request');
    seen.add(item[idField]);
  });
}

/** An account-level subscriber (released 3.1 core/notification-config.json). */
const notificationConfig = z.looseObject({
  subscriber_id: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/),
  url: z.string().min(1).max(2_048),
  event_types: z.array(z.string().min(1).max(64)).min(1).max(20),
  active: z.boolean().optional(),
});
const accountItem = z.looseObject({
  brand: brandRef,
  operator: z.string().min(1).max(255),
  billing: z.string().min(1).optional(),
  notification_configs: z.array(z.unknown()).max(20).optional(),
  sandbox: z.boolean().optional(),
});
const syncAccountsSchema = taskSchema({ accounts: z.array(accountItem).min(1).max(100) });
const listAccountsSchema = taskSchema({ status: z.string().optional(), pagination: paginationArg });

const asset = z.looseObject({
  asset_type: z.string().min(1),
  url: httpUrl.optional(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  duration_ms: z.number().int().positive().optional(),
});
const creativeItem = z.looseObject({
  creative_id: z.string().min(1).max(255),
  name: z.string().min(1).max(500),
  format_id: formatId,
  assets: z.record(z.string(), asset),
});
/** One creative-to-package assignment (released sync-creatives-request.json `assignments[]`). */
const assignmentItem = z.strictObject({
  creative_id: z.string().min(1).max(255),
  package_id: z.string().min(1).max(255),
  weight: z.number().min(0).max(100).optional(),
  placement_ids: z.array(z.string()).min(1).max(100).optional(),
});
const syncCreativesSchema = taskSchema({
  account: accountRef,
  creatives: z.array(creativeItem).min(1).max(100),
  assignments: z.array(assignmentItem).min(1).max(100).optional(),
  dry_run: z.boolean().optional(),
});

const audienceItem = z.looseObject({
  audience_id: z.string().min(1).max(255),
  name: z.string().min(1).max(500),
  audience_type: z.string().min(1).optional(),
});
const syncAudiencesSchema = taskSchema({ account: accountRef, audiences: z.array(audienceItem).min(1).max(100) });
/** Fault audience-without-id-accepted: the id is not required. */
const lenientAudiencesSchema = taskSchema({
  account: accountRef,
  audiences: z
    .array(audienceItem.extend({ audience_id: z.string().optional() }))
    .min(1)
    .max(100),
});

const catalogItem = z.looseObject({
  catalog_id: z.string().min(1).max(255),
  name: z.string().min(1).max(500),
  type: z.string().min(1),
  url: httpUrl,
  feed_format: z.string().min(1).optional(),
  update_frequency: z.string().min(1).optional(),
});
const syncCatalogsSchema = taskSchema({ account: accountRef, catalogs: z.array(catalogItem).min(1).max(100) });
/** Fault catalog-url-unchecked: any string is taken as the feed URL. */
const lenientCatalogsSchema = taskSchema({
  account: accountRef,
  catalogs: z
    .array(catalogItem.extend({ url: z.string() }))
    .min(1)
    .max(100),
});

export function syncTasks(s: SellerServices): TaskDef[] {
  const syncAccounts: TaskDef<z.infer<typeof syncAccountsSchema>> = {
    name: 'sync_accounts',
    description: 'Create or update buyer accounts (brand, operator, billing party).',
    idempotency: 'mutating',
    schema: syncAccountsSchema,
    async run({ args, caller }) {
      const results = args.accounts.map((a) => {
        const domain = a.brand.domain.toLowerCase();
        const accountId = accountIdOf(caller.principal, domain, a.operator);
        const record = {
          account_id: accountId,
          name: accountName(domain, a.operator),
          brand: { domain },
          operator: a.operator,
          billing: a.billing ?? 'operator',
          status: 'active',
          // A sandbox account only when asked for (sync_accounts item sandbox: true); the test controller refuses the others.
          sandbox: a.sandbox === true,
        };
        const action = upsert(s, 'account', caller.principal, `id:${accountId}`, accountId, record);
        if (s.faults.has('sync-accounts-status-invented')) return { ...record, status: 'ok', action };
        if (s.faults.has('sync-accounts-no-status')) {
          const { status: _status, ...bare } = record;
          return { ...bare, action };
        }
        return { ...record, action };
      });
      const accounts = [];
      for (const [i, a] of args.accounts.entries()) accounts.push(await withSubscribers(a.notification_configs, results[i]!, i, caller));
      return completed({ accounts });
    },
  };

  /**
   * 3.1 `notification_configs[]` of one account entry: validated, each new active subscriber proven
   * (signed activation challenge), then the set replaced and echoed; any failure fails the entry
   * and leaves the previous set. A 3.0 seller knows no such member and ignores it.
   */
  async function withSubscribers(
    sent: unknown[] | undefined,
    result: Record<string, unknown>,
    i: number,
    caller: { principal: string; transport: string },
  ): Promise<Record<string, unknown>> {
    if (sent === undefined || s.protocolLine === '3.0') return result;
    const accountId = String(result.account_id);
    const failed = (code: string, field: string, message: string) => ({
      ...result,
      action: 'failed',
      errors: [{ code, message: `${field}: ${message}`, field }],
    });
    const configs: NotificationConfig[] = [];
    for (const [j, raw] of sent.entries()) {
      const field = `accounts[${i}].notification_configs[${j}]`;
      const parsed = notificationConfig.safeParse(raw);
      if (!parsed.success) return failed('INVALID_REQUEST', field, 'not a notification config {subscriber_id, url, event_types[], active?}');
      const bad = parsed.data.event_types.findIndex((t) => !ACCOUNT_EVENT_TYPES.has(t));
      if (bad >= 0) return failed('INVALID_REQUEST', `${field}.event_types[${bad}]`, 'not an account-anchored notification type');
      if (configs.some((c) => c.subscriber_id === parsed.data.subscriber_id))
        return failed('INVALID_REQUEST', `${field}.subscriber_id`, 'duplicate subscriber_id');
      try {
        await s.webhooks.admitRegistration({ url: parsed.data.url }, `${field}`, caller.principal);
      } catch (err) {
        if (err instanceof TaskFailure) return failed('INVALID_REQUEST', `${field}.url`, err.message.replace(`${field}.url: `, ''));
        throw err;
      }
      const { subscriber_id, url, event_types } = parsed.data;
      configs.push({ subscriber_id, url, event_types: [...new Set(event_types)], active: parsed.data.active ?? true });
    }
    const unproven = await s.webhooks.subscribers.replace(caller.principal, accountId, configs, s.webhooks.agentUrl(caller.transport));
    if (unproven !== undefined)
      return failed('VALIDATION_ERROR', `accounts[${i}].notification_configs[${unproven}].url`, 'the endpoint did not prove control (activation challenge)');
    return { ...result, notification_configs: s.webhooks.subscribers.list(caller.principal, accountId) };
  }

  const listAccounts: TaskDef<z.infer<typeof listAccountsSchema>> = {
    name: 'list_accounts',
    description: 'List the accounts (active relationships) of the calling principal.',
    idempotency: 'read',
    schema: listAccountsSchema,
    run({ args, caller }) {
      let accounts = s.faults.has('list-accounts-forgets-synced') ? [] : s.records.list<{ status: string }>('account', caller.principal);
      if (args.status) accounts = accounts.filter((a) => a.status === args.status);
      const page = paginate(accounts, args.pagination);
      return completed({ accounts: page.items, pagination: page.pagination });
    },
  };

  /**
   * Assigns synced creatives to packages of the account's buys; returns per creative the packages
   * it now serves (`assigned_to`) and the packages it could not be assigned to (`assignment_errors`).
   * An assignment made here does not touch the buy's revision (digest 4.5: no shared fence between
   * sync and control).
   */
  function assign(assignments: z.infer<typeof assignmentItem>[], principal: string, accountKey: string) {
    const buys = s.mediaBuys.list(principal, accountKey);
    const results = new Map<string, { assigned_to: string[]; assignment_errors: Record<string, string> }>();
    for (const [i, a] of assignments.entries()) {
      if (s.records.get<unknown>('creative', principal, a.creative_id) === undefined)
        throw invalidRequest(`assignments[${i}].creative_id`, `unknown creative ${JSON.stringify(a.creative_id)}`);
      const result = results.get(a.creative_id) ?? { assigned_to: [], assignment_errors: {} };
      results.set(a.creative_id, result);
      const buy = buys.find((b) => b.packages.some((p) => p.package_id === a.package_id));
      const pkg = buy?.packages.find((p) => p.package_id === a.package_id);
      if (!buy || !pkg || isTerminal(buy.status)) {
        result.assignment_errors[a.package_id] = buy ? 'the media buy is no longer open' : 'no such package in this account';
        continue;
      }
      pkg.creative_ids = [...new Set([...(pkg.creative_ids ?? []), a.creative_id])];
      // Fault revision-incremented-on-sync-assignment: the assignment bumps the buy's revision.
      if (s.faults.has('revision-incremented-on-sync-assignment')) buy.revision += 1;
      s.mediaBuys.save(buy);
      // A buy awaiting creatives now has one (digest 4.2: pending_creatives -> pending_start).
      s.mediaBuys.creativesAssigned(buy);
      result.assigned_to.push(a.package_id);
    }
    return results;
  }

  const syncCreatives: TaskDef<z.infer<typeof syncCreativesSchema>> = {
    name: 'sync_creatives',
    description: 'Upload or update creatives (format, assets) into the creative library of an account.',
    idempotency: s.faults.has('sync-creatives-not-idempotent') ? 'exempt' : 'mutating',
    schema: syncCreativesSchema,
    run({ args, caller, accountKey }) {
      uniqueIds(args.creatives, 'creative_id', 'creatives');
      if (s.faults.has('sync-creatives-refuses-all')) throw invalidRequest('creatives', 'the creative library accepts no creative');
      if (args.dry_run === true) return completed(rehearseCreativeSync(s, args, caller.principal, accountKey));
      const creatives = args.creatives.map((c, i) => {
        if (!s.catalog.format(c.format_id.id) && !s.faults.has('sync-creatives-unknown-format-accepted'))
          throw invalidRequest(`creatives[${i}].format_id.id`, `unknown format ${JSON.stringify(c.format_id.id)}`);
        const action = upsert(s, 'creative', caller.principal, accountKey, c.creative_id, { ...c, account_key: accountKey });
        return { creative_id: c.creative_id, action, status: 'approved' };
      });
      if (!args.assignments) return completed({ creatives });
      const assigned = assign(args.assignments, caller.principal, accountKey);
      const shown = creatives.map((c) => {
        const r = assigned.get(c.creative_id);
        if (!r) return c;
        return { ...c, assigned_to: r.assigned_to, ...(Object.keys(r.assignment_errors).length ? { assignment_errors: r.assignment_errors } : {}) };
      });
      return completed({ creatives: shown });
    },
  };

  const syncAudiences: TaskDef<z.infer<typeof lenientAudiencesSchema>> = {
    name: 'sync_audiences',
    description: 'Create or update first-party audiences (e.g. suppression lists) for an account.',
    idempotency: 'mutating',
    schema: s.faults.has('audience-without-id-accepted') ? lenientAudiencesSchema : syncAudiencesSchema,
    run({ args, caller, accountKey }) {
      if (s.faults.has('audiences-refused')) throw invalidRequest('audiences', 'audiences are not accepted on this account');
      uniqueIds(args.audiences, 'audience_id', 'audiences');
      const audiences = args.audiences
        .map((a) => ({ ...a, audience_id: a.audience_id ?? `aud_${randomUUID().slice(0, 8)}` }))
        .map((a) => ({
          audience_id: a.audience_id,
          action: upsert(s, 'audience', caller.principal, accountKey, a.audience_id, { ...a, account_key: accountKey }),
          // The released 3.0 audience states are processing, ready and too_small.
          status: 'ready',
        }));
      return completed({ audiences });
    },
  };

  const syncCatalogs: TaskDef<z.infer<typeof syncCatalogsSchema>> = {
    name: 'sync_catalogs',
    description: 'Register or update product catalogs (feed URL, format, update frequency) for an account.',
    idempotency: 'mutating',
    schema: s.faults.has('catalog-url-unchecked') ? lenientCatalogsSchema : syncCatalogsSchema,
    run({ args, caller, accountKey }) {
      if (s.faults.has('catalogs-refused')) throw invalidRequest('catalogs', 'catalogs are not accepted on this account');
      uniqueIds(args.catalogs, 'catalog_id', 'catalogs');
      const catalogs = args.catalogs.map((c) => ({
        catalog_id: c.catalog_id,
        action: upsert(s, 'catalog', caller.principal, accountKey, c.catalog_id, { ...c, account_key: accountKey }),
        status: 'active',
        // The sandbox never fetches the feed: it holds no items yet (3.0 requires the count on every synced catalog).
        item_count: 0,
      }));
      return completed({ catalogs });
    },
  };

  return [syncAccounts, listAccounts, syncCreatives, syncAudiences, syncCatalogs];
}
