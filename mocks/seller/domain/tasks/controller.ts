/**
 * comply_test_controller (digest 4.6), the sandbox test controller: forces media-buy states under
 * production rules, simulates delivery, shapes the next create_media_buy, completes async tasks,
 * and advances the seller's clock. Controller failures are answered as `{success: false, error}`
 * payloads, never as task errors.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { ANY_ACCOUNT, NON_TERMINAL_TASK_STATUSES } from '../async-tasks.js';
import { MEDIA_BUY_STATUSES, PENDING_STATUSES, isTerminal, round2 } from '../media-buy-record.js';
import type { SellerServices } from '../services.js';
import { accountIdOfRef } from '../accounts.js';
import { invalidRequest } from '../errors.js';
import { type CallerContext, type TaskDef, type TaskPayload, completed } from '../task-def.js';
import { accountKeyOf, fieldPath, taskSchema } from '../validation.js';
import { SEED_SCENARIOS, controllerSeeds, seedParamSchemas } from './controller-seeds.js';
import { EXTENSION_SCENARIOS, type ExtensionScenario, type SpecScenario } from '../../../../harness/core/protocol/controller-scenarios.js';

/** The scenarios the mock implements: those the spec defines that it supports, and its two extensions (harness/core/protocol/controller-scenarios.ts). */
export const CONTROLLER_SCENARIOS = [
  'force_media_buy_status',
  'force_account_status',
  'force_creative_status',
  'force_creative_purge',
  'force_session_status',
  'query_provenance_audit_observations',
  'simulate_delivery',
  'simulate_budget_spend',
  'force_create_media_buy_arm',
  'force_get_products_arm',
  'force_get_signals_arm',
  'query_upstream_traffic',
  'force_task_completion',
  ...SEED_SCENARIOS,
  ...EXTENSION_SCENARIOS,
] as const satisfies readonly (SpecScenario | ExtensionScenario)[];

/** Impairment categories the sandbox can simulate (interface spec 6.4 examples; fraud and brand safety are latency-sensitive). */
export const IMPAIRMENT_CATEGORIES = ['audience_suspended', 'creative_revoked', 'catalog_unavailable', 'fraud', 'brand_safety'] as const;

/**
 * Faults under which the controller lists a scenario yet refuses the parameters digest 4.6 gives
 * it with INVALID_PARAMS (a scenario the mock does not implement is then listed too), one per
 * controller.params.* check.
 */
export const PARAMS_REFUSED_FAULTS = {
  'account-status-params-refused': 'force_account_status',
  'creative-status-params-refused': 'force_creative_status',
  'budget-spend-params-refused': 'simulate_budget_spend',
  'creative-purge-params-refused': 'force_creative_purge',
  'session-status-params-refused': 'force_session_status',
  'provenance-audit-params-refused': 'query_provenance_audit_observations',
  'products-arm-params-refused': 'force_get_products_arm',
  'signals-arm-params-refused': 'force_get_signals_arm',
  'upstream-traffic-params-refused': 'query_upstream_traffic',
} as const satisfies Record<string, SpecScenario>;

/** The session start query_upstream_traffic defaults since_timestamp to: this process's start. */
const STARTED_AT = new Date().toISOString();
const MAX_RESULT_BYTES = 256 * 1024;
const TEN_YEARS_S = 10 * 366 * 86_400;

const schema = taskSchema({
  scenario: z.string().min(1).max(100),
  params: z.record(z.string(), z.unknown()).optional(),
  // Required from 3.1 (digest 4.6); a 3.0 call has no account member.
  account: z.looseObject({ sandbox: z.boolean().optional() }).optional(),
});
type ControllerArgs = z.infer<typeof schema>;

