/**
 * Interop: the MCP transport against servers built on the official SDK over loopback HTTP,
 * in the four combinations stateful/stateless × JSON/SSE replies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecorder } from './capture.js';
import { McpTransport } from './mcp.js';
import { protocolIds } from '../token.js';
import { PRODUCTS, startMcpServer, type McpTestServer } from './testing/mcp-sdk-server.js';
import { startRawServer, type RawServer } from './testing/raw-server.js';
import { testSettings } from './testing/settings.js';

const ids = protocolIds('proto');

const settings = testSettings;

const COMBOS = [
  { stateful: true, json: true },
  { stateful: true, json: false },
  { stateful: false, json: true },
  { stateful: false, json: false },
] as const;

describe.each(COMBOS)('MCP transport vs SDK server (stateful=$stateful, json=$json)', ({ stateful, json }) => {
  let server: McpTestServer;
  let transport: McpTransport;

  beforeAll(async () => {
    server = await startMcpServer({ stateful, json });
    transport = new McpTransport(settings(), server.url);
  });
  afterAll(async () => {
    await transport?.close();
    await server?.close();
  });

  it('opens one session with initialize + notifications/initialized', async () => {
    const info = await transport.open();
    expect(info.failure).toBeUndefined();
    expect(info.serverName).toBe('test-seller');
    expect(info.protocolVersion).toBe('2025-06-18');
    if (stateful) expect(info.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    else expect(info.sessionId).toBeUndefined();
    expect(info.exchanges.map((x) => x.purpose)).toEqual(['initialize', 'notifications/initialized']);
    const notify = server.seen.find((s) => s.rpcMethod === 'notifications/initialized');
    expect(notify?.headers['mcp-protocol-version']).toBe('2025-06-18');
    if (stateful) expect(notify?.headers['mcp-session-id']).toBe(info.sessionId);
  });

  it('lists tools', async () => {
    const list = await transport.listTasks();
    expect(list.failure).toBeUndefined();
    expect(list.source).toBe('tools/list');
    expect(list.names).toEqual(expect.arrayContaining(['get_products', 'get_summary', 'fail_task', 'fail_prose', 'async_task', 'echo']));
  });

  it('reads a JSON text payload from content[0].text', async () => {
    const r = await transport.call('get_products', {});
    expect(r.failure).toBeUndefined();
    expect(r).toMatchObject({ ok: true, status: 'completed', isError: false, payloadSource: 'content_text', payload: PRODUCTS });
    expect(r.httpStatus).toBe(200);
    expect(r.exchanges).toHaveLength(1);
    expect(r.exchanges[0].purpose).toBe('tools/call get_products');
    expect(r.exchanges[0].response?.headers['content-type']).toContain(json ? 'application/json' : 'text/event-stream');
  });

  it('falls back to structuredContent when the text is prose', async () => {
    const r = await transport.call('get_summary', {});
    expect(r).toMatchObject({ ok: true, payloadSource: 'structured_content', payload: PRODUCTS, text: 'Found 1 product for your brief.' });
    expect(r.notes.join(' ')).toContain('structuredContent');
  });

  it('decodes isError with a JSON error text', async () => {
    const r = await transport.call('fail_task', {});
    expect(r).toMatchObject({ ok: false, isError: true, status: 'failed' });
    expect(r.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'brief is required', source: 'is_error_text' });
  });

  it('decodes isError with prose text and a structured error', async () => {
    const r = await transport.call('fail_prose', {});
    expect(r).toMatchObject({ isError: true, status: 'failed', text: 'Sorry, that went wrong.' });
    expect(r.error).toMatchObject({ code: 'RATE_LIMITED', source: 'structured_content' });
    expect(r.error?.raw).toEqual({ code: 'RATE_LIMITED', message: 'slow down' });
    expect(ids.errorMember in (r.payload as object)).toBe(true);
  });

  it('keeps a non-JSON isError text verbatim with an empty code', async () => {
    const r = await transport.call('fail_plain', {});
    expect(r.isError).toBe(true);
    expect(r.error).toMatchObject({ code: '', message: 'plain failure' });
    expect(r.notes.some((n) => n.includes('not a JSON error object'))).toBe(true);
  });

  it('reports an async task status and task id', async () => {
    const r = await transport.call('async_task', {});
    expect(r).toMatchObject({ ok: true, status: 'submitted', taskId: 'task-123' });
  });

  it('puts the push notification config into the arguments', async () => {
    const push = { url: 'https://buyer.example/hook', operation_id: 'op-1' };
    const r = await transport.call('echo', { a: 1 }, { pushNotificationConfig: push });
    expect(r.payload).toEqual({ echoed: { a: 1, push_notification_config: push } });
  });

  it('refuses an A2A-native push registration without sending anything (MCP has no such channel)', async () => {
    const before = server.seen.filter((s) => s.rpcMethod === 'tools/call').length;
    const r = await transport.call('echo', { a: 1 }, { a2aPushNotificationConfig: { url: 'https://buyer.example/hook' } });
    expect(r.ok).toBe(false);
    expect(r.failure).toMatchObject({ kind: 'refused' });
    expect(server.seen.filter((s) => s.rpcMethod === 'tools/call').length).toBe(before);
  });

  it('sends webhook credentials but never records them', async () => {
    const secret = 'hmac-secret-0123456789abcdef0123456789abcdef';
    const push = { url: 'https://buyer.example/hook', authentication: { schemes: ['HMAC-SHA256'], credentials: secret } };
    const r = await transport.call(
      'echo',
      { reporting_webhook: { url: 'https://buyer.example/r', authentication: { schemes: ['Bearer'], credentials: 'bearer-cred-987654321' } } },
      { pushNotificationConfig: push },
    );
    expect(JSON.stringify(r.payload)).toContain(secret); // the agent got it
    const recorded = JSON.stringify(r.exchanges);
    expect(recorded).not.toContain(secret);
    expect(recorded).not.toContain('bearer-cred-987654321');
    expect(recorded).toContain('<redacted:');
  });

  it('picks the response among notifications on the stream', async () => {
    const r = await transport.call('notify_then_answer', {});
    expect(r).toMatchObject({ ok: true, payload: { done: true } });
    if (!json) expect(r.notes.some((n) => n.includes('ignored 1 SSE event'))).toBe(true);
  });

  it('turns an unknown tool into an error reply, not a crash', async () => {
    // SDK 1.x answers an unknown tool with an isError result whose text is prose.
    const r = await transport.call('no_such_tool', {});
    expect(r).toMatchObject({ ok: false, isError: true, status: 'failed' });
    expect(r.failure).toBeUndefined();
    expect(r.error?.message).toContain('no_such_tool');
  });

  it('sends the session id and protocol version on every call and never re-initializes', async () => {
    await Promise.all(Array.from({ length: 6 }, (_, i) => transport.call('echo', { i })));
    expect(server.initializeCount()).toBe(1);
    expect(transport.stats().sessionsOpened).toBe(1);
    const calls = server.seen.filter((s) => s.rpcMethod === 'tools/call');
    expect(calls.length).toBeGreaterThan(6);
    for (const c of calls) {
      expect(c.headers['mcp-protocol-version']).toBe('2025-06-18');
      expect(c.headers.accept).toBe('application/json, text/event-stream');
      if (stateful) expect(c.headers['mcp-session-id']).toBeTypeOf('string');
      else expect(c.headers['mcp-session-id']).toBeUndefined();
    }
    if (stateful) expect(new Set(calls.map((c) => c.headers['mcp-session-id'])).size).toBe(1);
  });
});

describe('MCP session handling (stateful SDK server)', () => {
  let server: McpTestServer;
  beforeAll(async () => {
    server = await startMcpServer({ stateful: true, json: false });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('opens exactly one session when the first calls are concurrent', async () => {
    const before = server.initializeCount();
    const t = new McpTransport(settings(), server.url);
    try {
      const replies = await Promise.all(Array.from({ length: 8 }, () => t.call('get_products', {})));
      expect(replies.every((r) => r.ok)).toBe(true);
      expect(server.initializeCount() - before).toBe(1);
      expect(t.stats()).toEqual({ sessionsOpened: 1, calls: 8 });
    } finally {
      await t.close();
    }
  });

  it('re-initializes once and retries when the session expired (404)', async () => {
    const t = new McpTransport(settings(), server.url);
    try {
      const first = await t.open();
      expect((await t.call('get_products', {})).ok).toBe(true);
      server.expireSessions();
      const before = server.initializeCount();
      const replies = await Promise.all(Array.from({ length: 4 }, () => t.call('get_products', {})));
      expect(replies.every((r) => r.ok)).toBe(true);
      expect(server.initializeCount() - before).toBe(1);
      expect(t.stats().sessionsOpened).toBe(2);
      const withReinit = replies.filter((r) => r.exchanges.some((x) => x.purpose === 'initialize'));
      expect(withReinit).toHaveLength(1);
      expect(withReinit[0].exchanges.map((x) => x.response?.status)).toEqual([404, 200, 202, 200]);
      for (const r of replies) expect(r.notes.some((n) => n.includes('session expired'))).toBe(true);
      const info = await t.open();
      expect(info.sessionId).not.toBe(first.sessionId);
    } finally {
      await t.close();
    }
  });

  it('ends the session with DELETE on close', async () => {
    const t = new McpTransport(settings(), server.url);
    const info = await t.open();
    await t.close();
    const del = server.seen.find((s) => s.method === 'DELETE' && s.headers['mcp-session-id'] === info.sessionId);
    expect(del).toBeDefined();
  });

  it('answers getTask with a protocol failure', async () => {
    const t = new McpTransport(settings(), server.url);
    try {
      const r = await t.getTask('task-1');
      expect(r.failure?.kind).toBe('protocol');
      expect(r.exchanges).toHaveLength(0);
    } finally {
      await t.close();
    }
  });
});

describe('MCP auth', () => {
  const secret = 'sk-test-0123456789abcdef';
  let server: McpTestServer;
  beforeAll(async () => {
    server = await startMcpServer({ stateful: true, json: true, requireToken: secret });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('reports 401 with WWW-Authenticate when no token is configured', async () => {
    const t = new McpTransport(settings(), server.url);
    try {
      const r = await t.call('get_products', {});
      expect(r.failure).toMatchObject({
        kind: 'http_status',
        httpStatus: 401,
        wwwAuthenticate: 'Bearer realm="test-seller", error="invalid_token"',
      });
      expect(r.exchanges.map((x) => x.purpose)).toEqual(['initialize']);
      expect(t.stats().sessionsOpened).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('sends the bearer token, honours per-call overrides, and never records the token', async () => {
    const capture = createRecorder();
    const t = new McpTransport(settings({ authToken: secret, capture }), server.url);
    try {
      expect((await t.call('get_products', {})).ok).toBe(true);
      const none = await t.call('get_products', {}, { auth: { mode: 'none' } });
      expect(none.failure).toMatchObject({ kind: 'http_status', httpStatus: 401 });
      const other = await t.call('get_products', {}, { auth: { mode: 'bearer', token: 'wrong-token-xyz' } });
      expect(other.failure?.httpStatus).toBe(401);
      // the server saw exactly what we meant to send
      const calls = server.seen.filter((s) => s.rpcMethod === 'tools/call').slice(-3);
      expect(calls.map((c) => c.headers.authorization)).toEqual([`Bearer ${secret}`, undefined, 'Bearer wrong-token-xyz']);
      // ...and the recorder kept none of it
      const dump = JSON.stringify(capture.all());
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain('wrong-token-xyz');
      expect(dump).toContain('Bearer <redacted:');
    } finally {
      await t.close();
    }
  });
});

describe('MCP replies a raw JSON-RPC server produces', () => {
  const acme = protocolIds('acme');
  let raw: RawServer;
  beforeAll(async () => {
    raw = await startRawServer((_req, res, body) => {
      const msg = JSON.parse(body) as { id?: number; method: string; params?: { name?: string } };
      if (msg.id === undefined) return res.writeHead(202).end();
      const reply = (payload: object): void => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...payload }));
      };
      if (msg.method === 'initialize') return reply({ result: { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 'raw', version: '1' } } });
      if (msg.params?.name === 'rpc_error') {
        return reply({ error: { code: -32000, message: 'conflict', data: { [acme.errorMember]: { code: 'IDEMPOTENCY_CONFLICT', message: 'key reused' } } } });
      }
      return reply({ result: { content: [{ type: 'text', text: '{}' }] } });
    });
  });
  afterAll(async () => {
    await raw?.close();
  });

  it('maps a JSON-RPC error to a protocol failure and reads the error object from error.data', async () => {
    const t = new McpTransport(settings({ token: 'acme' }), `${raw.url}/mcp`);
    try {
      const r = await t.call('rpc_error', {});
      expect(r).toMatchObject({ ok: false, isError: false, status: 'unknown' });
      expect(r.failure).toMatchObject({ kind: 'protocol', jsonRpcError: { code: -32000, message: 'conflict' } });
      expect(r.error).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', message: 'key reused', source: 'jsonrpc_error' });
      // the negotiated protocol version is the server's answer, sent on later requests
      expect(raw.requests.at(-1)?.headers['mcp-protocol-version']).toBe('2025-03-26');
    } finally {
      await t.close();
    }
  });
});
