/**
 * Which envelope goes where (interface spec 6.2) and the buy's start-of-flight announcement
 * (spec 3.1, 6.4), observed by a plain loopback receiver: push_notification_config yields the MCP
 * envelope over A2A too, an A2A-native registration the A2A envelope (a Task with the result as
 * the last data part of artifacts[0], or a TaskStatusUpdateEvent with the interim data first in
 * status.message), both fire when both are registered, and a pending buy that starts is announced
 * once per persistent channel, signed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrandJwksResolver } from '../../../../harness/core/signing/keys/jwks-resolver.js';
import { InMemoryReplayCache } from '../../../../harness/core/signing/verify/replay-cache.js';
import { verifyRequestSignature } from '../../../../harness/core/signing/verify/verifier.js';
import { protocolIds } from '../../../../harness/core/token.js';
import type { AsyncTaskRecord } from '../../domain/async-task-record.js';
import { FaultSet } from '../../faults.js';
import type { RunningMockSeller } from '../../options.js';
import { HookReceiver, type Hit } from '../../testing/hook-receiver.js';
import { createArgs, freshAccount, isoIn, key, startTestSeller } from '../../testing/seller-fixtures.js';
import { McpTestClient, a2aSend } from '../../testing/wire-client.js';
import { a2aTaskEnvelope } from './a2a.js';

const ids = protocolIds('proto');
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let seller: RunningMockSeller;
let client: McpTestClient;
const receiver = new HookReceiver();
let n = 0;
const path = () => `/channels/${++n}/route-token`;

async function control(scenario: string, params: Record<string, unknown>, account: Record<string, unknown>) {
  return client.ok('comply_test_controller', { scenario, params, account: { ...account, sandbox: true } });
}

async function verifies(hit: Hit, url: string): Promise<boolean> {
  const resolver = new BrandJwksResolver({ brandJsonUrl: seller.brandJsonUrl, agentUrl: seller.mcpUrl, allowInsecureLoopback: true });
  const verdict = await verifyRequestSignature(
    { method: 'POST', url, headers: hit.headers, body: new Uint8Array(hit.raw) },
    {
      profile: 'webhook',
      ids,
      encoding: 'legacy',
      now: () => Math.floor(hit.at / 1000),
      keys: resolver,
      replayCache: new InMemoryReplayCache({ perKeyidCap: 10 }),
    },
  );
  return verdict.ok;
}

/** An async create over A2A (armed through MCP for the same principal), completed by the controller. */
async function asyncA2aCreate(registrations: { args?: string; native?: string }) {
  const account = freshAccount();
  const taskId = `task-${key()}`;
  await control('force_create_media_buy_arm', { arm: 'submitted', task_id: taskId }, account);
  const args = createArgs({
    account,
    context: { c: 2 },
    ...(registrations.args ? { push_notification_config: { url: receiver.base + registrations.args, operation_id: 'op-args' } } : {}),
  });
  const sent = await a2aSend(seller.a2aUrl, 'create_media_buy', args, {
    ...(registrations.native ? { configuration: { pushNotificationConfig: { url: receiver.base + registrations.native, operation_id: 'op-native' } } } : {}),
  });
  expect(sent.state).toBe('submitted');
  await control('force_task_completion', { task_id: taskId, result: { media_buy_id: 'mb_native', status: 'active' } }, account);
  await seller.webhooksIdle();
  return { taskId, a2aTaskId: sent.task?.id as string, contextId: sent.task?.contextId as string };
}

beforeAll(async () => {
  await receiver.start();
  seller = await startTestSeller({ requestSigning: false, webhooks: { retryBaseDelayMs: 5 } });
  client = new McpTestClient(seller.mcpUrl);
  await client.initialize();
});
afterAll(async () => {
  await seller?.close();
  await receiver.close();
});

