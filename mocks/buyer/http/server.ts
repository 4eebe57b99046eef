/**
 * The buyer's one node:http server: registered endpoint paths take webhooks (POST), /_admin
 * serves the read-back, anything else is 404. Bounded by construction: a connection cap that
 * drops the cheapest connection rather than refusing a newcomer (harness/core/net/connection-guard.ts),
 * header and request timeouts checked every second (slow clients are cut off), keep-alive
 * timeout, and the body caps of the handlers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BuyerTimeouts } from '../options.js';
import type { Registration } from '../store/endpoints.js';
import { ADMIN_PREFIX } from './admin.js';
import { sendJson } from './io.js';
import { guardConnections } from '../../../harness/core/net/connection-guard.js';
import { listen } from '../../../harness/core/net/listen.js';

export const DEFAULT_TIMEOUTS: Required<BuyerTimeouts> = { headersMs: 10_000, requestMs: 15_000, keepAliveMs: 5_000 };
export const DEFAULT_MAX_CONNECTIONS = 256;

export interface BuyerServerDeps {
  timeouts?: BuyerTimeouts;
  maxConnections?: number;
  endpointAt: (path: string) => Registration | undefined;
  webhook: (req: IncomingMessage, res: ServerResponse, reg: Registration) => Promise<void>;
  admin: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
  log: (line: string) => void;
}

export class BuyerHttpServer {
  private readonly server: Server;

  constructor(d: BuyerServerDeps) {
    const t = { ...DEFAULT_TIMEOUTS, ...(d.timeouts ?? {}) };
    if (t.headersMs > t.requestMs) throw new RangeError('timeouts.headersMs must not exceed timeouts.requestMs');
    this.server = createServer(
      { requestTimeout: t.requestMs, headersTimeout: t.headersMs, keepAliveTimeout: t.keepAliveMs, connectionsCheckingInterval: Math.min(1000, t.headersMs) },
      (req, res) => {
        this.route(req, res, d).catch((err: Error) => {
          d.log(`mock buyer: ${req.method} ${req.url}: ${err.message}`);
          if (!res.headersSent) sendJson(res, 500, { error: 'internal_error' }, { close: true });
          else res.destroy();
        });
      },
    );
    guardConnections(this.server, d.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
    this.server.on('clientError', (_err, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      socket.destroy();
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse, d: BuyerServerDeps): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://receiver.invalid');
    } catch {
      sendJson(res, 400, { error: 'bad_request' }, { close: true });
      return;
    }
    if (url.pathname === ADMIN_PREFIX || url.pathname.startsWith(`${ADMIN_PREFIX}/`)) return d.admin(req, res, url);
    const reg = d.endpointAt(url.pathname);
    if (!reg) {
      sendJson(res, 404, { error: 'not_found', message: 'no endpoint is registered at this path' }, { close: true });
      return;
    }
    if (req.method !== 'POST') {
      sendJson(res, 405, { error: 'method_not_allowed' }, { headers: { allow: 'POST' }, close: true });
      return;
    }
    return d.webhook(req, res, reg);
  }

  listen(host: string, port: number): Promise<AddressInfo> {
    return listen(this.server, port, host);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
      setTimeout(() => this.server.closeAllConnections(), 500).unref();
    });
  }
}
