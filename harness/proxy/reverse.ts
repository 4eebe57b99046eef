/**
 * The reverse proxy in front of one agent (`proto-comply proxy --upstream URL`): every request
 * is forwarded to the upstream origin and its answer streamed back as it arrives (an SSE reply
 * reaches the client event by event); the audit gets a bounded copy of both bodies once the
 * exchange ends. Discovery documents (`/.well-known/*.json`: the agent card, brand.json) are the
 * only bodies rewritten: their URLs on the upstream origin are pointed at the proxy, or a client
 * would call the agent directly (A2A card url) or not find it in its own declaration (brand.json).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { normalizeHeaders } from '../transport/http-client.js';
import { type Injector, isTaskCall } from './inject.js';

export interface ProxiedExchange {
  seq: number;
  started_at: string;
  /** Milliseconds since the proxy started, when the request arrived and when its answer ended. */
  t_start: number;
  t_end: number;
  request: { method: string; path: string; headers: Record<string, string>; body: string; body_truncated?: true };
  response?: { status: number; headers: Record<string, string>; body: string; body_truncated?: true };
  /** Why the exchange did not complete (upstream unreachable, timeout, client gone). */
  error?: string;
  /** The proxy answered itself (an injected status): the response is not the agent's. */
  injected_answer?: true;
}

export interface ReverseProxyOptions {
  /** The agent's base URL; request paths are appended to its origin. */
  upstream: string;
  host?: string;
  port?: number;
  /** Bytes of each body kept for the audit (the client still gets all of it). Default 1 MiB. */
  maxAuditBytes?: number;
  /** Largest request body accepted from a client. Default 8 MiB. */
  maxRequestBytes?: number;
  /** Upstream connect and headers timeout. Default 60 s. A body may idle as long as it likes (an
   *  MCP event stream waits for server messages); the client ends it by going away. */
  upstreamTimeoutMs?: number;
  /** Send the upstream's own Host instead of the client's (name-based virtual hosting upstream; signatures then fail). */
  rewriteHost?: boolean;
  /** Faults to inject into task calls (inject.ts). */
  inject?: Injector;
  onExchange: (exchange: ProxiedExchange) => void;
}

export interface RunningReverseProxy {
  url: string;
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 7.6.1) never cross the proxy; host and length are the proxy's own.
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  // The agent is asked for identity encoding, so the audit reads the bytes the client gets.
  'accept-encoding',
]);
/** Discovery documents (agent card, brand.json, adagents.json): they name the agent's URLs. */
const DISCOVERY_PATH = /^\/\.well-known\/[A-Za-z0-9._-]+\.json(\?.*)?$/;

function forwardable(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (!HOP.has(k)) out[k] = v;
  return out;
}