describe('the registration channel decides the envelope (spec 6.2)', () => {
  it('push_notification_config sent over A2A yields the MCP envelope', async () => {
    const p = path();
    const { taskId } = await asyncA2aCreate({ args: p });
    const [hit, ...rest] = receiver.at(p);
    expect(rest).toEqual([]);
    expect(hit!.body).toMatchObject({
      task_id: taskId,
      operation_id: 'op-args',
      status: 'completed',
      context: { c: 2 },
      result: { media_buy_id: 'mb_native' },
    });
  });

  it('an A2A-native registration yields a signed A2A Task with the result as the last data part of artifacts[0]', async () => {
    const p = path();
    const { a2aTaskId, contextId } = await asyncA2aCreate({ native: p });
    const [hit, ...rest] = receiver.at(p);
    expect(rest).toEqual([]);
    expect(hit!.body).toMatchObject({ kind: 'task', id: a2aTaskId, contextId, status: { state: 'completed' }, metadata: { operation_id: 'op-native' } });
    expect(hit!.body).not.toHaveProperty('task_id');
    expect(hit!.body.metadata.idempotency_key).toMatch(UUID4);
    const parts = hit!.body.artifacts[0].parts as { kind: string; data?: unknown }[];
    expect(parts.filter((x) => x.kind === 'data').at(-1)?.data).toEqual({ media_buy_id: 'mb_native', status: 'active' });
    expect(await verifies(hit!, receiver.base + p)).toBe(true);
  });

  it('both registered: both fire, each in its own envelope', async () => {
    const args = path();
    const native = path();
    await asyncA2aCreate({ args, native });
    expect(receiver.at(args).map((h) => typeof h.body.status)).toEqual(['string']);
    expect(receiver.at(native).map((h) => h.body.status?.state)).toEqual(['completed']);
  });

  it('progress goes out as a TaskStatusUpdateEvent with the interim data first in status.message', () => {
    const task: AsyncTaskRecord = {
      task_id: 't1',
      task_type: 'create_media_buy',
      status: 'working',
      principal: 'p',
      account_key: 'a',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    };
    const link = { config: {}, task_id: 'a2a-1', context_id: 'ctx-1' };
    const reg = { url: 'https://buyer.example/h', operation_id: 'op', mode: 'rfc9421' as const };
    const e = a2aTaskEnvelope(task, link, 'working', '2026-01-01T00:00:01Z', reg, new FaultSet());
    expect(e).toMatchObject({
      kind: 'status-update',
      taskId: 'a2a-1',
      contextId: 'ctx-1',
      final: false,
      status: { state: 'working' },
      metadata: { operation_id: 'op' },
    });
    const parts = (e.status as { message: { parts: { kind: string; data?: unknown }[] } }).message.parts;
    expect(parts.find((x) => x.kind === 'data')?.data).toMatchObject({ percentage: 50 });
    const misplaced = a2aTaskEnvelope(task, link, 'completed', '2026-01-01T00:00:02Z', reg, new FaultSet(['webhook-a2a-result-misplaced']));
    expect(misplaced).toMatchObject({ kind: 'task', artifacts: [] });
  });
});

describe('start of flight (spec 3.1, 6.4)', () => {
  it('announces pending_start -> active once per persistent channel, signed, and not for a buy that starts active', async () => {
    const p = path();
    const account = freshAccount();
    const url = receiver.base + p;
    const reg = { url, operation_id: 'op-buy' };
    const buy = await client.ok(
      'create_media_buy',
      createArgs({ account, start_time: isoIn(7), end_time: isoIn(37), context: { b: 1 }, push_notification_config: reg, reporting_webhook: reg }),
    );
    expect(buy.status).toBe('pending_start');
    await seller.webhooksIdle();
    expect(receiver.at(p)).toEqual([]);
    await control('force_media_buy_status', { media_buy_id: buy.media_buy_id, status: 'active' }, account);
    const [hit, ...rest] = await receiver.waitFor(p);
    await seller.webhooksIdle();
    expect(rest).toEqual([]);
    expect(hit!.body).toMatchObject({
      task_id: buy.media_buy_id,
      operation_id: 'op-buy',
      status: 'completed',
      context: { b: 1 },
      result: { media_buy_id: buy.media_buy_id, previous_status: 'pending_start', status: 'active' },
    });
    expect(await verifies(hit!, url)).toBe(true);
    const q = path();
    const active = await client.ok('create_media_buy', createArgs({ push_notification_config: { url: receiver.base + q, operation_id: 'op' } }));
    expect(active.status).toBe('active');
    await seller.webhooksIdle();
    expect(receiver.at(q)).toEqual([]);
  });
});
