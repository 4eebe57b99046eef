/** The HTTP client's limits against raw node:http servers on loopback. */
import { afterEach, describe, expect, it } from 'vitest';
import { createRecorder, type Recorder } from './capture.js';
import { TransportConfigError } from './errors.js';
import { HttpClient, type HttpSettings } from './http-client.js';
import { postJsonRpc } from './rpc.js';
import { protocolIds } from '../token.js';
import { closedPort, startRawServer, type RawServer } from './testing/raw-server.js';

const servers: RawServer[] = [];
const clients: HttpClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
});

function client(extra: Partial<HttpSettings> = {}): { http: HttpClient; capture: Recorder } {
  const capture = createRecorder();
  const http = new HttpClient({ connectTimeoutMs: 2_000, totalTimeoutMs: 5_000, maxResponseBytes: 256 * 1024, capture, ...extra });
  clients.push(http);
  return { http, capture };
}

async function server(handler: Parameters<typeof startRawServer>[0]): Promise<RawServer> {
  const s = await startRawServer(handler);
  servers.push(s);
  return s;
}

describe('HttpClient limits', () => {
  it('fails with timeout when the server never answers', async () => {
    const s = await server(() => {
      /* never respond */
    });
    const { http, capture } = client({ totalTimeoutMs: 300 });
    const r = await http.send({ method: 'POST', url: `${s.url}/mcp`, body: '{}', transport: 'http', purpose: 'hang' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure.kind).toBe('timeout');
    expect(r.failure.message).toContain('300 ms');
    const [x] = capture.all();
    expect(x.error).toContain('timeout');
    expect(x.response).toBeUndefined();
    expect(x.request.body).toBe('{}');
  });

  it('fails with aborted when the caller aborts mid-request', async () => {
    const ac = new AbortController();
    const s = await server(() => ac.abort());
    const { http } = client();
    const r = await http.send({ method: 'GET', url: s.url, transport: 'http', purpose: 'abort', signal: ac.signal });
    expect(!r.ok && r.failure.kind).toBe('aborted');
  });

  it('does not send anything when the signal is already aborted', async () => {
    const s = await server((_q, res) => res.end('x'));
    const { http, capture } = client();
    const r = await http.send({ method: 'GET', url: s.url, transport: 'http', purpose: 'pre', signal: AbortSignal.abort() });
    expect(!r.ok && r.failure.kind).toBe('aborted');
    expect(s.requests).toHaveLength(0);
    expect(capture.all()[0].error).toContain('aborted');
  });

  it('refuses to follow redirects', async () => {
    const s = await server((req, res) => {
      if (req.url === '/start') res.writeHead(302, { location: '/elsewhere' }).end('moved');
      else res.end('you followed it');
    });
    const { http, capture } = client();
    const r = await http.send({ method: 'POST', url: `${s.url}/start`, body: '{}', transport: 'http', purpose: 'redirect' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure).toMatchObject({ kind: 'redirect', httpStatus: 302 });
    expect(r.failure.message).toContain('/elsewhere');
    expect(s.requests.map((q) => q.url)).toEqual(['/start']);
    expect(capture.all()[0].response?.status).toBe(302);
  });

  it('stops reading at the body cap without buffering the whole stream', async () => {
    const LIMIT = 64 * 1024 * 1024;
    let written = 0;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const s = await server(async (_req, res) => {
      let closed = false;
      res.on('close', () => (closed = true));
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      while (written < LIMIT && !closed) {
        written += chunk.length;
        if (!res.write(chunk)) {
          await new Promise<void>((resolve) => {
            const go = (): void => {
              res.off('drain', go);
              res.off('close', go);
              resolve();
            };
            res.on('drain', go);
            res.on('close', go);
          });
        }
      }
      res.end();
      finished();
    });
    const { http, capture } = client({ maxResponseBytes: 256 * 1024 });
    const r = await http.send({ method: 'GET', url: s.url, transport: 'http', purpose: 'huge' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure).toMatchObject({ kind: 'body_too_large', httpStatus: 200 });
    await done;
    expect(written).toBeLessThan(LIMIT);
    const [x] = capture.all();
    expect(x.response?.body_truncated).toBe(true);
    expect(Buffer.byteLength(x.response?.body ?? '')).toBeLessThanOrEqual(64 * 1024);
  });

  it('rejects a declared Content-Length above the cap before reading', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
      res.write('{"a":'); // and never finish
    });
    const { http } = client({ maxResponseBytes: 1024 });
    const r = await http.send({ method: 'GET', url: s.url, transport: 'http', purpose: 'declared' });
    expect(!r.ok && r.failure.kind).toBe('body_too_large');
    expect(!r.ok && r.failure.message).toContain('declares');
  });

  it('reports connection refused as a network failure', async () => {
    const port = await closedPort();
    const { http } = client();
    const r = await http.send({ method: 'GET', url: `http://127.0.0.1:${port}/`, transport: 'http', purpose: 'refused' });
    expect(!r.ok && r.failure.kind).toBe('network');
    expect(!r.ok && r.failure.message).toContain('ECONNREFUSED');
  });

  it('returns other statuses as responses with their body', async () => {
    const s = await server((_req, res) => res.writeHead(503, { 'retry-after': '1' }).end('busy'));
    const { http } = client();
    const r = await http.send({ method: 'GET', url: s.url, transport: 'http', purpose: 's' });
    expect(r.ok && r.status).toBe(503);
    expect(r.ok && r.text).toBe('busy');
  });

  it('applies default auth, overrides, and the prepare hook on the exact bytes', async () => {
    const s = await server((_req, res) => res.end('ok'));
    const { http, capture } = client({ authToken: 'default-token-123' });
    await http.send({ method: 'GET', url: s.url, transport: 'http', purpose: 'a' });
    await http.send({ method: 'GET', url: s.url, transport: 'http', purpose: 'b', auth: { mode: 'none' } });
    await http.send({ method: 'GET', url: s.url, transport: 'http', purpose: 'c', auth: { mode: 'bearer', token: 'other-token-456' } });
    await http.send({
      method: 'POST',
      url: s.url,
      body: '{"x":1}',
      headers: { 'Content-Type': 'application/json' },
      transport: 'http',
      purpose: 'd',
      prepare: (req) => ({ ...req, headers: { ...req.headers, 'X-Added': 'yes' }, body: new TextEncoder().encode('{"x":2}') }),
    });
    expect(s.requests.map((q) => q.headers.authorization)).toEqual([
      'Bearer default-token-123',
      undefined,
      'Bearer other-token-456',
      'Bearer default-token-123',
    ]);
    expect(s.requests[3].body).toBe('{"x":2}');
    expect(s.requests[3].headers['x-added']).toBe('yes');
    const recorded = capture.all();
    expect(recorded[3].request.body).toBe('{"x":2}');
    expect(recorded[3].request.headers['x-added']).toBe('yes');
    expect(recorded[3].request.headers['content-type']).toBe('application/json');
    expect(JSON.stringify(recorded)).not.toMatch(/default-token-123|other-token-456/);
  });

  it('rejects unusable settings', () => {
    const capture = createRecorder();
    expect(() => new HttpClient({ connectTimeoutMs: 0, totalTimeoutMs: 1, maxResponseBytes: 1, capture })).toThrow(TransportConfigError);
    expect(() => new HttpClient({ connectTimeoutMs: 1, totalTimeoutMs: 1, maxResponseBytes: Number.NaN, capture })).toThrow(TransportConfigError);
  });
});

