/**
 * The reverse proxy in front of one agent (`proto-comply proxy --upstream URL`): every request
 * is forwarded to the upstream origin and its answer streamed back as it arrives (an SSE reply
 * reaches the client event by event); the audit gets a bounded copy of both bodies once the
 * exchange ends. Discovery documents (`/.well-known/*.json`: the agent card, brand.json) are the
 * only bodies rewritten: their URLs on the upstream origin are pointed at the proxy, or a client
 * would call the agent directly (A2A card url) or not find it in its own declaration (brand.json).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Socket } from 'node:net';
import { Agent, request } from 'undici';
import { normalizeHeaders } from '../core/transport/http-client.js';
import { isTaskCall } from './inject.js';
import {
  AuditCopy,
  forwardable,
  handlerFailed,
  type ListenerOptions,
  listenOrigin,
  newExchangeClock,
  type ProxiedExchange,
  type RunningListener,
} from './http-parts.js';

export type { ProxiedExchange } from './http-parts.js';

export interface ReverseProxyOptions extends ListenerOptions {
  /** The agent's base URL; request paths are appended to its origin. */
  upstream: string;
  /** Bytes of each body kept for the audit (the client still gets all of it). Default 1 MiB. */
  maxAuditBytes?: number;
  /** Largest request body accepted from a client. Default 8 MiB. */
  maxRequestBytes?: number;
  /** Upstream connect and headers timeout. Default 60 s. A body may idle as long as it likes (an
   *  MCP event stream waits for server messages); the client ends it by going away. */
  upstreamTimeoutMs?: number;
  /** Send the upstream's own Host instead of the client's (name-based virtual hosting upstream; signatures then fail). */
  rewriteHost?: boolean;
}

export type RunningReverseProxy = RunningListener;

/** Discovery documents (agent card, brand.json, adagents.json): they name the agent's URLs. */
const DISCOVERY_PATH = /^\/\.well-known\/[A-Za-z0-9._-]+\.json(\?.*)?$/;

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
  const clock = o.clock ?? newExchangeClock();
  let proxyOrigin = '';

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const n = clock.next();
    const started = new Date().toISOString();
    const tStart = clock.now();
    const reqHeaders = normalizeHeaders(req.headers);
    const reqCopy = new AuditCopy(maxAudit);
    const exchange = (): ProxiedExchange => ({
      seq: n,
      started_at: started,
      t_start: tStart,
      t_end: clock.now(),
      request: {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: reqHeaders,
        ...reqCopy.record(),
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
    o.onRequest?.(n, tStart, reqCopy.text());
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
        response: { status, headers: resHeaders, ...resCopy.record() },
        injected_reset: true,
      });
      return;
    }
    const done = (error?: string): void =>
      o.onExchange({
        ...exchange(),
        response: { status, headers: resHeaders, ...resCopy.record() },
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

  // One request at a time per client connection (HTTP/1.1 answers in order anyway): a client
  // pipelining a flood of requests holds one upstream call, not hundreds, so other clients are
  // still answered promptly; a request whose client went away meanwhile is not forwarded.
  const inOrder = new WeakMap<Socket, Promise<void>>();
  const server: Server = createServer((req, res) => {
    const run = (inOrder.get(req.socket) ?? Promise.resolve()).then(() =>
      res.destroyed ? undefined : handle(req, res).catch((err: unknown) => handlerFailed({ ...o, clock }, req, res, err, {})),
    );
    inOrder.set(req.socket, run);
  });
  server.on('connection', (s) => s.setNoDelay(true));
  proxyOrigin = await listenOrigin(server, o.host ?? '127.0.0.1', o.port ?? 0);
  return {
    url: `${proxyOrigin}${upstream.pathname === '/' ? '' : upstream.pathname.replace(/\/$/, '')}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close().catch(() => undefined);
    },
  };
}
