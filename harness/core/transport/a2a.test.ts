/** Interop: the A2A transport against an agent built on the official @a2a-js/sdk (v0.3 compat). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTransport } from './a2a.js';
import { createRecorder } from './capture.js';
import { resolveEndpoints } from './endpoints.js';
import { createTransport } from './factory.js';
import { protocolIds } from '../token.js';
import { A2A_PRODUCTS, startA2aServer, type A2aTestServer } from './testing/a2a-sdk-server.js';
import { testSettings } from './testing/settings.js';

const settings = testSettings;

describe('A2A transport vs SDK agent', () => {
  let server: A2aTestServer;
  let transport: A2aTransport;
  const capture = createRecorder();

  beforeAll(async () => {
    server = await startA2aServer();
    transport = new A2aTransport(settings({ authToken: 'a2a-secret-token', capture }), resolveEndpoints(server.base));
  });
  afterAll(async () => {
    await transport?.close();
    await server?.close();
  });

  it('reads the agent card and uses its url as the endpoint', async () => {
    const info = await transport.open();
    expect(info.failure).toBeUndefined();
    expect(info).toMatchObject({ transport: 'a2a', serverName: 'test-a2a-seller', serverVersion: '7.7.7', protocolVersion: '0.3' });
    expect(transport.endpoint).toBe(server.rpcUrl);
    expect(info.exchanges.map((x) => x.purpose)).toEqual(['agent-card']);
    expect(info.exchanges[0].request.headers['a2a-version']).toBe('0.3');
  });

  it('lists skills as tasks', async () => {
    const list = await transport.listTasks();
    expect(list).toMatchObject({ source: 'agent_card', names: ['get_products', 'fail_task', 'slow_task', 'message_reply', 'echo'] });
  });

  it('sends message/send with one data part and reads the final artifact payload', async () => {
    const r = await transport.call('get_products', { brief: 'ctv' });
    expect(r.failure).toBeUndefined();
    expect(r).toMatchObject({ ok: true, status: 'completed', isError: false, payloadSource: 'artifact', payload: A2A_PRODUCTS, text: '1 product' });
    expect(r.taskId).toMatch(/[0-9a-f-]{36}/);
    expect(r.contextId).toBeTypeOf('string');
    const body = server.rpcBodies.at(-1) as { method: string; params: Record<string, unknown> };
    expect(body.method).toBe('message/send');
    expect(body.params).toMatchObject({
      message: { kind: 'message', role: 'user', parts: [{ kind: 'data', data: { skill: 'get_products', parameters: { brief: 'ctv' } } }] },
      configuration: { blocking: true },
    });
    expect(server.rpcHeaders.at(-1)?.['a2a-version']).toBe('0.3');
    expect(server.rpcHeaders.at(-1)?.authorization).toBe('Bearer a2a-secret-token');
  });

  it("puts the protocol's push registration into the parameters, as a task argument (spec 6.2: MCP envelope)", async () => {
    const push = { url: 'https://buyer.example/hook', operation_id: 'op-1' };
    const r = await transport.call('echo', { a: 1 }, { pushNotificationConfig: push });
    expect(r.payload).toEqual({ skill: 'echo', parameters: { a: 1, push_notification_config: push } });
    const body = server.rpcBodies.at(-1) as { params: { configuration: unknown } };
    expect(body.params.configuration).toEqual({ blocking: true });
  });

  it('puts an A2A-native push registration under configuration only (spec 2.7, 6.2: A2A envelope)', async () => {
    const push = { url: 'https://buyer.example/hook', token: 'tok-123456' };
    const r = await transport.call('echo', { a: 1 }, { a2aPushNotificationConfig: push });
    expect(r.payload).toEqual({ skill: 'echo', parameters: { a: 1 } });
    const body = server.rpcBodies.at(-1) as { params: { configuration: unknown; message: { parts: Array<{ data: unknown }> } } };
    expect(body.params.configuration).toEqual({ blocking: true, pushNotificationConfig: push });
    expect(JSON.stringify(body.params.message)).not.toContain('hook');
  });

  it('sends webhook credentials but never records them', async () => {
    const secret = 'hmac-secret-0123456789abcdef0123456789abcdef';
    const r = await transport.call(
      'echo',
      { a: 1 },
      { pushNotificationConfig: { url: 'https://buyer.example/hook', authentication: { schemes: ['HMAC-SHA256'], credentials: secret } } },
    );
    expect(JSON.stringify(server.rpcBodies.at(-1))).toContain(secret); // the agent got it
    expect(JSON.stringify(r.exchanges)).not.toContain(secret);
    const native = 'native-secret-0123456789abcdef0123456789abcdef';
    const n = await transport.call(
      'echo',
      {},
      { a2aPushNotificationConfig: { url: 'https://buyer.example/hook', authentication: { schemes: ['HMAC-SHA256'], credentials: native } } },
    );
    expect(JSON.stringify(server.rpcBodies.at(-1))).toContain(native);
    expect(JSON.stringify(n.exchanges)).not.toContain(native);
    expect(JSON.stringify(r.exchanges)).not.toContain(secret);
    expect(JSON.stringify(r.exchanges)).toContain('<redacted:');
  });

  it('decodes a failed task carrying the protocol error object', async () => {
    const r = await transport.call('fail_task', {});
    expect(r).toMatchObject({ ok: false, isError: true, status: 'failed', text: 'INVALID_REQUEST: brief is required' });
    expect(r.error).toEqual({
      code: 'INVALID_REQUEST',
      message: 'brief is required',
      source: 'a2a_part',
      raw: { code: 'INVALID_REQUEST', message: 'brief is required' },
    });
    expect(r.payload).toHaveProperty(protocolIds('proto').errorMember);
  });

  it('returns a working task with its interim status-message data', async () => {
    const r = await transport.call('slow_task', {});
    expect(r).toMatchObject({ ok: true, status: 'working', payloadSource: 'status_message', payload: { percentage: 10 } });
  });

  it('polls tasks/get until the task completes', async () => {
    const r = await transport.call('slow_task', {}, { pollUntilTerminal: true });
    expect(r).toMatchObject({ ok: true, status: 'completed', payloadSource: 'artifact', payload: { media_buy_id: 'mb-1' } });
    expect(r.exchanges.map((x) => x.purpose.split(' ')[0])).toEqual(['message/send', 'tasks/get', 'tasks/get']);
    const again = await transport.getTask(r.taskId!);
    expect(again).toMatchObject({ task: 'slow_task', status: 'completed' });
    expect(server.rpcBodies.at(-1)).toMatchObject({ method: 'tasks/get', params: { id: r.taskId } });
  });

  it('decodes a Message reply', async () => {
    const r = await transport.call('message_reply', {});
    expect(r).toMatchObject({ ok: true, status: 'completed', payload: { greeting: 'hi' }, text: 'hello' });
    expect(r.notes.join(' ')).toContain('Message');
  });

  it('turns a JSON-RPC error into a protocol failure', async () => {
    const r = await transport.getTask('no-such-task');
    expect(r.ok).toBe(false);
    expect(r.failure).toMatchObject({ kind: 'protocol', jsonRpcError: { code: -32001 } });
  });

  it('never records the bearer token', () => {
    const dump = JSON.stringify(capture.all());
    expect(dump).toContain('a2a-version');
    expect(dump).not.toContain('a2a-secret-token');
  });
});

describe('A2A agent card discovery', () => {
  let server: A2aTestServer;
  beforeAll(async () => {
    server = await startA2aServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('falls back from the path-routed card to the origin card', async () => {
    const endpoints = resolveEndpoints(`${server.base}/sales/mcp`);
    const t = createTransport('a2a', settings(), endpoints);
    try {
      const info = await t.open();
      expect(info.failure).toBeUndefined();
      expect(info.exchanges.map((x) => x.response?.status)).toEqual([404, 200]);
      expect(t.endpoint).toBe(server.rpcUrl);
    } finally {
      await t.close();
    }
  });

  it('reports a missing card as a failure on open, list and call', async () => {
    const t = new A2aTransport(settings(), { agentCard: [`${server.base}/nowhere/.well-known/agent-card.json`] });
    try {
      const info = await t.open();
      expect(info.failure).toMatchObject({ kind: 'http_status', httpStatus: 404 });
      expect((await t.listTasks()).failure?.httpStatus).toBe(404);
      const r = await t.call('get_products', {});
      expect(r).toMatchObject({ ok: false, status: 'unknown' });
      expect(r.failure?.httpStatus).toBe(404);
      expect(server.rpcBodies).toHaveLength(0);
    } finally {
      await t.close();
    }
  });
});
