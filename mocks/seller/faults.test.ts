/**
 * Fault profiles: the registry's contract, and one small probe per fault that detects the rule
 * violation. Every probe must find the reference seller clean and the seller with that fault
 * guilty, so each fault provably changes the behaviour it claims to break.
 */
import { createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCheckIds } from '../../suites/index.js';
import { FaultSet, UnknownFaultError, getFault, listFaults, registerFault } from './faults.js';
import { WEBHOOK_FAULTS } from './webhooks/faults.js';
import { VERIFIER_FAULTS } from './signing/faults.js';
import type { RunningMockSeller } from './index.js';
import { McpTestClient, a2aSend } from './testing/wire-client.js';
import { createArgs, freshAccount, isoIn, key, startTestSeller } from './testing/seller-fixtures.js';
import { PARAMS_REFUSED_FAULTS } from './domain/tasks/controller.js';

const AUTH = 'fault-probe-token';

interface ProbeContext {
  seller: RunningMockSeller;
  client: McpTestClient;
}
interface Probe {
  /** True when the rule is violated. */
  violated(ctx: ProbeContext): Promise<boolean>;
  bookingLatencyMs?: number;
}

const update = (media_buy_id: unknown, change: Record<string, unknown>) => ({ idempotency_key: key(), media_buy_id, ...change });
const control = (c: McpTestClient, scenario: string, params: Record<string, unknown>, account: object = {}) =>
  c.ok('comply_test_controller', { scenario, params, account: { ...account, sandbox: true } });
const codeOf = async (c: McpTestClient, task: string, args: Record<string, unknown>) => (await c.call(task, args)).payload?.code;
const readBuy = async (c: McpTestClient, id: unknown) => ((await c.ok('get_media_buys', { media_buy_ids: [id] })).media_buys as Record<string, unknown>[])[0];

/** Parameters digest 4.6 gives each scenario (for the *-params-refused probes). */
const SCENARIO_PARAMS: Record<string, Record<string, unknown>> = {
  force_account_status: { account_id: 'acc-x', status: 'active' },
  force_creative_status: { creative_id: 'c-x', status: 'approved' },
  simulate_budget_spend: { media_buy_id: 'mb-x', spend_percentage: 5 },
  force_creative_purge: { creative_id: 'c-x' },
  force_session_status: { session_id: 's-x', status: 'terminated' },
  query_provenance_audit_observations: { creative_id: 'c-x' },
  force_get_products_arm: { arm: 'submitted', task_id: 'task-x' },
  force_get_signals_arm: { arm: 'submitted', task_id: 'task-x' },
  query_upstream_traffic: { limit: 5 },
};

/** A fresh account synced without sandbox: its account_id. */
async function liveAccount(c: McpTestClient): Promise<string> {
  const synced = await c.ok('sync_accounts', accountsSync(`live-${key()}.example`));
  return (synced.accounts as { account_id: string }[])[0].account_id;
}

/** A create on a fresh account forced to `status`: the error code it gets (undefined: booked). */
async function gatedCreate(c: McpTestClient, status: string): Promise<unknown> {
  const synced = await c.ok('sync_accounts', {
    ...accountsSync(`gate-${key()}.example`),
    accounts: [{ brand: { domain: 'b.example' }, operator: `gate-${key()}.example`, sandbox: true }],
  });
  const account_id = (synced.accounts as { account_id: string }[])[0].account_id;
  await control(c, 'force_account_status', { account_id, status });
  return codeOf(c, 'create_media_buy', { ...createArgs(), account: { account_id } });
}

const ACCOUNT = { brand: { domain: 'b.example' }, operator: 'op.example' };
const accountsSync = (operator: string) => ({ idempotency_key: key(), accounts: [{ brand: { domain: 'b.example' }, operator }] });
const audiencesSync = (audience_id: string | undefined) => ({
  idempotency_key: key(),
  account: ACCOUNT,
  audiences: [{ audience_id, name: 'n', audience_type: 'suppression' }],
});
const catalogsSync = (url: string) => ({ idempotency_key: key(), account: ACCOUNT, catalogs: [{ catalog_id: 'c1', name: 'n', type: 'product', url }] });
const eventsLog = (event_time: string) => ({
  idempotency_key: key(),
  event_source_id: 'src',
  events: [{ event_id: 'e1', event_type: 'purchase', event_time }],
});
const feedbackOn = (media_buy_id: unknown, start: string) => ({
  idempotency_key: key(),
  media_buy_id,
  measurement_period: { start, end: isoIn(-1) },
  performance_index: 1.1,
});
const creativeSync = (seller: RunningMockSeller, format: string) => ({
  idempotency_key: key(),
  account: { brand: { domain: 'b.example' }, operator: 'op.example' },
  creatives: [
    {
      creative_id: 'c1',
      name: 'n',
      format_id: { agent_url: seller.baseUrl, id: format },
      assets: { image: { asset_type: 'image', url: 'https://cdn.example/i.png' } },
    },
  ],
});

/**
 * Creates a buy (`args`, its first package given `packageExtra`), then syncs creative c1 with an
 * assignment to that package (`syncExtra`, e.g. dry_run); the created buy and its arguments.
 */
async function createAndAssign(
  { seller, client }: ProbeContext,
  args: Record<string, unknown> = createArgs(),
  packageExtra: Record<string, unknown> = {},
  syncExtra: Record<string, unknown> = {},
) {
  const packages = [{ ...(args.packages as Record<string, unknown>[])[0], ...packageExtra }];
  const buy = await client.ok('create_media_buy', { ...args, packages });
  const package_id = (buy.packages as Record<string, unknown>[])[0]!.package_id;
  await client.ok('sync_creatives', {
    ...creativeSync(seller, 'display_300x250'),
    account: args.account,
    ...syncExtra,
    assignments: [{ creative_id: 'c1', package_id }],
  });
  return { args, buy };
}
const activation = (segment: string) => ({ idempotency_key: key(), signal_agent_segment_id: segment, destinations: [{ type: 'platform', platform: 'dsp' }] });
const governanceCheck = (plan_id: string) => ({ plan_id, caller: 'https://buyer.example/agent', tool: 'create_media_buy', payload: { budget: 1000 } });

