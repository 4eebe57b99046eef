/**
 * Credentials stay with the origin the user named, proved with a trap server on another loopback
 * origin: an agent card whose url points at the trap (refused, allowed without the token, allowed
 * with it, named by the user), redirects to the trap (agent endpoint, agent card), a `prepare`
 * hook that moves a request elsewhere, and the address policy refusing before anything is sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AddressPolicy } from '../net/address-policy.js';
import { type Handler, startTestServer, startTrap, type TestServer } from '../net/testing/trap-server.js';
import type { CardOriginPolicy } from './a2a.js';
import { createRecorder } from './capture.js';
import { namedUrls, resolveEndpoints } from './endpoints.js';
import { createTransport } from './factory.js';
import { HttpClient } from './http-client.js';
import type { Transport, TransportSettings } from './types.js';

const TOKEN = 'origin-bound-secret-token-0123456789';
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const A2A_RESULT = {
  jsonrpc: '2.0',
  id: 1,
  result: { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'completed' }, artifacts: [{ parts: [{ kind: 'data', data: { ok: true } }] }] },
};

/** An A2A endpoint: answers every JSON-RPC POST with a completed task. */
const a2aHandler: Handler = (req, res) => {
  if (req.method === 'POST') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(A2A_RESULT));
  else res.writeHead(404).end();
};

/** An agent whose card says its A2A endpoint is `cardUrl`. */
async function agentWithCard(cardUrl: (self: string) => string): Promise<TestServer> {
  let self = '';
  const agent = await startTestServer('127.0.0.1', 0, (req, res) => {
    if (req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'agent', url: cardUrl(self), skills: [{ id: 'get_products' }] }));
    } else a2aHandler(req, res, '');
  });
  self = agent.origin;
  closers.push(() => agent.close());
  return agent;
}

async function trapAt(handler = false): Promise<TestServer> {
  const trap = handler ? await startTestServer('127.0.0.1', 0, a2aHandler) : await startTrap();
  closers.push(() => trap.close());
  return trap;
}

function settings(agentUrl: string, extra: Partial<TransportSettings> = {}): TransportSettings {
  return {
    agentUrl,
    token: 'proto',
    authToken: TOKEN,
    connectTimeoutMs: 2_000,
    totalTimeoutMs: 5_000,
    maxResponseBytes: 1024 * 1024,
    capture: createRecorder(),
    credentialOrigins: namedUrls(agentUrl),
    ...extra,
  };
}

function a2a(agentUrl: string, cardOrigin?: CardOriginPolicy, extra: Partial<TransportSettings> = {}, a2aUrl?: string): Transport {
  const s = settings(agentUrl, { credentialOrigins: namedUrls(agentUrl, { a2aUrl }), ...extra });
  const t = createTransport('a2a', s, resolveEndpoints(agentUrl, { a2aUrl }), { a2a: { cardOrigin } });
  closers.push(() => t.close());
  return t;
}