describe('JSON-RPC over HTTP', () => {
  it('stops reading an SSE stream the server keeps open once the response arrived', async () => {
    const s = await server((_req, res, body) => {
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': keep-alive\n\n');
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: {} })}\n\n`);
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: id + 1, result: { wrong: true } })}\n\n`);
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { right: true } })}\n\n`);
      // never end the stream
    });
    const { http } = client({ totalTimeoutMs: 5_000 });
    const r = await postJsonRpc(http, { url: s.url, rpcMethod: 'tools/call', params: {}, id: 7, transport: 'mcp', purpose: 'sse' });
    expect(r.failure).toBeUndefined();
    expect(r.response?.result).toEqual({ right: true });
    expect(r.http?.stoppedEarly).toBe(true);
    expect(r.notes.join(' ')).toContain('ignored 2 SSE event');
  });

  it('fails with protocol when the SSE stream ends without the response', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 999, result: {} })}\n\n`);
    });
    const { http } = client();
    const r = await postJsonRpc(http, { url: s.url, rpcMethod: 'x', id: 1, transport: 'mcp', purpose: 'sse' });
    expect(r.failure?.kind).toBe('protocol');
    expect(r.failure?.message).toContain('without a JSON-RPC response to id 1');
  });

  it('picks the response from a JSON batch and reports JSON-RPC errors with their data', async () => {
    const s = await server((_req, res, body) => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      res.writeHead(200, { 'content-type': 'application/json' });
      if (method === 'batch')
        res.end(
          JSON.stringify([
            { jsonrpc: '2.0', method: 'n' },
            { jsonrpc: '2.0', id, result: 42 },
          ]),
        );
      else
        res.end(
          JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'bad', data: { [protocolIds().errorMember]: { code: 'X', message: 'y' } } } }),
        );
    });
    const { http } = client();
    const ok = await postJsonRpc(http, { url: s.url, rpcMethod: 'batch', id: 3, transport: 'mcp', purpose: 'b' });
    expect(ok.response?.result).toBe(42);
    const bad = await postJsonRpc(http, { url: s.url, rpcMethod: 'err', id: 4, transport: 'mcp', purpose: 'e' });
    expect(bad.failure).toMatchObject({ kind: 'protocol', jsonRpcError: { code: -32602, message: 'bad' } });
  });

  it('shows a plain JSON error body of an HTTP error as it is, and a JSON-RPC one as a JSON-RPC error', async () => {
    const s = await server((_req, res, body) => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      res.writeHead(method === 'rest' ? 404 : 400, { 'content-type': 'application/json' });
      if (method === 'rest') res.end(JSON.stringify({ error: 'not_found', message: 'no such agent' }));
      else res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } }));
    });
    const { http } = client();
    const rest = await postJsonRpc(http, { url: s.url, rpcMethod: 'rest', id: 5, transport: 'mcp', purpose: 'r' });
    expect(rest.failure?.kind).toBe('http_status');
    expect(rest.failure?.message).toBe('HTTP 404: {"error":"not_found","message":"no such agent"}');
    expect(rest.failure?.jsonRpcError).toBeUndefined();
    const rpc = await postJsonRpc(http, { url: s.url, rpcMethod: 'rpc', id: 6, transport: 'mcp', purpose: 'j' });
    expect(rpc.failure?.message).toBe('HTTP 400: JSON-RPC error -32600: invalid request');
    expect(rpc.failure?.jsonRpcError).toMatchObject({ code: -32600 });
  });

  it('fails with protocol on a 2xx that is not JSON-RPC', async () => {
    const s = await server((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>'));
    const { http } = client();
    const r = await postJsonRpc(http, { url: s.url, rpcMethod: 'x', id: 1, transport: 'mcp', purpose: 'html' });
    expect(r.failure?.kind).toBe('protocol');
    expect(r.failure?.message).toContain('text/html');
  });

  it('reports 401 with the WWW-Authenticate header verbatim', async () => {
    const s = await server((_req, res) =>
      res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"' }).end(),
    );
    const { http } = client();
    const r = await postJsonRpc(http, { url: s.url, rpcMethod: 'x', id: 1, transport: 'mcp', purpose: '401' });
    expect(r.failure).toEqual({
      kind: 'http_status',
      message: 'HTTP 401',
      httpStatus: 401,
      wwwAuthenticate: 'Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"',
    });
  });
});
