/**
 * One node:http server for the whole seller. It routes by path, caps bodies (413), keeps the raw
 * body bytes of every request, runs the request-verification hook, enforces the bearer token on
 * protected routes (401 + `WWW-Authenticate: Bearer`), and hands the request to the route.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FaultSet } from '../faults.js';
import type { CallerContext, TransportName } from '../domain/task-def.js';
import type { VerifyRequestHook } from '../options.js';
import { checkBearer, principalOf } from './auth.js';
import { readBody } from './body.js';
import { listen } from '../../../harness/core/net/listen.js';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Exact body bytes (empty for bodiless requests). */
  rawBody: Buffer;
  /** Parsed JSON body; undefined when the body is empty. */
  json: unknown;
  /** Set on protected routes. */
  caller?: CallerContext;
}

export interface Route {
  path: string;
  methods: string[];
  /** Protected routes require the bearer token (when configured) and run the verifier hook. */
  protectedAs?: TransportName;
  handle(ctx: RouteContext): Promise<void>;
}

export interface HttpServerOptions {
  maxBodyBytes: number;
  authToken?: string;
  faults: FaultSet;
  verifyRequest?: VerifyRequestHook;
  log: (line: string) => void;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function jsonRpcError(id: unknown, code: number, message: string, data?: unknown): Record<string, unknown> {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  const validId = typeof id === 'string' || typeof id === 'number' ? id : null;
  return { jsonrpc: '2.0', id: validId, error };
}

/** The request URL for routing; a Host header no URL parser accepts (e.g. a raw U-label) still routes by path. */
function routingUrl(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  } catch {
    return new URL(req.url ?? '/', 'http://host.invalid');
  }
}

/** The absolute URL exactly as received: scheme, Host header, request-target (RFC 9421 @target-uri). */
function receivedUrl(req: IncomingMessage): string {
  const target = req.url ?? '/';
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? target : `http://${req.headers.host ?? ''}${target}`;
}

function requestId(json: unknown): unknown {
  return typeof json === 'object' && json !== null ? (json as { id?: unknown }).id : undefined;
}

export class SellerHttpServer {
  readonly server: http.Server;
  private routes: Route[] = [];
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly opts: HttpServerOptions) {
    this.server = http.createServer((req, res) => {
      this.inFlight += 1;
      this.handle(req, res)
        .catch((err: unknown) => {
          opts.log(`http handler failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          if (!res.headersSent) sendJson(res, 500, { error: 'internal_error' });
          else res.destroy();
        })
        .finally(() => {
          this.inFlight -= 1;
          if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
        });
    });
    this.server.requestTimeout = 60_000;
    this.server.headersTimeout = 30_000;
  }

  /** Routes are set once the listening address (and so every URL) is known. */
  setRoutes(routes: Route[]): void {
    this.routes = routes;
  }

  listen(host: string, port: number): Promise<AddressInfo> {
    return listen(this.server, port, host);
  }

  /** Stops listening, drops every connection, then waits (bounded) for running handlers to return. */
  async close(maxWaitMs = 5_000): Promise<void> {
    if (this.server.listening) {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.server.closeAllConnections();
      await closed;
    }
    if (this.inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, maxWaitMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = routingUrl(req);
    const route = this.routes.find((r) => r.path === url.pathname);
    if (!route) {
      sendJson(res, 404, { error: 'not_found', message: `no route for ${url.pathname}` });
      return;
    }
    const method = req.method ?? 'GET';
    if (!route.methods.includes(method)) {
      sendJson(res, 405, { error: 'method_not_allowed' }, { allow: route.methods.join(', ') });
      return;
    }

    let rawBody: Buffer = Buffer.alloc(0);
    let json: unknown;
    if (method === 'POST') {
      const body = await readBody(req, this.opts.maxBodyBytes);
      if (!body.ok) {
        if (body.reason === 'too_large') {
          sendJson(res, 413, jsonRpcError(null, -32600, `request body exceeds ${this.opts.maxBodyBytes} bytes`), { connection: 'close' });
        } else {
          res.destroy();
        }
        return;
      }
      rawBody = body.bytes;
      if (rawBody.length > 0) {
        try {
          json = JSON.parse(rawBody.toString('utf8'));
        } catch {
          sendJson(res, 400, jsonRpcError(null, -32700, 'Parse error: Invalid JSON'));
          return;
        }
      }
    }

    const ctx: RouteContext = { req, res, url, rawBody, json };
    if (route.protectedAs) {
      const caller = await this.authenticate(ctx, route.protectedAs);
      if (!caller) return;
      ctx.caller = caller;
    }
    await route.handle(ctx);
  }

  /** Verifier hook, then bearer check. Answers the 401 itself and returns undefined on refusal. */
  private async authenticate(ctx: RouteContext, transport: TransportName): Promise<CallerContext | undefined> {
    const { req, res } = ctx;
    let verified: { principal?: string; signer?: unknown } | undefined;
    if (this.opts.verifyRequest && req.method === 'POST') {
      const result = await this.opts.verifyRequest({
        route: transport,
        method: req.method,
        url: receivedUrl(req),
        headers: req.headers,
        rawBody: new Uint8Array(ctx.rawBody),
        json: ctx.json,
      });
      if (result.outcome === 'rejected') {
        sendJson(res, result.status ?? 401, result.body ?? jsonRpcError(requestId(ctx.json), -32001, 'request signature rejected'), {
          'www-authenticate': result.wwwAuthenticate,
        });
        return undefined;
      }
      if (result.outcome === 'verified') verified = { principal: result.principal, signer: result.signer };
    }
    const token = this.opts.authToken;
    if (token !== undefined && !verified && !this.opts.faults.has('auth-not-enforced')) {
      const check = checkBearer(req.headers, token);
      if (check !== 'ok') {
        const challenge = check === 'missing' ? 'Bearer realm="mock-seller"' : 'Bearer realm="mock-seller", error="invalid_token"';
        const message = check === 'missing' ? 'Unauthorized: bearer token required' : 'Unauthorized: invalid bearer token';
        sendJson(res, 401, jsonRpcError(requestId(ctx.json), -32001, message, { code: 'UNAUTHORIZED' }), { 'www-authenticate': challenge });
        return undefined;
      }
    }
    return {
      principal: verified?.principal ?? principalOf(req.headers),
      transport,
      ...(verified?.signer !== undefined ? { verifiedSigner: verified.signer } : {}),
      ...(hostOf(req.headers.host) ? { host: hostOf(req.headers.host) } : {}),
    };
  }
}

/** The Host a caller reached the seller at (`host[:port]`), when it is one; else undefined. */
function hostOf(header: string | undefined): string | undefined {
  if (header === undefined || header.length > 255 || !URL.canParse(`https://${header}/`)) return undefined;
  const host = new URL(`https://${header}/`).host;
  return host.length > 0 ? host : undefined;
}