describe('the bearer token stays with the named origin', () => {
  it('a card url on another origin makes A2A unusable, with the reason, and nothing goes there', async () => {
    const trap = await trapAt();
    const agent = await agentWithCard(() => `${trap.origin}/a2a`);
    const t = a2a(agent.origin);
    const open = await t.open();
    expect(open.failure).toMatchObject({
      kind: 'refused',
      message: `agent card url ${trap.origin}/a2a is on another origin than ${agent.origin}; pass --a2a-url to use it (or allow card origins with --allow-card-origin)`,
    });
    const reply = await t.call('get_products', {});
    expect(reply.failure?.kind).toBe('refused');
    expect(trap.connections).toBe(0);
    // The card itself came from the named origin, with the token.
    expect(agent.requests.map((r) => [r.url, r.headers.authorization])).toEqual([['/.well-known/agent-card.json', `Bearer ${TOKEN}`]]);
  });

  it('--allow-card-origin uses the card url without the token', async () => {
    const other = await trapAt(true);
    const agent = await agentWithCard(() => `${other.origin}/a2a`);
    const t = a2a(agent.origin, 'allow');
    const reply = await t.call('get_products', {});
    expect(reply.failure).toBeUndefined();
    expect(reply.ok).toBe(true);
    expect(other.requests).toHaveLength(1);
    expect(other.requests[0]!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(other.requests)).not.toContain(TOKEN);
  });

  it('--send-token-to-card-origin sends it there too', async () => {
    const other = await trapAt(true);
    const agent = await agentWithCard(() => `${other.origin}/a2a`);
    const reply = await a2a(agent.origin, 'allow-with-token').call('get_products', {});
    expect(reply.ok).toBe(true);
    expect(other.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('an A2A endpoint the user named with --a2a-url is used with the token', async () => {
    const agent = await startTestServer();
    closers.push(() => agent.close());
    const other = await agentWithCard((self) => `${self}/a2a`);
    const reply = await a2a(`${agent.origin}/mcp`, undefined, {}, `${other.origin}/a2a`).call('get_products', {});
    expect(reply.ok).toBe(true);
    expect(other.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });

  it('a same-origin card url needs no flag', async () => {
    const agent = await agentWithCard((self) => `${self}/a2a`);
    const reply = await a2a(agent.origin).call('get_products', {});
    expect(reply.ok).toBe(true);
    expect(agent.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });
});

describe('redirects are never followed', () => {
  it('the MCP endpoint redirecting to the trap: a redirect failure, nothing sent to the trap', async () => {
    const trap = await trapAt();
    const agent = await startTestServer('127.0.0.1', 0, (_req, res) => res.writeHead(307, { location: `${trap.origin}/mcp` }).end());
    closers.push(() => agent.close());
    const t = createTransport('mcp', settings(`${agent.origin}/mcp`), resolveEndpoints(`${agent.origin}/mcp`));
    closers.push(() => t.close());
    const open = await t.open();
    expect(open.failure).toMatchObject({ kind: 'redirect', httpStatus: 307 });
    expect(trap.connections).toBe(0);
  });

  it('the agent card redirecting to the trap: nothing sent to the trap', async () => {
    const trap = await trapAt();
    const agent = await startTestServer('127.0.0.1', 0, (_req, res) => res.writeHead(302, { location: `${trap.origin}/.well-known/agent-card.json` }).end());
    closers.push(() => agent.close());
    const open = await a2a(agent.origin, 'allow-with-token').open();
    expect(open.failure?.kind).toBe('redirect');
    expect(trap.connections).toBe(0);
  });
});

describe('whatever a prepare hook does', () => {
  it('a request moved to another origin goes without the token', async () => {
    const agent = await startTestServer();
    const other = await startTestServer();
    closers.push(
      () => agent.close(),
      () => other.close(),
    );
    const http = new HttpClient(settings(agent.origin));
    closers.push(() => http.close());
    await http.send({ method: 'POST', url: `${agent.origin}/mcp`, body: '{}', transport: 'http', purpose: 'named' });
    await http.send({
      method: 'POST',
      url: `${agent.origin}/mcp`,
      body: '{}',
      transport: 'http',
      purpose: 'moved',
      prepare: (req) => ({ ...req, url: `${other.origin}/mcp` }),
    });
    expect(agent.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(other.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe('--deny-private in the transports', () => {
  it('refuses the agent address before anything is sent (MCP and A2A)', async () => {
    const trap = await trapAt();
    const policy = new AddressPolicy({ denyPrivate: true });
    for (const kind of ['mcp', 'a2a'] as const) {
      const t = createTransport(kind, settings(trap.origin, { addressPolicy: policy }), resolveEndpoints(trap.origin));
      closers.push(() => t.close());
      const open = await t.open();
      expect(open.failure?.kind, kind).toBe('refused');
      expect(open.failure?.message).toBe('refused: 127.0.0.1 is a reserved address (loopback); nothing was sent');
      expect(open.exchanges[0]?.error).toMatch(/^refused/);
    }
    expect(trap.connections).toBe(0);
  });

  it('refuses a card url on a private address even when card origins are allowed', async () => {
    const trap = await startTrap('127.0.0.2');
    closers.push(() => trap.close());
    const agent = await agentWithCard(() => `${trap.origin}/a2a`);
    const policy = new AddressPolicy({ denyPrivate: true, allowHosts: ['127.0.0.1'] });
    const reply = await a2a(agent.origin, 'allow-with-token', { addressPolicy: policy }).call('get_products', {});
    expect(reply.failure).toMatchObject({ kind: 'refused', message: expect.stringMatching(/127\.0\.0\.2 is a reserved address/) });
    expect(agent.requests).toHaveLength(1);
    expect(trap.connections).toBe(0);
  });
});
