/**
 * What the reverse proxy and the webhook relay share: the exchange record the audit reads, one
 * numbering and clock for both listeners, the hop-by-hop header filter, the audit's bounded
 * copy of a body, and listening.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { normalizeHeaders } from '../core/transport/http-client.js';
import type { Injector } from './inject.js';
import type { AddressInfo } from 'node:net';

export interface ProxiedExchange {
  seq: number;
  started_at: string;
  /** Milliseconds since the proxy started, when the request arrived and when its answer ended. */
  t_start: number;
  t_end: number;
  /** `call`: the buyer calling the agent (reverse proxy); `webhook`: the agent posting to the buyer's receiver (relay). */
  channel?: 'webhook';
  request: { method: string; path: string; headers: Record<string, string>; body: string; body_truncated?: true };
  response?: { status: number; headers: Record<string, string>; body: string; body_truncated?: true };
  /** Why the exchange did not complete (upstream unreachable, timeout, client gone). */
  error?: string;
  /** The proxy answered itself (an injected status, a webhook held back): the response is not the peer's. */
  injected_answer?: true;
  /** The agent answered (the response kept is its answer) but the proxy reset the client's connection instead of passing it on. */
  injected_reset?: true;
  /** The proxy sent this request itself (a duplicated or late-delivered webhook): not the sender's act. */
  injected_copy?: true;
}

/** What both listeners are given. */
export interface ListenerOptions {
  host?: string;
  port?: number;
  /** Faults to inject (inject.ts). */
  inject?: Injector;
  /** Numbering and clock shared by both listeners (default: the listener's own). */
  clock?: ExchangeClock;
  onExchange: (exchange: ProxiedExchange) => void;
  /** A request's body has arrived and is about to be forwarded (what is in flight, for the audit). */
  onRequest?: (seq: number, tStart: number, body: string) => void;
}

export interface RunningListener {
  url: string;
  close(): Promise<void>;
}

/** One sequence and one time origin for every exchange the proxy sees, whichever listener took it. */
export interface ExchangeClock {
  next(): number;
  /** Milliseconds since the proxy started. */
  now(): number;
}

export function newExchangeClock(): ExchangeClock {
  const t0 = performance.now();
  let seq = 0;
  return { next: () => ++seq, now: () => performance.now() - t0 };
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
  // The peer is asked for identity encoding, so the audit reads the bytes the client gets.
  'accept-encoding',
]);

export function forwardable(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (!HOP.has(k)) out[k] = v;
  return out;
}

/** Collects up to `cap` bytes of a body for the audit. */
export class AuditCopy {
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
  /** The body as the exchange record keeps it. */
  record(): { body: string; body_truncated?: true } {
    return { body: this.text(), ...(this.truncated ? { body_truncated: true as const } : {}) };
  }
}

/** Starts listening and answers the server's origin (`http://host:port`, IPv6 in brackets). */
export async function listenOrigin(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
}

/** A handler that threw: the client gets 500 (or a cut connection) and the exchange says why. */
export function handlerFailed(
  o: ListenerOptions & { clock: ExchangeClock },
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  extra: Partial<ProxiedExchange>,
): void {
  if (!res.headersSent) res.writeHead(500).end();
  else res.destroy();
  const now = o.clock.now();
  o.onExchange({
    seq: o.clock.next(),
    started_at: new Date().toISOString(),
    t_start: now,
    t_end: now,
    request: { method: req.method ?? 'GET', path: req.url ?? '/', headers: normalizeHeaders(req.headers), body: '' },
    ...extra,
    error: `${extra.error ?? 'proxy error'}: ${(err as Error).message}`,
  });
}