async function canceledBuy(c: McpTestClient): Promise<Record<string, unknown>> {
  const buy = await c.ok('create_media_buy', createArgs());
  await c.ok('update_media_buy', update(buy.media_buy_id, { canceled: true }));
  return buy;
}
const cancelTwice: Probe = {
  async violated({ client }) {
    const buy = await canceledBuy(client);
    return (await codeOf(client, 'update_media_buy', update(buy.media_buy_id, { canceled: true }))) !== 'NOT_CANCELLABLE';
  },
};

/** A create made submitted by the controller, then completed by it: the completion's params, to replay. */
async function completedTask(c: McpTestClient): Promise<{ result: Record<string, unknown> }> {
  const task_id = `task-${key()}`;
  const args = createArgs();
  await control(c, 'force_create_media_buy_arm', { arm: 'submitted', task_id }, args.account as object);
  await c.call('create_media_buy', args);
  const result = { task_id, result: { media_buy_id: 'mb_forced', status: 'active', revision: 1 } };
  await control(c, 'force_task_completion', result);
  return { result };
}

const PROBES: Record<string, Probe> = {
  'unknown-tool-wrong-code': { violated: async ({ client }) => (await codeOf(client, 'no_such_task', {})) !== 'INVALID_REQUEST' },
  'error-without-is-error': { violated: async ({ client }) => !(await client.call('no_such_task', {})).isError },
  'error-text-not-json': { violated: async ({ client }) => (await client.call('no_such_task', {})).payload === undefined },
  'unknown-tool-unnamed': { violated: async ({ client }) => !String((await client.call('no_such_task', {})).payload?.message).includes('no_such_task') },
  'push-config-crashes-sync-task': {
    violated: async ({ client }) =>
      (await client.call('get_products', { brief: 'x', push_notification_config: { url: 'https://b.example/h' } })).result === undefined,
  },
  'controller-not-listed': {
    async violated({ client }) {
      const result = (await client.rpc('tools/list', {})).message?.result as { tools?: { name: string }[] } | undefined;
      const tools = result?.tools ?? [];
      return !tools.some((t) => t.name === 'comply_test_controller');
    },
  },
  'sandbox-flag-string': { violated: async ({ client }) => (await client.ok('list_accounts')).sandbox !== true },
  'conflict-retry-after-zero': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', args);
      return (await client.call('create_media_buy', { ...args, end_time: isoIn(31) })).payload?.retry_after !== undefined;
    },
  },
  'rate-limited-cached': {
    // Its own seller with the insert rate limit on (the rule needs it), under the faults of this one.
    async violated({ seller }) {
      const limited = await startTestSeller({ faults: seller.faults, authToken: AUTH, rateLimit: { inserts: 2, windowMs: 1000 } });
      try {
        const client = new McpTestClient(limited.mcpUrl, AUTH);
        await client.initialize();
        const account = freshAccount();
        await client.ok('create_media_buy', createArgs({ account }));
        await client.ok('create_media_buy', createArgs({ account }));
        const args = createArgs({ account });
        const tripped = (await client.call('create_media_buy', args)).payload;
        if (tripped?.code !== 'RATE_LIMITED' || typeof tripped.retry_after !== 'number') throw new Error(`no RATE_LIMITED trip: ${JSON.stringify(tripped)}`);
        await new Promise((r) => setTimeout(r, Number(tripped.retry_after) * 1000));
        return (await client.call('create_media_buy', args)).payload?.code === 'RATE_LIMITED';
      } finally {
        await limited.close();
      }
    },
  },
  'validation-error-cached': {
    async violated({ client }) {
      const args = createArgs();
      await client.call('create_media_buy', { ...args, packages: [] });
      return (await client.call('create_media_buy', args)).isError;
    },
  },
  'product-schema-invalid': {
    async violated({ client }) {
      const products = (await client.ok('get_products', { brief: 'sports video' })).products as Record<string, any>[];
      return products.some((p) => !Array.isArray(p.pricing_options) || typeof p.forecast?.impressions?.min !== 'number');
    },
  },
  'available-actions-mode-missing': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return !(buy.available_actions as Record<string, unknown>[]).every((a) => typeof a.mode === 'string');
    },
  },
  'schema-url-refused': {
    violated: async ({ client }) =>
      (await codeOf(client, 'get_products', { brief: 'x', $schema: 'https://schemas.example/schemas/v3/media-buy/get-products-request.json' })) !== undefined,
  },
  'context-not-echoed': { violated: async ({ client }) => (await client.ok('get_products', { brief: 'x', context: { id: 1 } })).context === undefined },
  'session-per-call': {
    async violated({ seller }) {
      const c = new McpTestClient(seller.mcpUrl, AUTH);
      await c.initialize();
      await c.call('list_accounts');
      return (await c.call('list_accounts')).answer.status !== 200;
    },
  },
  'auth-not-enforced': { violated: async ({ seller }) => (await new McpTestClient(seller.mcpUrl).initialize()).status !== 401 },
  'governance-origin-shared': {
    async violated({ client }) {
      const origins = ((await client.ok('get_proto_capabilities')).identity as { key_origins?: Record<string, string> } | undefined)?.key_origins;
      return origins !== undefined && origins.governance_signing === origins.request_signing;
    },
  },
  'brand-url-undeclared': {
    violated: async ({ client }) =>
      ((await client.ok('get_proto_capabilities')).identity as { brand_json_url?: string } | undefined)?.brand_json_url === undefined,
  },
  'idempotency-not-declared': {
    violated: async ({ client }) => ((await client.ok('get_proto_capabilities')).proto as Record<string, unknown>).idempotency === undefined,
  },
  'replay-not-flagged': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', args);
      return (await client.ok('create_media_buy', args)).replayed !== true;
    },
  },
  'replay-creates-second-buy': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', args);
      await client.ok('create_media_buy', args);
      return ((await client.ok('get_media_buys', { account: args.account })).media_buys as unknown[]).length !== 1;
    },
  },
  'replay-body-differs': {
    async violated({ client }) {
      const args = createArgs();
      const { context: _a, ...first } = await client.ok('create_media_buy', args);
      const { context: _b, replayed: _r, ...again } = await client.ok('create_media_buy', args);
      return JSON.stringify(first) !== JSON.stringify(again);
    },
  },
  'context-in-hash': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', { ...args, context: { n: 1 } });
      return (await client.call('create_media_buy', { ...args, context: { n: 2 } })).isError;
    },
  },
  'conflict-answered-with-replay': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', args);
      return (await codeOf(client, 'create_media_buy', { ...args, end_time: isoIn(31) })) !== 'IDEMPOTENCY_CONFLICT';
    },
  },
  'conflict-leaks-payload': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', args);
      const err = (await client.call('create_media_buy', { ...args, end_time: isoIn(31) })).payload ?? {};
      return Object.keys(err).some((k) => !['code', 'message', 'recovery'].includes(k));
    },
  },
  'key-not-task-scoped': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', args);
      const audiences = [{ audience_id: 'a1', name: 'n', audience_type: 'suppression' }];
      return (await codeOf(client, 'sync_audiences', { idempotency_key: args.idempotency_key, account: args.account, audiences })) !== 'IDEMPOTENCY_CONFLICT';
    },
  },
  'missing-key-accepted': {
    async violated({ client }) {
      const { idempotency_key: _k, ...args } = createArgs();
      return !(await client.call('create_media_buy', args)).isError;
    },
  },
  'malformed-key-accepted': { violated: async ({ client }) => !(await client.call('create_media_buy', createArgs({ idempotency_key: 'not a key!' }))).isError },
  'expired-key-reexecuted': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', args);
      await control(client, 'advance_clock', { seconds: 86_400 + 120 }, args.account as object);
      return (await codeOf(client, 'create_media_buy', args)) !== 'IDEMPOTENCY_EXPIRED';
    },
  },
  'cache-ignores-account': {
    async violated({ client }) {
      const args = createArgs();
      const first = await client.ok('create_media_buy', args);
      const other = await client.call('create_media_buy', createArgs({ idempotency_key: args.idempotency_key }));
      return other.isError || other.payload?.replayed === true || other.payload?.media_buy_id === first.media_buy_id;
    },
  },
  'concurrent-double-create': {
    bookingLatencyMs: 250,
    async violated({ client }) {
      const args = createArgs();
      const answers = await Promise.all(Array.from({ length: 5 }, () => client.ok('create_media_buy', args)));
      return new Set(answers.map((a) => a.media_buy_id)).size !== 1;
    },
  },
  'read-key-ignored': {
    async violated({ client }) {
      const read = { brief: 'x', idempotency_key: key() };
      await client.ok('get_products', read);
      return (await client.ok('get_products', read)).replayed !== true;
    },
  },
  'low-entropy-key-accepted': {
    violated: async ({ client }) => (await codeOf(client, 'create_media_buy', createArgs({ idempotency_key: '0000000000000000' }))) !== 'INVALID_REQUEST',
  },
  'key-refusal-transient': {
    violated: async ({ client }) => (await client.call('create_media_buy', createArgs({ idempotency_key: 'not a key!' }))).payload?.recovery !== 'correctable',
  },
  'expired-recovery-terminal': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', args);
      await control(client, 'advance_clock', { seconds: 86_400 + 120 }, args.account as object);
      return (await client.call('create_media_buy', args)).payload?.recovery !== 'correctable';
    },
  },
  'async-replay-current-state': {
    async violated({ client }) {
      const args = createArgs();
      const taskId = `task-${key()}`;
      await control(client, 'force_create_media_buy_arm', { arm: 'submitted', task_id: taskId }, args.account as object);
      await client.ok('create_media_buy', args);
      await control(
        client,
        'force_task_completion',
        { task_id: taskId, result: { media_buy_id: 'mb_forced', status: 'active', revision: 1 } },
        args.account as object,
      );
      const replay = await client.ok('create_media_buy', args);
      return replay.status !== 'submitted' || replay.task_id !== taskId;
    },
  },
  'hash-not-canonical': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', args);
      const reversed = Object.fromEntries(Object.entries(args).reverse());
      return (await client.call('create_media_buy', reversed)).isError;
    },
  },
  'governance-context-in-hash': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', { ...args, governance_context: 'g1' });
      return (await client.call('create_media_buy', { ...args, governance_context: 'g2' })).isError;
    },
  },
  'push-credentials-in-hash': {
    // Its own seller without request signing (an authentication block must otherwise come signed, digest 1.16), under the faults of this one.
    async violated({ seller }) {
      const unsigned = await startTestSeller({ faults: seller.faults, authToken: AUTH, requestSigning: false });
      try {
        const client = new McpTestClient(unsigned.mcpUrl, AUTH);
        await client.initialize();
        const args = createArgs();
        const push = (credentials: string) => ({
          url: 'http://127.0.0.1:9/h',
          operation_id: 'op-1',
          authentication: { schemes: ['HMAC-SHA256'], credentials },
        });
        await client.ok('create_media_buy', { ...args, push_notification_config: push('a'.repeat(40)) });
        return (await client.call('create_media_buy', { ...args, push_notification_config: push('b'.repeat(40)) })).isError;
      } finally {
        await unsigned.close();
      }
    },
  },
  'ext-not-hashed': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', { ...args, ext: { v: 1 } });
      return !(await client.call('create_media_buy', { ...args, ext: { v: 2 } })).isError;
    },
  },
  'null-members-dropped-in-hash': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', { ...args, ext: { v: 1 } });
      return !(await client.call('create_media_buy', { ...args, ext: { v: 1, w: null } })).isError;
    },
  },
  'push-url-not-hashed': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', { ...args, push_notification_config: { url: 'http://127.0.0.1:9/a', operation_id: 'op-1' } });
      return !(await client.call('create_media_buy', { ...args, push_notification_config: { url: 'http://127.0.0.1:9/b', operation_id: 'op-1' } })).isError;
    },
  },
  'in-flight-conflict-answered-in-flight': {
    async violated({ client }) {
      const args = createArgs();
      const answers = await Promise.all([client.call('create_media_buy', args), client.call('create_media_buy', { ...args, end_time: isoIn(31) })]);
      return answers.some((a) => a.payload?.code === 'IDEMPOTENCY_IN_FLIGHT');
    },
    bookingLatencyMs: 250,
  },
  'failed-first-pins-key': {
    async violated({ client }) {
      const args = createArgs();
      await client.call('create_media_buy', { ...args, packages: [{ product_id: 'no-such-product', pricing_option_id: 'x', budget: 5000 }] });
      return (await client.call('create_media_buy', args)).isError;
    },
  },
  'conflict-wrong-code': {
    async violated({ client }) {
      const args = createArgs();
      await client.ok('create_media_buy', args);
      return (await codeOf(client, 'create_media_buy', { ...args, end_time: isoIn(31) })) !== 'IDEMPOTENCY_CONFLICT';
    },
  },
  'read-rejects-idempotency-key': { violated: async ({ client }) => (await client.call('get_products', { brief: 'x', idempotency_key: key() })).isError },
  'initial-revision-zero': { violated: async ({ client }) => (await client.ok('create_media_buy', createArgs())).revision !== 1 },
  'revision-not-incremented-on-pause': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return (await client.ok('update_media_buy', update(buy.media_buy_id, { paused: true }))).revision !== (buy.revision as number) + 1;
    },
  },
  'revision-incremented-on-replay': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      const pause = update(buy.media_buy_id, { paused: true });
      const paused = await client.ok('update_media_buy', pause);
      await client.ok('update_media_buy', pause);
      return (await readBuy(client, buy.media_buy_id)).revision !== paused.revision;
    },
  },
  'asap-buy-unreadable': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return (await client.call('get_media_buys', { media_buy_ids: [buy.media_buy_id] })).isError === true;
    },
  },
  'media-buys-never-listed': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs({ start_time: isoIn(1) }));
      return ((await client.ok('get_media_buys', { media_buy_ids: [buy.media_buy_id] })).media_buys as unknown[]).length === 0;
    },
  },
  'account-listing-empty': {
    async violated({ client }) {
      const args = createArgs({ start_time: isoIn(1) });
      await client.ok('create_media_buy', args);
      return ((await client.ok('get_media_buys', { account: args.account })).media_buys as unknown[]).length === 0;
    },
  },
  'revision-incremented-on-read': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      await readBuy(client, buy.media_buy_id);
      return (await readBuy(client, buy.media_buy_id)).revision !== buy.revision;
    },
  },
  'revision-incremented-on-sync-assignment': {
    async violated(ctx) {
      const { client } = ctx;
      const { buy } = await createAndAssign(ctx);
      return (await readBuy(client, buy.media_buy_id)).revision !== buy.revision;
    },
  },
  'revision-incremented-on-validation-only': {
    async violated(ctx) {
      const { client } = ctx;
      const { buy } = await createAndAssign(ctx, createArgs(), {}, { dry_run: true });
      return (await readBuy(client, buy.media_buy_id)).revision !== buy.revision;
    },
  },
  'creatives-assigned-stays-pending': {
    async violated(ctx) {
      const { seller, client } = ctx;
      const dated = createArgs({ start_time: isoIn(7), end_time: isoIn(37) });
      const { buy } = await createAndAssign(ctx, dated, { format_ids: [{ agent_url: seller.baseUrl, id: 'display_300x250' }] });
      return buy.status === 'pending_creatives' && (await readBuy(client, buy.media_buy_id)).status === 'pending_creatives';
    },
  },
  'terminal-keeps-creative-assignments': {
    async violated(ctx) {
      const { client } = ctx;
      const { args, buy } = await createAndAssign(ctx);
      await client.ok('update_media_buy', { ...update(buy.media_buy_id, { canceled: true }), account: args.account });
      const read = (await client.ok('get_media_buys', { media_buy_ids: [buy.media_buy_id], account: args.account })).media_buys as Record<string, unknown>[];
      return (read[0]!.packages as Record<string, unknown>[]).some((p) => Array.isArray(p.creative_approvals) && p.creative_approvals.length > 0);
    },
  },
  'valid-actions-stale-after-pause': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      const actions = (await client.ok('update_media_buy', update(buy.media_buy_id, { paused: true }))).valid_actions as string[];
      return actions.includes('pause') || !actions.includes('resume');
    },
  },
  'pause-ignored': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      await client.ok('update_media_buy', update(buy.media_buy_id, { paused: true }));
      return (await readBuy(client, buy.media_buy_id)).status !== 'paused';
    },
  },
  'resume-ignored': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      await client.ok('update_media_buy', update(buy.media_buy_id, { paused: true }));
      return (await client.ok('update_media_buy', update(buy.media_buy_id, { paused: false }))).status !== 'active';
    },
  },
  'cancellation-without-canceled-by': {
    async violated({ client }) {
      const buy = await canceledBuy(client);
      return ((await readBuy(client, buy.media_buy_id)).cancellation as { canceled_by?: string } | undefined)?.canceled_by === undefined;
    },
  },
  'completed-read-as-active': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      await control(client, 'force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'completed' });
      return (await readBuy(client, buy.media_buy_id)).status !== 'completed';
    },
  },
  'resume-canceled-accepted': {
    async violated({ client }) {
      const buy = await canceledBuy(client);
      return (await codeOf(client, 'update_media_buy', update(buy.media_buy_id, { paused: false }))) !== 'INVALID_STATE';
    },
  },
  'pause-terminal-accepted': {
    async violated({ client }) {
      const buy = await canceledBuy(client);
      return (await codeOf(client, 'update_media_buy', update(buy.media_buy_id, { paused: true }))) !== 'INVALID_STATE';
    },
  },
  'update-terminal-accepted': {
    async violated({ client }) {
      const buy = await canceledBuy(client);
      const pkg = (buy.packages as { package_id: string }[])[0].package_id;
      return (await codeOf(client, 'update_media_buy', update(buy.media_buy_id, { packages: [{ package_id: pkg, budget: 6000 }] }))) !== 'INVALID_STATE';
    },
  },
  'cancel-canceled-accepted': cancelTwice,
  'second-cancel-invalid-state': cancelTwice,
  'stale-revision-accepted': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      await client.ok('update_media_buy', update(buy.media_buy_id, { paused: true }));
      return (await codeOf(client, 'update_media_buy', update(buy.media_buy_id, { paused: false, revision: buy.revision }))) !== 'CONFLICT';
    },
  },
  'unknown-buy-accepted': {
    violated: async ({ client }) => !(await client.call('update_media_buy', update('mb_missing', { paused: true }))).isError,
  },
  'unknown-package-ignored': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return !(await client.call('update_media_buy', update(buy.media_buy_id, { packages: [{ package_id: 'pkg_missing', budget: 1 }] }))).isError;
    },
  },
  'in-flight-unavailable': {
    async violated({ client }) {
      const args = createArgs();
      const answers = await Promise.all(Array.from({ length: 3 }, () => client.call('create_media_buy', args)));
      return answers.some((a) => a.isError && (a.payload as { code?: string } | undefined)?.code === 'SERVICE_UNAVAILABLE');
    },
  },
  'unknown-buy-wrong-code': {
    violated: async ({ client }) => (await codeOf(client, 'update_media_buy', update('mb_missing', { paused: true }))) !== 'MEDIA_BUY_NOT_FOUND',
  },
  'unknown-package-wrong-code': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return (
        (await codeOf(client, 'update_media_buy', update(buy.media_buy_id, { packages: [{ package_id: 'pkg_missing', budget: 1 }] }))) !== 'PACKAGE_NOT_FOUND'
      );
    },
  },
  'accounts-all-refused': {
    violated: async ({ client }) => (await client.call('get_products', { brief: 'x', account: createArgs().account })).isError,
  },
  'pricing-options-unnamed': {
    async violated({ client }) {
      const products = (await client.ok('get_products', { brief: 'sports video' })).products as { pricing_options: Record<string, unknown>[] }[];
      return products.every((p) => p.pricing_options.every((o) => o.pricing_option_id === undefined));
    },
  },
  'create-unavailable': { violated: async ({ client }) => (await client.call('create_media_buy', createArgs())).isError },
  'get-products-unavailable': { violated: async ({ client }) => (await client.call('get_products', { brief: 'x' })).isError },
  'list-scenarios-incomplete': {
    async violated({ client }) {
      const listed = (await control(client, 'list_scenarios', {})).scenarios as string[];
      return !listed.includes('force_media_buy_status');
    },
  },
  'a2a-declaration-differs': {
    async violated({ seller, client }) {
      const overMcp = (await client.ok('get_proto_capabilities')).supported_protocols;
      const overA2a = (await a2aSend(`${seller.baseUrl}/a2a`, 'get_proto_capabilities', {}, { authToken: AUTH })).data?.supported_protocols;
      return JSON.stringify(overMcp) !== JSON.stringify(overA2a);
    },
  },
  'create-paused-ignored': { violated: async ({ client }) => (await client.ok('create_media_buy', createArgs({ paused: true }))).status !== 'paused' },
  'uncancel-accepted': {
    async violated({ client }) {
      const buy = await canceledBuy(client);
      const r = await client.call('update_media_buy', update(buy.media_buy_id, { canceled: false }));
      return !r.isError || (await readBuy(client, buy.media_buy_id)).status !== 'canceled';
    },
  },
  'cancel-applies-other-fields': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      const pkg = (buy.packages as { package_id: string }[])[0].package_id;
      await client.ok('update_media_buy', update(buy.media_buy_id, { canceled: true, packages: [{ package_id: pkg, budget: 7777 }] }));
      return ((await readBuy(client, buy.media_buy_id)).packages as { budget: number }[])[0].budget === 7777;
    },
  },
  'cancel-completed-accepted': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      await control(client, 'force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'completed' });
      return (await codeOf(client, 'update_media_buy', update(buy.media_buy_id, { canceled: true }))) !== 'INVALID_STATE';
    },
  },
  'cancel-rejected-not-cancellable': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs({ start_time: isoIn(7), end_time: isoIn(37) }));
      await control(client, 'force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'rejected' });
      return (await codeOf(client, 'update_media_buy', update(buy.media_buy_id, { canceled: true }))) !== 'INVALID_STATE';
    },
  },
  'package-pause-applies-to-all': {
    async violated({ client }) {
      const base = createArgs();
      const [pkg] = base.packages as Record<string, unknown>[];
      const buy = await client.ok('create_media_buy', { ...base, packages: [pkg, { ...pkg }] });
      const [first] = buy.packages as { package_id: string }[];
      await client.ok('update_media_buy', update(buy.media_buy_id, { packages: [{ package_id: first.package_id, paused: true }] }));
      return ((await readBuy(client, buy.media_buy_id)).packages as { paused?: boolean }[])[1].paused === true;
    },
  },
  'package-cancel-cancels-buy': {
    async violated({ client }) {
      const base = createArgs();
      const [pkg] = base.packages as Record<string, unknown>[];
      const buy = await client.ok('create_media_buy', { ...base, packages: [pkg, { ...pkg }] });
      const [first] = buy.packages as { package_id: string }[];
      await client.ok('update_media_buy', update(buy.media_buy_id, { packages: [{ package_id: first.package_id, canceled: true }] }));
      return (await readBuy(client, buy.media_buy_id)).status === 'canceled';
    },
  },
  'action-not-allowed-without-details': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return (await client.call('update_media_buy', update(buy.media_buy_id, { paused: false }))).payload?.details === undefined;
    },
  },
  'confirmed-at-moves-on-update': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      await client.ok('update_media_buy', update(buy.media_buy_id, { paused: true }));
      return (await readBuy(client, buy.media_buy_id)).confirmed_at !== buy.confirmed_at;
    },
  },
  'force-same-state-refused': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return (await control(client, 'force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'active' })).success !== true;
    },
  },
  'unknown-scenario-schema-error': {
    async violated({ client }) {
      const r = await client.call('comply_test_controller', { scenario: 'no_such_scenario', account: { sandbox: true } });
      return r.isError === true || r.payload?.error !== 'UNKNOWN_SCENARIO';
    },
  },
  'reseed-identical-refused': {
    async violated({ client }) {
      const params = { creative_id: `c-${key()}`, fixture: { name: 'a' } };
      await control(client, 'seed_creative', params);
      return (await control(client, 'seed_creative', params)).previous_state !== 'existing';
    },
  },
  'reseed-different-accepted': {
    async violated({ client }) {
      const creative_id = `c-${key()}`;
      await control(client, 'seed_creative', { creative_id, fixture: { name: 'a' } });
      return (await control(client, 'seed_creative', { creative_id, fixture: { name: 'b' } })).success === true;
    },
  },
  ...Object.fromEntries(
    Object.entries(PARAMS_REFUSED_FAULTS).map(([fault, scenario]): [string, Probe] => [
      fault,
      { violated: async ({ client }) => (await control(client, scenario, SCENARIO_PARAMS[scenario] ?? {})).error === 'INVALID_PARAMS' },
    ]),
  ),
  'non-sandbox-params-served': {
    violated: async ({ client }) =>
      (await control(client, 'force_account_status', { account_id: await liveAccount(client), status: 'active' })).error !== 'FORBIDDEN',
  },
  'non-sandbox-account-served': {
    async violated({ client }) {
      const r = await client.call('comply_test_controller', { scenario: 'list_scenarios', account: { account_id: await liveAccount(client) } });
      return r.payload?.success === true;
    },
  },
  'account-suspended-books': { violated: async ({ client }) => (await gatedCreate(client, 'suspended')) !== 'ACCOUNT_SUSPENDED' },
  'account-payment-due-books': { violated: async ({ client }) => (await gatedCreate(client, 'payment_required')) !== 'ACCOUNT_PAYMENT_REQUIRED' },
  'completion-replay-refused': {
    async violated({ client }) {
      const { result } = await completedTask(client);
      return (await control(client, 'force_task_completion', result)).success !== true;
    },
  },
  'completion-different-result-accepted': {
    async violated({ client }) {
      const { result } = await completedTask(client);
      return (
        (await control(client, 'force_task_completion', { ...result, result: { media_buy_id: 'mb_other', status: 'active', revision: 1 } })).success === true
      );
    },
  },
  'controller-served-in-production': {
    // The reference seller lists the controller it serves; the faulty one serves it unlisted (as on a production deployment).
    async violated({ client }) {
      const result = (await client.rpc('tools/list', {})).message?.result as { tools?: { name: string }[] } | undefined;
      const listed = (result?.tools ?? []).some((t) => t.name === 'comply_test_controller');
      const r = await client.call('comply_test_controller', { scenario: 'list_scenarios', account: { sandbox: true } });
      return !listed && r.payload?.success === true;
    },
  },
  'controller-rejects-active': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return (await control(client, 'force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'rejected' })).success === true;
    },
  },
  'controller-leaves-terminal': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      await control(client, 'force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'completed' });
      return (await control(client, 'force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'active' })).success === true;
    },
  },
  'controller-start-ignored': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs({ start_time: isoIn(7), end_time: isoIn(37) }));
      await control(client, 'force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'active' });
      return (await readBuy(client, buy.media_buy_id)).status !== 'active';
    },
  },
  'sync-accounts-no-status': {
    violated: async ({ client }) =>
      ((await client.ok('sync_accounts', accountsSync('pc-status.example'))).accounts as { status?: unknown }[])[0]!.status === undefined,
  },
  'list-accounts-forgets-synced': {
    async violated({ client }) {
      await client.ok('sync_accounts', accountsSync('pc-listed.example'));
      return !((await client.ok('list_accounts', {})).accounts as { operator: string }[]).some((a) => a.operator === 'pc-listed.example');
    },
  },
  'audiences-refused': { violated: async ({ client }) => (await client.call('sync_audiences', audiencesSync('aud-1'))).isError === true },
  'audience-without-id-accepted': { violated: async ({ client }) => (await codeOf(client, 'sync_audiences', audiencesSync(undefined))) !== 'INVALID_REQUEST' },
  'catalogs-refused': { violated: async ({ client }) => (await client.call('sync_catalogs', catalogsSync('https://feeds.example/p.xml'))).isError === true },
  'catalog-url-unchecked': { violated: async ({ client }) => (await codeOf(client, 'sync_catalogs', catalogsSync('not a url'))) !== 'INVALID_REQUEST' },
  'events-refused': { violated: async ({ client }) => (await client.call('log_event', eventsLog(isoIn(-1)))).isError === true },
  'event-time-unchecked': { violated: async ({ client }) => (await codeOf(client, 'log_event', eventsLog('yesterday'))) !== 'INVALID_REQUEST' },
  'feedback-refused': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return (await client.call('provide_performance_feedback', feedbackOn(buy.media_buy_id, isoIn(-7)))).isError === true;
    },
  },
  'feedback-period-unchecked': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return (await codeOf(client, 'provide_performance_feedback', feedbackOn(buy.media_buy_id, 'last week'))) !== 'INVALID_REQUEST';
    },
  },
  'refine-unsupported': {
    violated: async ({ client }) =>
      (await client.call('get_products', { buying_mode: 'refine', refine: [{ scope: 'product', product_id: 'ctv_sports_premium', action: 'more_like_this' }] }))
        .isError === true,
  },
  'granularity-declared-refused': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return (await client.call('get_media_buy_delivery', { media_buy_ids: [buy.media_buy_id], time_granularity: 'daily' })).isError === true;
    },
  },
  'granularity-undeclared-accepted': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return (await codeOf(client, 'get_media_buy_delivery', { media_buy_ids: [buy.media_buy_id], time_granularity: 'monthly' })) !== 'INVALID_REQUEST';
    },
  },
  'formats-without-format-id': {
    violated: async ({ client }) => ((await client.ok('list_creative_formats', {})).formats as Record<string, unknown>[])[0]!.format_id === undefined,
  },
  'format-type-filter-ignored': {
    violated: async ({ client }) =>
      ((await client.ok('list_creative_formats', { type: 'audio' })).formats as { type: string }[]).some((f) => f.type !== 'audio'),
  },
  'build-creative-other-format': {
    async violated({ seller, client }) {
      const built = await client.ok('build_creative', {
        idempotency_key: key(),
        message: 'm',
        target_format_ids: [{ agent_url: seller.baseUrl, id: 'audio_30s' }],
      });
      return (built.creatives as { format_id: { id: string } }[])[0]!.format_id.id !== 'audio_30s';
    },
  },
  'sync-creatives-refuses-all': {
    violated: async ({ seller, client }) => (await client.call('sync_creatives', creativeSync(seller, 'display_300x250'))).isError === true,
  },
  'sync-creatives-unknown-format-accepted': {
    violated: async ({ seller, client }) => (await codeOf(client, 'sync_creatives', creativeSync(seller, 'no_such_format'))) !== 'INVALID_REQUEST',
  },
  'signals-without-segment-id': {
    violated: async ({ client }) =>
      ((await client.ok('get_signals', { signal_spec: 'sports' })).signals as Record<string, unknown>[])[0]!.signal_agent_segment_id === undefined,
  },
  'activate-signal-refuses-platform': {
    violated: async ({ client }) => (await client.call('activate_signal', activation('seg_sports_enthusiasts'))).isError === true,
  },
  'activate-unknown-segment-accepted': {
    violated: async ({ client }) => (await codeOf(client, 'activate_signal', activation('seg_no_such_segment'))) !== 'INVALID_REQUEST',
  },
  'activate-signal-not-idempotent': {
    async violated({ client }) {
      const args = activation('seg_sports_enthusiasts');
      await client.ok('activate_signal', args);
      return (await client.ok('activate_signal', args)).replayed !== true;
    },
  },
  'governance-check-fails': { violated: async ({ client }) => (await client.call('check_governance', governanceCheck('plan-a'))).isError === true },
  'governance-token-forged': {
    async violated({ seller, client }) {
      const token = (await client.ok('check_governance', governanceCheck('plan-c'))).governance_context as string;
      const jwks = (await (await fetch(seller.jwksUrl)).json()) as { keys: Record<string, unknown>[] };
      const { kid } = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string };
      const jwk = jwks.keys.find((k) => k.kid === kid)!;
      const [header, payload, signature] = token.split('.');
      return !verify(
        null,
        Buffer.from(`${header}.${payload}`),
        createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }),
        Buffer.from(signature!, 'base64url'),
      );
    },
  },
  'sync-accounts-status-invented': {
    violated: async ({ client }) =>
      ((await client.ok('sync_accounts', accountsSync('op-status.example'))).accounts as { status: string }[])[0]!.status === 'ok',
  },
  'agent-capabilities-fails': { violated: async ({ client }) => (await client.call('get_agent_capabilities')).isError === true },
  'update-not-idempotent': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      return (await client.call('update_media_buy', { media_buy_id: buy.media_buy_id, paused: true })).isError !== true;
    },
  },
  'build-creative-not-idempotent': {
    violated: async ({ seller, client }) =>
      (
        await client.call('build_creative', {
          message: 'm',
          brand: { domain: 'example.com' },
          target_format_ids: [{ agent_url: seller.baseUrl, id: 'audio_30s' }],
        })
      ).isError !== true,
  },
  'sync-creatives-not-idempotent': {
    violated: async ({ seller, client }) => {
      const { idempotency_key: _k, ...args } = creativeSync(seller, 'display_300x250');
      return (await client.call('sync_creatives', args)).isError !== true;
    },
  },
  'brand-identity-fails': {
    violated: async ({ client }) => (await client.call('get_brand_identity', { brand: { domain: 'example.com' } })).isError === true,
  },
  'buys-not-scoped-by-account': {
    async violated({ client }) {
      const buy = await client.ok('create_media_buy', createArgs());
      const other = { brand: { domain: 'example.com' }, operator: `other-${key()}.example` };
      const listed = (await client.ok('get_media_buys', { account: other })).media_buys as { media_buy_id: string }[];
      return listed.some((b) => b.media_buy_id === buy.media_buy_id);
    },
  },
  'canonical-selector-underspecified-accepted': {
    async violated({ client }) {
      const product_id = `canonical_${key()}`;
      const format_options = [{ format_kind: 'image', format_option_id: 'mrec', params: { width: 300, height: 250 } }];
      const pricing_options = [{ pricing_option_id: 'cpm', pricing_model: 'cpm', currency: 'USD', fixed_price: 5 }];
      await control(client, 'seed_product', { product_id, fixture: { format_options, pricing_options } });
      const bare = createArgs({ packages: [{ product_id, pricing_option_id: 'cpm', budget: 100, format_kind: 'image' }] });
      return !(await client.call('create_media_buy', bare)).isError;
    },
  },
  'audit-log-forgets-checks': {
    async violated({ client }) {
      await client.ok('check_governance', governanceCheck('plan-b'));
      return ((await client.ok('get_plan_audit_logs', { plan_id: 'plan-b' })).entries as unknown[]).length === 0;
    },
  },
};

