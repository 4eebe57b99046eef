/**
 * The seller's surfaces over real loopback HTTP: MCP (SSE and JSON reply modes, sessions), A2A
 * (card, message/send, tasks/get), bearer auth, body cap, the request-verifier hook, one domain
 * model behind both transports, and clean shutdown.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMockSeller } from './index.js';
import { McpTestClient, a2aGetTask, a2aSend, postJson } from './testing/wire-client.js';
import { createArgs, startTestSeller } from './testing/seller-fixtures.js';

const TASKS = [
  'get_proto_capabilities',
  'get_agent_capabilities',
  'get_products',
  'create_media_buy',
  'update_media_buy',
  'get_media_buys',
  'get_media_buy_delivery',
  'sync_accounts',
  'list_accounts',
  'list_creative_formats',
  'build_creative',
  'sync_creatives',
  'sync_audiences',
  'sync_catalogs',
  'get_signals',
  'activate_signal',
  'check_governance',
  'get_plan_audit_logs',
  'log_event',
  'provide_performance_feedback',
  'get_brand_identity',
  'comply_test_controller',
];

describe('MCP endpoint, SSE replies (default)', () => {
  let seller: RunningMockSeller;
  beforeAll(async () => {
    seller = await startTestSeller();
  });
  afterAll(() => seller.close());

  it('answers initialize with a session id over server-sent events', async () => {
    const client = new McpTestClient(seller.mcpUrl);
    const init = await client.initialize();
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toContain('text/event-stream');
    expect(client.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((init.message!.result as { serverInfo: { name: string } }).serverInfo.name).toBe('proto-comply mock seller');
  });

  it('lists every task of interface spec 4.3 with an object input schema', async () => {
    const client = new McpTestClient(seller.mcpUrl);
    await client.initialize();
    const list = await client.rpc('tools/list', {});
    const tools = (list.message!.result as { tools: { name: string; inputSchema: { type: string } }[] }).tools;
    expect(tools.map((t) => t.name).sort()).toEqual([...TASKS].sort());
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
  });

  it('serves many tools/call on one session, payload JSON in content[0].text and structuredContent', async () => {
    const client = new McpTestClient(seller.mcpUrl);
    await client.initialize();
    for (let i = 0; i < 3; i++) {
      const r = await client.call('get_products', { brief: 'ctv sports' });
      expect(r.answer.status).toBe(200);
      expect(r.answer.headers.get('content-type')).toContain('text/event-stream');
      expect(r.isError).toBe(false);
      expect(r.payload?.sandbox).toBe(true);
      expect(r.result?.structuredContent).toEqual(r.payload);
    }
  });

  it('answers an unknown session id with 404 and a session-less call with 400', async () => {
    const ghost = new McpTestClient(seller.mcpUrl);
    ghost.sessionId = '00000000-0000-4000-8000-000000000000';
    const unknown = await ghost.rpc('tools/list', {});
    expect(unknown.status).toBe(404);
    expect((unknown.message!.error as { code: number }).code).toBe(-32001);
    const none = await new McpTestClient(seller.mcpUrl).rpc('tools/list', {});
    expect(none.status).toBe(400);
  });

  it('reports an unknown tool as isError INVALID_REQUEST naming the tool', async () => {
    const client = new McpTestClient(seller.mcpUrl);
    await client.initialize();
    const r = await client.call('no_such_task', {});
    expect(r.isError).toBe(true);
    expect(r.payload).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(String(r.payload?.message)).toContain('no_such_task');
    expect(r.result?.structuredContent).toEqual({ proto_error: r.payload });
  });

  it('answers malformed JSON with a JSON-RPC parse error and an oversized body with 413', async () => {
    const bad = await postJson(seller.mcpUrl, '{"jsonrpc": "2.0", ');
    expect(bad.status).toBe(400);
    expect((bad.message!.error as { code: number }).code).toBe(-32700);
    const huge = await postJson(seller.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(1024 * 1024 + 10) } });
    expect(huge.status).toBe(413);
    const a2aHuge = await postJson(seller.a2aUrl, { pad: 'x'.repeat(1024 * 1024 + 10) });
    expect(a2aHuge.status).toBe(413);
  });

  it('answers unknown paths with 404 and wrong methods with 405', async () => {
    const res = await fetch(`${seller.baseUrl}/nowhere`, { signal: AbortSignal.timeout(5_000) });
    expect(res.status).toBe(404);
    const put = await fetch(seller.a2aUrl, { method: 'PUT', signal: AbortSignal.timeout(5_000) });
    expect(put.status).toBe(405);
  });
});

describe('MCP endpoint, JSON replies', () => {
  let seller: RunningMockSeller;
  beforeAll(async () => {
    seller = await startTestSeller({ mcpReplyMode: 'json' });
  });
  afterAll(() => seller.close());

  it('answers initialize and tools/call as application/json', async () => {
    const client = new McpTestClient(seller.mcpUrl);
    const init = await client.initialize();
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toContain('application/json');
    const r = await client.call('list_creative_formats', { type: 'video' });
    expect(r.answer.headers.get('content-type')).toContain('application/json');
    expect((r.payload!.formats as unknown[]).length).toBeGreaterThan(0);
  });
});

describe('A2A endpoint and agent card', () => {
  let seller: RunningMockSeller;
  beforeAll(async () => {
    seller = await startTestSeller();
  });
  afterAll(() => seller.close());

  it('serves an agent card whose url is /a2a and whose skills are the task names', async () => {
    const res = await fetch(seller.agentCardUrl, { signal: AbortSignal.timeout(5_000) });
    expect(res.status).toBe(200);
    const card = (await res.json()) as { url: string; skills: { id: string }[]; protocolVersion: string };
    expect(card.url).toBe(seller.a2aUrl);
    expect(card.protocolVersion).toBe('0.3');
    expect(card.skills.map((s) => s.id).sort()).toEqual([...TASKS].sort());
  });

  it('completes message/send with the payload as the last data part of artifacts[0]', async () => {
    const r = await a2aSend(seller.a2aUrl, 'get_products', { brief: 'podcast audio', context: { trace: 'a2a' } });
    expect(r.answer.status).toBe(200);
    expect(r.task?.kind).toBe('task');
    expect(r.state).toBe('completed');
    expect(r.data?.sandbox).toBe(true);
    expect(r.data?.context).toEqual({ trace: 'a2a' });
    expect((r.data!.products as { channels: string[] }[])[0].channels).toContain('audio');
  });

  it('fails an unknown skill with a <token>_error data part and a CODE: message text part', async () => {
    const r = await a2aSend(seller.a2aUrl, 'no_such_task', {});
    expect(r.state).toBe('failed');
    expect(r.data).toMatchObject({ proto_error: { code: 'INVALID_REQUEST' } });
    expect(r.text).toMatch(/^INVALID_REQUEST: .*no_such_task/);
  });

  it('fails a message without a {skill, parameters} data part with INVALID_REQUEST', async () => {
    const answer = await postJson(seller.a2aUrl, {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hello' }] } },
    });
    const task = answer.message?.result as { status: { state: string }; artifacts: { parts: { data: unknown }[] }[] };
    expect(task.status.state).toBe('failed');
    expect(task.artifacts[0].parts[0].data).toMatchObject({ proto_error: { code: 'INVALID_REQUEST', field: 'message.parts' } });
  });

  it('serves tasks/get for the caller that created the task only', async () => {
    const sent = await a2aSend(seller.a2aUrl, 'list_accounts', {}, { authToken: 'token-of-alice' });
    const id = sent.task?.id as string;
    const mine = await a2aGetTask(seller.a2aUrl, id, 'token-of-alice');
    expect(mine.state).toBe('completed');
    const theirs = await a2aGetTask(seller.a2aUrl, id, 'token-of-bob');
    expect(theirs.task).toBeUndefined();
    expect(theirs.answer.message?.error).toBeDefined();
  });

  it('shares one domain model with MCP: a buy created over MCP is read over A2A by the same principal', async () => {
    const client = new McpTestClient(seller.mcpUrl, 'shared-principal-token');
    await client.initialize();
    const buy = await client.ok('create_media_buy', createArgs());
    const read = await a2aSend(seller.a2aUrl, 'get_media_buys', { media_buy_ids: [buy.media_buy_id] }, { authToken: 'shared-principal-token' });
    expect((read.data!.media_buys as { media_buy_id: string }[]).map((b) => b.media_buy_id)).toEqual([buy.media_buy_id]);
    const stranger = await a2aSend(seller.a2aUrl, 'get_media_buys', { media_buy_ids: [buy.media_buy_id] }, { authToken: 'another-token' });
    expect(stranger.data?.media_buys).toEqual([]);
  });

  it('takes push_notification_config from the parameters and keeps an A2A-native registration apart (spec 6.2)', async () => {
    const pushConfig = { url: 'https://buyer.example/hooks/1', operation_id: 'op-123' };
    const seen: unknown[] = [];
    const off = seller.events.on('media_buy.status_changed', (e) => seen.push(e.media_buy.push_notification_config));
    try {
      const viaArgs = await a2aSend(seller.a2aUrl, 'create_media_buy', createArgs({ push_notification_config: pushConfig }));
      const viaNative = await a2aSend(seller.a2aUrl, 'create_media_buy', createArgs(), { configuration: { pushNotificationConfig: pushConfig } });
      for (const created of [viaArgs, viaNative]) {
        expect(created.state).toBe('completed');
        await a2aSend(seller.a2aUrl, 'update_media_buy', { idempotency_key: crypto.randomUUID(), media_buy_id: created.data?.media_buy_id, paused: true });
      }
      // The buy's persistent channel is the protocol's registration; the native one belongs to the A2A task.
      expect(seen).toEqual([pushConfig, undefined]);
    } finally {
      off();
    }
  });

  it('declares push notifications in its card, and checks an A2A-native registration like the argument', async () => {
    const card = (await (await fetch(seller.agentCardUrl, { signal: AbortSignal.timeout(5_000) })).json()) as { capabilities?: Record<string, unknown> };
    expect(card.capabilities?.pushNotifications).toBe(true);
    const refused = await a2aSend(seller.a2aUrl, 'create_media_buy', createArgs(), {
      configuration: { pushNotificationConfig: { url: 'https://buyer.example/hooks/2' } },
    });
    expect(refused.data).toMatchObject({ proto_error: { code: 'INVALID_REQUEST', field: 'configuration.pushNotificationConfig.operation_id' } });
  });
});

describe('bearer authentication', () => {
  const token = 'seller-secret-token-0123456789';
  let seller: RunningMockSeller;
  beforeAll(async () => {
    seller = await startTestSeller({ authToken: token });
  });
  afterAll(() => seller.close());

  it('refuses MCP calls without or with a wrong bearer with 401 and WWW-Authenticate: Bearer', async () => {
    for (const client of [new McpTestClient(seller.mcpUrl), new McpTestClient(seller.mcpUrl, 'wrong-token')]) {
      const init = await client.initialize();
      expect(init.status).toBe(401);
      expect(init.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    }
    const ok = new McpTestClient(seller.mcpUrl, token);
    expect((await ok.initialize()).status).toBe(200);
    expect((await ok.call('list_accounts')).isError).toBe(false);
  });

  it('refuses A2A calls without the bearer and keeps the agent card public', async () => {
    const refused = await a2aSend(seller.a2aUrl, 'list_accounts', {});
    expect(refused.answer.status).toBe(401);
    expect(refused.answer.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    const accepted = await a2aSend(seller.a2aUrl, 'list_accounts', {}, { authToken: token });
    expect(accepted.state).toBe('completed');
    const card = await fetch(seller.agentCardUrl, { signal: AbortSignal.timeout(5_000) });
    expect(card.status).toBe(200);
    const body = (await card.json()) as { securitySchemes?: Record<string, unknown> };
    expect(Object.keys(body.securitySchemes ?? {})).toEqual(['bearer']);
  });
});

describe('request verifier hook (RFC 9421 extension point)', () => {
  let seller: RunningMockSeller;
  const seen: { route: string; rawBody: string; url: string }[] = [];
  beforeAll(async () => {
    seller = await startTestSeller({
      authToken: 'bearer-needed-unless-signed',
      verifyRequest: async (input) => {
        seen.push({ route: input.route, rawBody: Buffer.from(input.rawBody).toString('utf8'), url: input.url });
        const sig = input.headers['signature-input'];
        if (sig === undefined) return { outcome: 'absent' };
        if (sig === 'bad') return { outcome: 'rejected', wwwAuthenticate: 'Signature error="request_signature_invalid"' };
        return { outcome: 'verified', principal: 'signer:test-agent', signer: { keyid: 'k1' } };
      },
    });
  });
  afterAll(() => seller.close());

  it('sees the exact raw body bytes and can reject with 401 + its WWW-Authenticate', async () => {
    const body = '{ "jsonrpc": "2.0",  "id": 7, "method": "message/send", "params": {} }';
    const rejected = await postJson(seller.a2aUrl, body, { 'signature-input': 'bad' });
    expect(rejected.status).toBe(401);
    expect(rejected.headers.get('www-authenticate')).toBe('Signature error="request_signature_invalid"');
    expect(seen.at(-1)).toEqual({ route: 'a2a', rawBody: body, url: seller.a2aUrl });
  });

  it('lets a verified signature stand in for the bearer and sets the principal', async () => {
    const unsigned = await a2aSend(seller.a2aUrl, 'create_media_buy', createArgs(), {});
    expect(unsigned.answer.status).toBe(401); // no signature and no bearer
    const answer = await postJson(
      seller.a2aUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'data', data: { skill: 'create_media_buy', parameters: createArgs() } }] },
        },
      },
      { 'signature-input': 'sig1=("@method")' },
    );
    const task = answer.message?.result as { id: string; status: { state: string } };
    expect(task.status.state).toBe('completed');
    const viaBearer = await a2aGetTask(seller.a2aUrl, task.id, 'bearer-needed-unless-signed');
    expect(viaBearer.task).toBeUndefined(); // the task belongs to the signer's principal, not the bearer's
  });
});

describe('shutdown', () => {
  it('closes every connection and removes its temporary database', async () => {
    const seller = await startTestSeller();
    const client = new McpTestClient(seller.mcpUrl);
    await client.initialize();
    expect(existsSync(seller.dbPath)).toBe(true);
    await seller.close();
    await seller.close(); // idempotent
    expect(existsSync(seller.dbPath)).toBe(false);
    await expect(fetch(seller.agentCardUrl, { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
  });

  it('rejects an unknown fault name, naming it and the valid ones', async () => {
    await expect(startTestSeller({ faults: ['no-such-fault'] })).rejects.toThrow(/no-such-fault.*valid faults: .*pause-ignored/);
  });
});