const paramSchemas = {
  ...seedParamSchemas,
  force_media_buy_status: z.looseObject({
    media_buy_id: z.string().min(1),
    status: z.enum(MEDIA_BUY_STATUSES),
    rejection_reason: z.string().max(2_000).optional(),
  }),
  simulate_delivery: z.looseObject({
    media_buy_id: z.string().min(1),
    impressions: z.number().int().min(0).max(1e12).optional(),
    clicks: z.number().int().min(0).max(1e12).optional(),
    reported_spend: z.looseObject({ amount: z.number().min(0).max(1e12), currency: z.string().length(3) }).optional(),
  }),
  force_create_media_buy_arm: z.looseObject({
    arm: z.enum(['submitted', 'input-required']),
    task_id: z.string().min(1).max(255).optional(),
    message: z.string().max(2_000).optional(),
  }),
  simulate_budget_spend: z
    .looseObject({ media_buy_id: z.string().min(1).optional(), account_id: z.string().min(1).optional(), spend_percentage: z.number().min(0).max(100) })
    .refine((p) => p.media_buy_id !== undefined || p.account_id !== undefined, 'media_buy_id or account_id is required'),
  force_creative_purge: z.looseObject({ creative_id: z.string().min(1), purge_kind: z.string().max(100).optional() }),
  force_session_status: z.looseObject({
    session_id: z.string().min(1),
    status: z.enum(['complete', 'terminated']),
    termination_reason: z.string().max(2_000).optional(),
  }),
  query_provenance_audit_observations: z.looseObject({ creative_id: z.string().min(1) }),
  // 3.1 request schema: v1 forces only the submitted arm of get_products / get_signals, with a task_id.
  force_get_products_arm: z.looseObject({
    arm: z.literal('submitted'),
    task_id: z.string().min(1).max(255),
    message: z.string().max(2_000).optional(),
    reason: z.string().max(2_000).optional(),
    suggestions: z.array(z.unknown()).max(50).optional(),
  }),
  force_get_signals_arm: z.looseObject({ arm: z.literal('submitted'), task_id: z.string().min(1).max(255), message: z.string().max(2_000).optional() }),
  query_upstream_traffic: z.looseObject({
    since_timestamp: z.iso.datetime({ offset: true }).optional(),
    endpoint_pattern: z.string().max(2_000).optional(),
    limit: z.number().int().min(1).max(1_000).optional(),
    attestation_mode: z.enum(['raw', 'digest']).optional(),
    identifier_value_digests: z
      .array(z.string().regex(/^[a-f0-9]{64}$/))
      .max(64)
      .optional(),
  }),
  force_task_completion: z.looseObject({ task_id: z.string().min(1), result: z.record(z.string(), z.unknown()) }),
  advance_clock: z.looseObject({ seconds: z.number().positive().max(TEN_YEARS_S) }),
  simulate_impairment: z.looseObject({
    media_buy_id: z.string().min(1),
    category: z.enum(IMPAIRMENT_CATEGORIES).optional(),
    /** Several impairments at the same instant (near-simultaneous state changes, interface spec 6.5 rule 9). */
    categories: z.array(z.enum(IMPAIRMENT_CATEGORIES)).min(1).max(10).optional(),
    resource_id: z.string().min(1).max(255).optional(),
    reason: z.string().max(2_000).optional(),
  }),
};

const fail = (error: string, detail: string, extra: TaskPayload = {}) => ({ success: false, error, error_detail: detail, ...extra });

