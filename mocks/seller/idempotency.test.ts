/**
 * Idempotency (interface spec 4.4, digest 3) over loopback: replay, conflict, other-task conflict,
 * missing / malformed keys, expiry through advance_clock, per-account scope, concurrent same-key
 * requests, reads with a key, and durability across a restart on the same database file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashedPayload, payloadHash } from './domain/idempotency.js';
import { A2A_PUSH_FIELD } from './domain/task-def.js';
import type { RunningMockSeller } from './index.js';
import { McpTestClient, a2aSend } from './testing/wire-client.js';
import { createArgs, freshAccount, key, startTestSeller } from './testing/seller-fixtures.js';

let seller: RunningMockSeller;
let client: McpTestClient;

beforeAll(async () => {
  seller = await startTestSeller({ bookingLatencyMs: 40 });
  client = new McpTestClient(seller.mcpUrl);
  await client.initialize();
});
afterAll(() => seller.close());

async function buysOf(account: unknown): Promise<Record<string, unknown>[]> {
  return (await client.ok('get_media_buys', { account })).media_buys as Record<string, unknown>[];
}

describe('payload hash (digest 3.3)', () => {
  it('excludes exactly idempotency_key, context, governance_context and the push credentials', () => {
    const base = { a: 1, push_notification_config: { url: 'https://x.example/h', authentication: { schemes: ['Bearer'], credentials: 'c'.repeat(32) } } };
    const variant = {
      ...base,
      idempotency_key: 'k'.repeat(20),
      context: { x: 1 },
      governance_context: 'g',
      push_notification_config: { ...base.push_notification_config, authentication: { schemes: ['Bearer'], credentials: 'd'.repeat(32) } },
    };
    expect(payloadHash('t', hashedPayload(variant))).toBe(payloadHash('t', hashedPayload(base)));
    expect(payloadHash('t', hashedPayload(base))).not.toBe(payloadHash('other_task', hashedPayload(base)));
    const otherUrl = { ...base, push_notification_config: { ...base.push_notification_config, url: 'https://y.example/h' } };
    expect(payloadHash('t', hashedPayload(otherUrl))).not.toBe(payloadHash('t', hashedPayload(base)));
    expect(payloadHash('t', hashedPayload({ ...base, ext: { v: 1 } }))).not.toBe(payloadHash('t', hashedPayload(base)));
    expect(payloadHash('t', hashedPayload({ ...base, z: null }))).not.toBe(payloadHash('t', hashedPayload(base)));
    expect(payloadHash('t', { b: 1, a: 2 })).toBe(payloadHash('t', { a: 2, b: 1 }));
    // An A2A-native registration, hashed under its own name: credentials out, the rest in.
    const native = { a: 1, [A2A_PUSH_FIELD]: base.push_notification_config };
    const nativeRotated = { a: 1, [A2A_PUSH_FIELD]: variant.push_notification_config };
    expect(payloadHash('t', hashedPayload(nativeRotated))).toBe(payloadHash('t', hashedPayload(native)));
    expect(payloadHash('t', hashedPayload(native))).not.toBe(payloadHash('t', hashedPayload(base)));
  });
});

describe('replay and conflict', () => {
  it('replays an identical request with replayed: true, the original body, and no new buy', async () => {
    const args = createArgs({ context: { n: 1 } });
    const first = await client.ok('create_media_buy', args);
    expect(first).not.toHaveProperty('replayed');
    const again = await client.ok('create_media_buy', { ...args, context: { n: 2 } });
    expect(again.replayed).toBe(true);
    expect(again.context).toEqual({ n: 2 });
    const { replayed: _r, context: _c2, ...rest2 } = again;
    const { context: _c1, ...rest1 } = first;
    expect(rest2).toEqual(rest1);
    expect(await buysOf(args.account)).toHaveLength(1);
  });

  it('replays the create-time snapshot, not the current state', async () => {
    const args = createArgs();
    const first = await client.ok('create_media_buy', args);
    await client.ok('update_media_buy', { idempotency_key: key(), media_buy_id: first.media_buy_id, paused: true });
    const again = await client.ok('create_media_buy', args);
    expect(again).toMatchObject({ status: 'active', revision: 1, replayed: true });
  });

  it('answers a changed payload with IDEMPOTENCY_CONFLICT carrying only code, message and recovery', async () => {
    const args = createArgs();
    await client.ok('create_media_buy', args);
    const err = await client.err('create_media_buy', {
      ...args,
      packages: [{ product_id: 'olv_news_preroll', pricing_option_id: 'olv_news_cpm_usd', budget: 10 }],
    });
    expect(err).toEqual({ code: 'IDEMPOTENCY_CONFLICT', message: expect.any(String), recovery: 'correctable' });
  });

  it('answers the same key on another task with IDEMPOTENCY_CONFLICT', async () => {
    const args = createArgs();
    await client.ok('create_media_buy', args);
    const err = await client.err('sync_audiences', {
      idempotency_key: args.idempotency_key,
      account: args.account,
      audiences: [{ audience_id: 'a', name: 'n', audience_type: 'suppression' }],
    });
    expect(err.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('rejects a missing or malformed key with INVALID_REQUEST naming idempotency_key, and never caches it', async () => {
    const { idempotency_key: _k, ...noKey } = createArgs();
    expect(await client.err('create_media_buy', noKey)).toMatchObject({ code: 'INVALID_REQUEST', field: 'idempotency_key' });
    for (const bad of ['not a key!', 'short', 'x'.repeat(256), 42]) {
      expect(await client.err('create_media_buy', { ...noKey, idempotency_key: bad })).toMatchObject({ code: 'INVALID_REQUEST', field: 'idempotency_key' });
    }
    expect(await buysOf(noKey.account)).toHaveLength(0);
  });

  it('does not cache failures: the corrected request under the same key executes', async () => {
    const args = createArgs();
    expect((await client.err('create_media_buy', { ...args, packages: [] })).code).toBe('INVALID_REQUEST');
    const created = await client.ok('create_media_buy', args);
    expect(created).not.toHaveProperty('replayed');
    const upd = { idempotency_key: key(), media_buy_id: 'mb_missing', paused: true };
    expect((await client.err('update_media_buy', upd)).code).toBe('MEDIA_BUY_NOT_FOUND');
    const fixed = await client.ok('update_media_buy', { ...upd, media_buy_id: created.media_buy_id });
    expect(fixed).toMatchObject({ status: 'paused' });
  });

  it('applies replay semantics to reads that carry a key', async () => {
    const k = key();
    const first = await client.ok('get_products', { brief: 'ctv', idempotency_key: k });
    const again = await client.ok('get_products', { brief: 'ctv', idempotency_key: k });
    expect(first).not.toHaveProperty('replayed');
    expect(again.replayed).toBe(true);
    expect((await client.err('get_products', { brief: 'audio', idempotency_key: k })).code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('shares the cache across transports for the same principal', async () => {
    const args = createArgs();
    const viaMcp = await client.ok('create_media_buy', args);
    const viaA2a = await a2aSend(seller.a2aUrl, 'create_media_buy', args);
    expect(viaA2a.data).toMatchObject({ media_buy_id: viaMcp.media_buy_id, replayed: true });
  });

  it('hashes an A2A-native push registration as part of the payload, apart from the argument', async () => {
    const args = createArgs();
    const push = { url: 'https://buyer.example/h/1', operation_id: 'op-1' };
    const first = await a2aSend(seller.a2aUrl, 'create_media_buy', args, { configuration: { pushNotificationConfig: push } });
    expect(first.state).toBe('completed');
    const same = await a2aSend(seller.a2aUrl, 'create_media_buy', args, { configuration: { pushNotificationConfig: push } });
    expect(same.data?.replayed).toBe(true);
    const moved = await a2aSend(seller.a2aUrl, 'create_media_buy', args, {
      configuration: { pushNotificationConfig: { ...push, url: 'https://buyer.example/h/2' } },
    });
    expect(moved.data).toMatchObject({ proto_error: { code: 'IDEMPOTENCY_CONFLICT' } });
    // The same registration as a task argument is another channel (another envelope): another payload.
    const asArgument = await client.call('create_media_buy', { ...args, push_notification_config: push });
    expect(asArgument.payload).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
  });
});

describe('scope, expiry and concurrency', () => {
  it('scopes keys per account: the same key in another account executes anew', async () => {
    const args = createArgs();
    const first = await client.ok('create_media_buy', args);
    const other = await client.ok('create_media_buy', { ...args, account: freshAccount() });
    expect(other).not.toHaveProperty('replayed');
    expect(other.media_buy_id).not.toBe(first.media_buy_id);
  });

  it('scopes keys per principal', async () => {
    const args = createArgs();
    const mine = await client.ok('create_media_buy', args);
    const stranger = new McpTestClient(seller.mcpUrl, 'someone-else');
    await stranger.initialize();
    const theirs = await stranger.ok('create_media_buy', args);
    expect(theirs).not.toHaveProperty('replayed');
    expect(theirs.media_buy_id).not.toBe(mine.media_buy_id);
  });

  it('answers IDEMPOTENCY_EXPIRED once the account clock passed replay_ttl_seconds, other accounts unaffected', async () => {
    const caps = await client.ok('get_proto_capabilities');
    const ttl = (caps.proto as { idempotency: { replay_ttl_seconds: number } }).idempotency.replay_ttl_seconds;
    expect(ttl).toBe(86_400);
    const aged = createArgs();
    const fresh = createArgs();
    await client.ok('create_media_buy', aged);
    await client.ok('create_media_buy', fresh);
    const moved = await client.ok('comply_test_controller', {
      scenario: 'advance_clock',
      params: { seconds: ttl - 120 },
      account: { ...(aged.account as object), sandbox: true },
    });
    expect(moved.success).toBe(true);
    expect((await client.ok('create_media_buy', aged)).replayed).toBe(true); // still inside the window
    await client.ok('comply_test_controller', { scenario: 'advance_clock', params: { seconds: 240 }, account: { ...(aged.account as object), sandbox: true } });
    expect(await client.err('create_media_buy', aged)).toEqual({ code: 'IDEMPOTENCY_EXPIRED', message: expect.any(String), recovery: 'correctable' });
    expect((await client.ok('create_media_buy', fresh)).replayed).toBe(true);
  });

  it('creates exactly one buy for concurrent same-key requests (wait-and-replay)', async () => {
    const args = createArgs();
    const answers = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const c = new McpTestClient(seller.mcpUrl);
        await c.initialize();
        return c.ok('create_media_buy', args);
      }),
    );
    expect(new Set(answers.map((a) => a.media_buy_id)).size).toBe(1);
    expect(answers.filter((a) => a.replayed !== true)).toHaveLength(1);
    expect(await buysOf(args.account)).toHaveLength(1);
  });
});

describe('durability', () => {
  it('still replays after a restart on the same database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-seller-durable-'));
    try {
      const dbPath = join(dir, 'seller.sqlite');
      const args = createArgs();
      const one = await startTestSeller({ dbPath });
      const c1 = new McpTestClient(one.mcpUrl, 'durable-principal');
      await c1.initialize();
      const created = await c1.ok('create_media_buy', args);
      await one.close();

      const two = await startTestSeller({ dbPath });
      try {
        const c2 = new McpTestClient(two.mcpUrl, 'durable-principal');
        await c2.initialize();
        const again = await c2.ok('create_media_buy', args);
        expect(again).toMatchObject({ media_buy_id: created.media_buy_id, replayed: true });
        const buys = (await c2.ok('get_media_buys', { account: args.account })).media_buys as unknown[];
        expect(buys).toHaveLength(1);
      } finally {
        await two.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