/** Collects up to `cap` bytes of a body for the audit. */
class AuditCopy {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly cap: number) {}
  add(chunk: Buffer): void {
    if (this.size >= this.cap) {
      this.truncated = true;
      return;
    }
    const room = this.cap - this.size;
    if (chunk.length > room) this.truncated = true;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** One chunk to the client (waiting while its socket is full) and into the audit copy. */
async function pass(res: ServerResponse, copy: AuditCopy, chunk: Buffer): Promise<void> {
  copy.add(chunk);
  if (res.write(chunk) || res.destroyed) return;
  await new Promise<void>((resolve) => {
    const go = (): void => {
      res.off('drain', go);
      res.off('close', go);
      resolve();
    };
    res.once('drain', go);
    res.once('close', go);
  });
  if (res.destroyed) throw new Error('the client went away');
}

export async function startReverseProxy(o: ReverseProxyOptions): Promise<RunningReverseProxy> {
  const upstream = new URL(o.upstream);
  const maxAudit = o.maxAuditBytes ?? 1024 * 1024;
  const maxRequest = o.maxRequestBytes ?? 8 * 1024 * 1024;
  const timeout = o.upstreamTimeoutMs ?? 60_000;
  const agent = new Agent({ headersTimeout: timeout, bodyTimeout: 0, connect: { timeout: Math.min(timeout, 10_000) } });
  const t0 = performance.now();
  let seq = 0;
  let proxyOrigin = '';

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const n = ++seq;
    const started = new Date().toISOString();
    const tStart = performance.now() - t0;
    const reqHeaders = normalizeHeaders(req.headers);
    const reqCopy = new AuditCopy(maxAudit);
    const exchange = (): ProxiedExchange => ({
      seq: n,
      started_at: started,
      t_start: tStart,
      t_end: performance.now() - t0,
      request: {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: reqHeaders,
        body: reqCopy.text(),
        ...(reqCopy.truncated ? { body_truncated: true as const } : {}),
      },
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > maxRequest) {
        res.writeHead(413, { 'content-type': 'text/plain' }).end(`request body above the proxy's ${maxRequest}-byte limit\n`);
        o.onExchange({ ...exchange(), error: `request body above ${maxRequest} bytes; not forwarded` });
        return;
      }
      chunks.push(chunk as Buffer);
      reqCopy.add(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    const faults = o.inject && isTaskCall(req.method ?? 'GET', reqCopy.text()) ? o.inject.firing('call', n) : [];
    for (const f of faults) {
      if (f.kind === 'status') {
        o.inject?.record(n, f, `answered HTTP ${f.status} without forwarding ${req.method} ${req.url}`);
        const text = `injected by proto-comply proxy (${f.text})\n`;
        res.writeHead(f.status, { 'content-type': 'text/plain', 'retry-after': '1' }).end(text);
        o.onExchange({ ...exchange(), response: { status: f.status, headers: { 'content-type': 'text/plain' }, body: text }, injected_answer: true });
        return;
      }
    }
    for (const f of faults) {
      if (f.kind === 'delay') {
        o.inject?.record(n, f, `held ${req.method} ${req.url} for ${f.ms} ms`);
        await sleep(f.ms);
      }
    }
    const reset = faults.find((f) => f.kind === 'reset');
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort(new Error('the client went away'));
    });
    let upstreamRes;
    try {
      upstreamRes = await request(new URL(req.url ?? '/', upstream.origin), {
        method: (req.method ?? 'GET') as 'GET',
        // The client's Host goes on unchanged (as a transparent reverse proxy does): a signed request
        // covers the authority the client called, and the agent must see that one to verify it.
        headers: { ...forwardable(reqHeaders), host: o.rewriteHost ? upstream.host : (reqHeaders.host ?? upstream.host) },
        body: body.length > 0 ? body : undefined,
        signal: abort.signal,
        dispatcher: agent,
      });
    } catch (err) {
      const message = `upstream ${upstream.origin} not reached: ${(err as Error).message}`;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`${message}\n`);
      o.onExchange({ ...exchange(), error: message });
      return;
    }
    const status = upstreamRes.statusCode;
    const resHeaders = normalizeHeaders(upstreamRes.headers as Record<string, string | string[] | undefined>);
    const resCopy = new AuditCopy(maxAudit);
    if (reset) {
      // The agent answers, the client never learns how: the ambiguous outcome a retry must survive.
      // What the agent answered is read first (up to the audit cap, for at most 30 s) and audited.
      const stop = setTimeout(() => abort.abort(new Error('reset: stopped reading the answer')), 30_000);
      try {
        for await (const chunk of upstreamRes.body) {
          resCopy.add(chunk as Buffer);
          if (resCopy.truncated) break;
        }
      } catch {
        // the answer broke off: what arrived is audited
      } finally {
        clearTimeout(stop);
        upstreamRes.body.destroy();
      }
      req.socket.destroy();
      o.inject?.record(n, reset, `forwarded ${req.method} ${req.url}, then reset the client's connection instead of answering`);
      o.onExchange({
        ...exchange(),
        response: { status, headers: resHeaders, body: resCopy.text(), ...(resCopy.truncated ? { body_truncated: true as const } : {}) },
      });
      return;
    }
    const done = (error?: string): void =>
      o.onExchange({
        ...exchange(),
        response: { status, headers: resHeaders, body: resCopy.text(), ...(resCopy.truncated ? { body_truncated: true as const } : {}) },
        ...(error ? { error } : {}),
      });
    try {
      const body = upstreamRes.body[Symbol.asyncIterator]();
      if (DISCOVERY_PATH.test(req.url ?? '') && status === 200) {
        // A discovery document is read whole (up to the audit cap) and its URLs on the upstream
        // origin name the proxy; a larger one passes unchanged.
        const head: Buffer[] = [];
        let size = 0;
        let next = await body.next();
        while (!next.done && size <= maxAudit) {
          head.push(next.value as Buffer);
          size += (next.value as Buffer).length;
          next = await body.next();
        }
        if (next.done) {
          const text = Buffer.concat(head).toString('utf8');
          resCopy.add(Buffer.from(text));
          res.writeHead(status, forwardable(resHeaders)).end(text.split(upstream.origin).join(proxyOrigin));
          done();
          return;
        }
        res.writeHead(status, forwardable(resHeaders));
        for (const chunk of [...head, next.value as Buffer]) await pass(res, resCopy, chunk);
      } else {
        res.writeHead(status, forwardable(resHeaders));
        res.flushHeaders();
      }
      for (let next = await body.next(); !next.done; next = await body.next()) await pass(res, resCopy, next.value as Buffer);
      res.end();
      done();
    } catch (err) {
      res.destroy();
      done(`the answer broke off: ${(err as Error).message}`);
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
      o.onExchange({
        seq: ++seq,
        started_at: new Date().toISOString(),
        t_start: performance.now() - t0,
        t_end: performance.now() - t0,
        request: { method: req.method ?? 'GET', path: req.url ?? '/', headers: normalizeHeaders(req.headers), body: '' },
        error: `proxy error: ${(err as Error).message}`,
      });
    });
  });
  server.on('connection', (s) => s.setNoDelay(true));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  proxyOrigin = `http://${host}:${addr.port}`;
  return {
    url: `${proxyOrigin}${upstream.pathname === '/' ? '' : upstream.pathname.replace(/\/$/, '')}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close().catch(() => undefined);
    },
  };
}