export function controllerTask(s: SellerServices): TaskDef<ControllerArgs> {
  const seeds = controllerSeeds(s, fail);
  /** An account this seller holds as not a sandbox account (synced without sandbox: true). */
  function isNonSandbox(caller: CallerContext, accountId: unknown): boolean {
    if (typeof accountId !== 'string') return false;
    return s.records.get<{ sandbox?: unknown }>('account', caller.principal, accountId)?.sandbox === false;
  }

  function forceStatus(caller: CallerContext, p: z.infer<typeof paramSchemas.force_media_buy_status>): TaskPayload {
    const buy = s.mediaBuys.find(caller.principal, p.media_buy_id);
    if (!buy) return fail('NOT_FOUND', `media buy ${JSON.stringify(p.media_buy_id)} not found`);
    const previous = buy.status;
    if (p.status === previous) {
      // The buggy controller refuses to force the state a buy is already in (digest 4.6: force_* is idempotent).
      if (s.faults.has('force-same-state-refused')) return fail('INVALID_TRANSITION', `media buy is already ${previous}`, { current_state: previous });
      return { success: true, previous_state: previous, current_state: previous };
    }
    if (isTerminal(previous) && !s.faults.has('controller-leaves-terminal')) {
      return fail('INVALID_TRANSITION', `${previous} is terminal and cannot be left`, { current_state: previous });
    }
    if (p.status === 'rejected' && !PENDING_STATUSES.has(previous) && !s.faults.has('controller-rejects-active')) {
      return fail('INVALID_TRANSITION', `only a pending buy can be rejected; this one is ${previous}`, { current_state: previous });
    }
    if (previous === 'pending_start' && p.status === 'active' && s.faults.has('controller-start-ignored')) {
      return { success: true, previous_state: previous, current_state: 'active' };
    }
    if (p.status === 'canceled') buy.cancellation = { canceled_at: s.clock.iso(s.mediaBuys.clockScope(buy)), canceled_by: 'seller' };
    if (p.status === 'rejected') buy.rejection_reason = p.rejection_reason ?? 'rejected by the seller';
    if (!PENDING_STATUSES.has(p.status)) buy.hold = false;
    s.mediaBuys.setStatus(buy, p.status, 'controller');
    return { success: true, previous_state: previous, current_state: p.status };
  }

  function simulateDelivery(caller: CallerContext, p: z.infer<typeof paramSchemas.simulate_delivery>): TaskPayload {
    const buy = s.mediaBuys.find(caller.principal, p.media_buy_id);
    if (!buy) return fail('NOT_FOUND', `media buy ${JSON.stringify(p.media_buy_id)} not found`);
    const impressions = p.impressions ?? 0;
    const clicks = p.clicks ?? 0;
    const budget = buy.packages.reduce((sum, pkg) => sum + pkg.budget, 0);
    let spendTotal = 0;
    let impLeft = impressions;
    let clickLeft = clicks;
    buy.packages.forEach((pkg, i) => {
      const last = i === buy.packages.length - 1;
      const share = budget > 0 ? pkg.budget / budget : 1 / buy.packages.length;
      const imp = last ? impLeft : Math.floor(impressions * share);
      const clk = last ? clickLeft : Math.floor(clicks * share);
      impLeft -= imp;
      clickLeft -= clk;
      const price = s.catalog.product(pkg.product_id)?.pricing_options.find((o) => o.pricing_option_id === pkg.pricing_option_id)?.fixed_price ?? 0;
      const spend = p.reported_spend ? p.reported_spend.amount * share : (imp / 1000) * price;
      pkg.delivery.impressions += imp;
      pkg.delivery.clicks += clk;
      pkg.delivery.spend = round2(pkg.delivery.spend + spend);
      spendTotal += spend;
    });
    s.mediaBuys.save(buy);
    const simulated = { impressions, clicks, spend: round2(spendTotal) };
    s.events.emit('delivery.simulated', { media_buy: buy, simulated, at: buy.updated_at });
    const cumulative = buy.packages.reduce(
      (acc, pkg) => ({
        impressions: acc.impressions + pkg.delivery.impressions,
        clicks: acc.clicks + pkg.delivery.clicks,
        spend: acc.spend + pkg.delivery.spend,
      }),
      { impressions: 0, clicks: 0, spend: 0 },
    );
    const money = (amount: number) => ({ amount: round2(amount), currency: buy.currency });
    return {
      success: true,
      simulated: { impressions, clicks, reported_spend: money(spendTotal) },
      cumulative: { impressions: cumulative.impressions, clicks: cumulative.clicks, reported_spend: money(cumulative.spend) },
    };
  }

  /** simulate_budget_spend: each package of the buy (or of every buy of the account) has spent this share of its budget, replacing what it had. */
  function simulateBudgetSpend(caller: CallerContext, p: z.infer<typeof paramSchemas.simulate_budget_spend>): TaskPayload {
    const buys = p.media_buy_id
      ? [s.mediaBuys.find(caller.principal, p.media_buy_id)].filter((b) => b !== undefined)
      : s.mediaBuys.list(caller.principal).filter((b) => accountIdOfRef(caller.principal, b.account) === p.account_id);
    if (buys.length === 0)
      return fail(
        'NOT_FOUND',
        p.media_buy_id ? `media buy ${JSON.stringify(p.media_buy_id)} not found` : `account ${JSON.stringify(p.account_id)} has no media buys`,
      );
    let spend = 0;
    for (const buy of buys) {
      for (const pkg of buy.packages) {
        pkg.delivery.spend = round2((pkg.budget * p.spend_percentage) / 100);
        spend += pkg.delivery.spend;
      }
      s.mediaBuys.save(buy);
    }
    const currency = buys[0].currency;
    return { success: true, simulated: { spend_percentage: p.spend_percentage, reported_spend: { amount: round2(spend), currency } } };
  }

  function forceArm(caller: CallerContext, account: unknown, p: z.infer<typeof paramSchemas.force_create_media_buy_arm>): TaskPayload {
    if (p.arm === 'submitted' && !p.task_id) return fail('INVALID_PARAMS', 'params.task_id is required for arm "submitted"');
    s.asyncTasks.setArm(caller.principal, {
      arm: p.arm,
      ...(p.task_id ? { task_id: p.task_id } : {}),
      ...(p.message ? { message: p.message } : {}),
      account_key: accountKeyOf(account) || ANY_ACCOUNT,
    });
    return { success: true, forced: { arm: p.arm, ...(p.task_id ? { task_id: p.task_id } : {}) } };
  }

  function completeTask(caller: CallerContext, p: z.infer<typeof paramSchemas.force_task_completion>): TaskPayload {
    if (Buffer.byteLength(JSON.stringify(p.result)) > MAX_RESULT_BYTES) return fail('INVALID_PARAMS', 'params.result exceeds 256 KB');
    const task = s.asyncTasks.find(caller.principal, p.task_id);
    if (!task) return fail('NOT_FOUND', `task ${JSON.stringify(p.task_id)} not found`);
    if (task.status === 'completed' && isDeepStrictEqual(task.result, p.result)) {
      // The buggy controller refuses the identical replay (digest 4.6, 3.2: a no-op).
      if (s.faults.has('completion-replay-refused')) return fail('INVALID_TRANSITION', 'task is completed', { current_state: 'completed' });
      return { success: true, previous_state: 'completed', current_state: 'completed' };
    }
    // The buggy controller lets another result replace a completed task's (digest 4.6: INVALID_TRANSITION).
    if (!NON_TERMINAL_TASK_STATUSES.has(task.status) && !(task.status === 'completed' && s.faults.has('completion-different-result-accepted'))) {
      return fail('INVALID_TRANSITION', `task is ${task.status}; a different result cannot be applied`, { current_state: task.status });
    }
    const previous = task.status;
    s.asyncTasks.transition(task, 'completed', p.result);
    return { success: true, previous_state: previous, current_state: 'completed' };
  }

  /** Sandbox extension: an impairment on a live buy, pushed (coalesced) on its persistent webhook channels. */
  function simulateImpairment(caller: CallerContext, p: z.infer<typeof paramSchemas.simulate_impairment>): TaskPayload {
    const buy = s.mediaBuys.find(caller.principal, p.media_buy_id);
    if (!buy) return fail('NOT_FOUND', `media buy ${JSON.stringify(p.media_buy_id)} not found`);
    if (isTerminal(buy.status)) return fail('INVALID_STATE', `media buy is ${buy.status}; a terminated buy has no impairments`, { current_state: buy.status });
    const detectedAt = s.clock.iso(s.mediaBuys.clockScope(buy));
    const impairments = (p.categories ?? [p.category ?? 'creative_revoked']).map((category) => ({
      impairment_id: `imp_${randomUUID().slice(0, 8)}`,
      category,
      ...(p.resource_id ? { resource_id: p.resource_id } : {}),
      reason: p.reason ?? 'simulated by the sandbox test controller',
      detected_at: detectedAt,
    }));
    for (const impairment of impairments) s.webhooks.addImpairment(buy, impairment);
    return { success: true, simulated: { impairments } };
  }

  return {
    name: 'comply_test_controller',
    description: 'Sandbox test controller: force states, simulate delivery, shape async answers, advance the clock.',
    idempotency: 'exempt',
    schema,
    run({ args, caller }) {
      // A 3.0 call has no account member, so a seller that also speaks 3.0 takes one without it, or
      // without its sandbox flag (the sandbox deployment is the scope); a 3.2-only seller requires both.
      const speaks30 = s.protocolLine !== '3.2';
      if (args.account === undefined && !speaks30) {
        return completed(fail('INVALID_PARAMS', 'account is required ({sandbox: true}) on this protocol line'));
      }
      if (args.account !== undefined && args.account.sandbox !== true && !(speaks30 && args.account.sandbox === undefined)) {
        return completed(fail('FORBIDDEN', 'the test controller only operates on sandbox accounts (account.sandbox: true)'));
      }
      // The buggy controller lists a scenario and refuses the parameters the spec gives it.
      const refusing = Object.entries(PARAMS_REFUSED_FAULTS)
        .filter(([fault]) => s.faults.has(fault))
        .map(([, scenario]) => scenario as string);
      // The seller checks its own records (digest 4.6): an account it holds as non-sandbox is FORBIDDEN,
      // named as the call's account or in its params.
      const accountRef = args.account as { account_id?: unknown } | undefined;
      if (isNonSandbox(caller, accountRef?.account_id) && !s.faults.has('non-sandbox-account-served')) {
        return completed(fail('FORBIDDEN', 'the account named is not a sandbox account'));
      }
      if (isNonSandbox(caller, args.params?.account_id) && !s.faults.has('non-sandbox-params-served')) {
        return completed(fail('FORBIDDEN', 'params.account_id names an account that is not a sandbox account'));
      }
      if (args.scenario === 'list_scenarios') {
        const listed = s.faults.has('list-scenarios-incomplete') ? CONTROLLER_SCENARIOS.filter((x) => x !== 'force_media_buy_status') : CONTROLLER_SCENARIOS;
        return completed({ success: true, scenarios: [...new Set([...listed, ...refusing])] });
      }
      if (refusing.includes(args.scenario)) return completed(fail('INVALID_PARAMS', `params: not the shape ${args.scenario} takes here`));
      if (!(CONTROLLER_SCENARIOS as readonly string[]).includes(args.scenario)) {
        // The buggy controller treats the scenario as a closed enum: a task-level schema error (digest 4.6: UNKNOWN_SCENARIO).
        if (s.faults.has('unknown-scenario-schema-error')) throw invalidRequest('scenario', `scenario must be one of ${CONTROLLER_SCENARIOS.join(', ')}`);
        return completed(fail('UNKNOWN_SCENARIO', `unknown scenario ${JSON.stringify(args.scenario)}; supported: ${CONTROLLER_SCENARIOS.join(', ')}`));
      }
      const scenario = args.scenario as (typeof CONTROLLER_SCENARIOS)[number];
      const parsed = paramSchemas[scenario].safeParse(args.params ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return completed(fail('INVALID_PARAMS', `params.${fieldPath(issue.path)}: ${issue.message}`));
      }
      const p = parsed.data as never;
      switch (scenario) {
        case 'force_media_buy_status':
          return completed(forceStatus(caller, p));
        case 'simulate_delivery':
          return completed(simulateDelivery(caller, p));
        case 'force_creative_purge': {
          // The creative leaves the library at once (the sandbox keeps no purge queue).
          const { creative_id } = parsed.data as z.infer<typeof paramSchemas.force_creative_purge>;
          const creative = s.records.get<{ status?: string }>('creative', caller.principal, creative_id);
          if (!creative) return completed(fail('NOT_FOUND', `creative ${JSON.stringify(creative_id)} not found`));
          s.records.delete('creative', caller.principal, creative_id);
          return completed({ success: true, previous_state: creative.status ?? 'approved', current_state: 'purged' });
        }
        case 'force_session_status': {
          // The sandbox opens no sessions (it serves no sponsored-intelligence agent), so none is ever found.
          const { session_id } = parsed.data as z.infer<typeof paramSchemas.force_session_status>;
          return completed(fail('NOT_FOUND', `session ${JSON.stringify(session_id)} not found`));
        }
        case 'query_provenance_audit_observations': {
          // The sandbox audits no provenance: a known creative has no observations.
          const { creative_id } = parsed.data as z.infer<typeof paramSchemas.query_provenance_audit_observations>;
          if (!s.records.get('creative', caller.principal, creative_id))
            return completed(fail('NOT_FOUND', `creative ${JSON.stringify(creative_id)} not found`));
          return completed({ success: true, creative_id, observations: [] });
        }
        case 'simulate_budget_spend':
          return completed(simulateBudgetSpend(caller, p));
        case 'force_create_media_buy_arm':
          return completed(forceArm(caller, args.account, p));
        case 'force_get_products_arm':
        case 'force_get_signals_arm': {
          // Scoped to the account the controller call names; a call naming none shapes nothing.
          const { arm, task_id, message } = parsed.data as z.infer<typeof paramSchemas.force_get_signals_arm>;
          const task = scenario === 'force_get_products_arm' ? 'get_products' : 'get_signals';
          s.asyncTasks.setReadArm(task, caller.principal, { arm, task_id, ...(message ? { message } : {}), account_key: accountKeyOf(args.account) });
          return completed({ success: true, forced: { arm, task_id } });
        }
        case 'query_upstream_traffic': {
          // The sandbox has no upstream platform: it makes no outbound call for a principal, so the record is empty.
          const { since_timestamp } = parsed.data as z.infer<typeof paramSchemas.query_upstream_traffic>;
          return completed({ success: true, recorded_calls: [], total_count: 0, truncated: false, since_timestamp: since_timestamp ?? STARTED_AT });
        }
        case 'force_task_completion':
          return completed(completeTask(caller, p));
        case 'simulate_impairment':
          return completed(simulateImpairment(caller, p));
        case 'force_account_status':
          return completed(seeds.accountStatus(caller, p));
        case 'force_creative_status':
          return completed(seeds.creativeStatus(caller, p));
        case 'seed_product':
          return completed(seeds.product(p));
        case 'seed_pricing_option':
          return completed(seeds.pricingOption(p));
        case 'seed_creative': {
          const { creative_id, fixture } = parsed.data as z.infer<typeof seedParamSchemas.seed_creative>;
          return completed(seeds.record('creative', caller, args.account, creative_id, fixture ?? {}));
        }
        case 'seed_plan': {
          const { plan_id, fixture } = parsed.data as z.infer<typeof seedParamSchemas.seed_plan>;
          return completed(seeds.record('plan', caller, args.account, plan_id, fixture ?? {}));
        }
        case 'seed_media_buy':
          return completed(seeds.mediaBuy(caller, args.account, p));
        case 'seed_creative_format':
          return completed(seeds.creativeFormat(p));
        case 'advance_clock': {
          const { seconds } = parsed.data as z.infer<typeof paramSchemas.advance_clock>;
          const { previous, current } = s.clock.advance(seconds, { principal: caller.principal, account: accountKeyOf(args.account) });
          s.webhooks.clockAdvanced();
          return completed({
            success: true,
            previous_state: new Date(previous).toISOString(),
            current_state: new Date(current).toISOString(),
            message: `seller clock advanced by ${seconds} s${accountKeyOf(args.account) ? ' for this account' : ''}`,
          });
        }
      }
    },
  };
}