async function withSeller<T>(faults: string[], bookingLatencyMs: number, fn: (ctx: ProbeContext) => Promise<T>): Promise<T> {
  const seller = await startTestSeller({ faults, authToken: AUTH, bookingLatencyMs });
  try {
    const client = new McpTestClient(seller.mcpUrl, AUTH);
    await client.initialize();
    return await fn({ seller, client });
  } finally {
    await seller.close();
  }
}

describe('fault registry', () => {
  it('has a probe for every built-in fault, and a rule and targets for each', () => {
    // Webhook faults (webhooks/faults.ts) are probed by suites/webhooks.faults.test.ts through a capture receiver.
    // Verifier faults (signing/faults.ts) are probed by signing/verifier.test.ts and suites/signatures.faults.test.ts.
    const verifier = new Set<string>(Object.values(VERIFIER_FAULTS));
    const builtin = listFaults().filter((f) => !f.name.startsWith('test-only-') && !WEBHOOK_FAULTS.some((w) => w.name === f.name) && !verifier.has(f.name));
    expect(Object.keys(PROBES).sort()).toEqual(builtin.map((f) => f.name));
    for (const f of builtin) {
      expect(f.rule.length, f.name).toBeGreaterThan(20);
      expect(f.rule, f.name).toMatch(/\((interface spec|digest) [\d.]+/);
      expect(f.targets.length, f.name).toBeGreaterThan(0);
    }
  });

  it('validates names on use and on registration', () => {
    expect(() => new FaultSet(['pause-ignored', 'nope'])).toThrow(UnknownFaultError);
    expect(() => new FaultSet(['nope'])).toThrow(/"nope".*valid faults: .*auth-not-enforced/);
    expect(() => new FaultSet().has('not-registered')).toThrow(/not registered/);
    expect(() => registerFault({ name: 'Bad Name', rule: 'x (digest 1.1) long enough', targets: ['a.b'] })).toThrow(/kebab-case/);
    expect(() => registerFault({ name: 'no-targets', rule: 'a rule (digest 1.1)', targets: [] })).toThrow(/target/);
    const pause = getFault('pause-ignored');
    expect(pause).toBeDefined();
    expect(() => registerFault({ ...pause!, rule: 'something else entirely (digest 4.2)' })).toThrow(/different definition/);
    expect(() => registerFault({ ...pause! })).not.toThrow();
  });

  it('lets a later module register a fault into the same registry', () => {
    registerFault({ name: 'test-only-extension-fault', rule: 'an extension rule (digest 5.4)', targets: ['webhooks.example'] });
    expect(new FaultSet(['test-only-extension-fault']).has('test-only-extension-fault')).toBe(true);
  });

  it('names only check ids that the suites define (a storyboard fault, storyboard step checks)', () => {
    const ids = builtinCheckIds();
    expect(ids.size).toBeGreaterThan(50);
    // A storyboard fault's targets are storyboard step checks of its bundle (FaultDef.storyboard; proven by that bundle's test).
    for (const f of listFaults().filter((f) => f.storyboard)) for (const id of f.targets) expect(id, f.name).toMatch(/^storyboard\.[^.]+\.[^.]+\.[^.]+$/);
    for (const f of listFaults().filter((f) => !f.name.startsWith('test-only-') && !f.storyboard)) {
      for (const id of [...f.targets, ...(f.collateral ?? [])]) expect(ids.has(id), `${f.name} → ${id}`).toBe(true);
    }
  });
});

describe('the reference seller violates no probed rule', () => {
  const names = Object.keys(PROBES);
  let plain: ProbeContext & { close(): Promise<void> };
  let slow: ProbeContext & { close(): Promise<void> };
  const open = async (latency: number) => {
    const seller = await startTestSeller({ authToken: AUTH, bookingLatencyMs: latency });
    const client = new McpTestClient(seller.mcpUrl, AUTH);
    await client.initialize();
    return { seller, client, close: () => seller.close() };
  };
  beforeAll(async () => {
    plain = await open(0);
    slow = await open(250);
  });
  afterAll(async () => {
    await plain.close();
    await slow.close();
  });
  it.each(names)('%s', async (name) => {
    const probe = PROBES[name];
    expect(await probe.violated(probe.bookingLatencyMs ? slow : plain)).toBe(false);
  });
});

describe('each fault breaks its rule', () => {
  it.each(Object.keys(PROBES))('%s', async (name) => {
    const probe = PROBES[name];
    expect(await withSeller([name], probe.bookingLatencyMs ?? 0, (ctx) => probe.violated(ctx))).toBe(true);
  });
});
