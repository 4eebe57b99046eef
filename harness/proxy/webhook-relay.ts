/**
 * The webhook relay (`proto-comply proxy --webhooks-to ORIGIN`): the buyer registers the relay's
 * URL (same path as on its own receiver) in push_notification_config / reporting_webhook, the
 * agent posts its webhooks here, and each is passed on to the receiver with the path and the
 * Host the agent used, so an RFC 9421 signature over the relay's authority still verifies there.
 *
 * Webhook faults (inject.ts) act here:
 * - duplicate: the same bytes are delivered again, then the receiver's first answer goes back to the agent;
 * - reorder: the agent gets 200 at once, the webhook is held and delivered right after the next
 *   webhook to the same path, or alone after `holdMs` when none comes (on close: at once);
 * - corrupt-signature: one character of the Signature header's value changes on the way.
 * Every exchange is recorded: what the agent sent and was answered, and separately each copy the
 * relay sent itself (`injected_copy`), so the audit judges the agent on its own acts only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent, request } from 'undici';
import { normalizeHeaders } from '../core/transport/http-client.js';
import { readBody } from '../core/transport/read-body.js';
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
import type { InjectRule } from './inject.js';

export interface WebhookRelayOptions extends ListenerOptions {
  /** The receiver's origin (scheme, host, port; no path): webhooks keep their own path. */
  to: string;
  /** Largest webhook body accepted (default 2 MiB) and kept for the audit (default 1 MiB). */
  maxRequestBytes?: number;
  maxAuditBytes?: number;
  /** Receiver connect, headers and body timeout. Default 30 s. */
  timeoutMs?: number;
  /** Longest a reordered webhook waits for a later one. Default 5 s. */
  holdMs?: number;
}

/** `url`: the relay's origin (the buyer's receiver URL with this origin in place of its own); `close` delivers what is held, then stops. */
export type RunningWebhookRelay = RunningListener;

interface Delivery {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  copy: AuditCopy;
}

interface Held {
  seq: number;
  rule: InjectRule;
  delivery: Delivery;
  exchange: ProxiedExchange['request'];
  timer: NodeJS.Timeout;
}

/** The Signature header with one character of its first signature value changed (still well-formed base64). */
export function corruptSignature(value: string): string | undefined {
  const m = /:([A-Za-z0-9+/]+)(=*):/.exec(value);
  if (!m) return undefined;
  const at = m.index + 1 + Math.floor(m[1].length / 2);
  const flipped = value[at] === 'A' ? 'B' : 'A';
  return value.slice(0, at) + flipped + value.slice(at + 1);
}

export async function startWebhookRelay(o: WebhookRelayOptions): Promise<RunningWebhookRelay> {
  const to = new URL(o.to);
  const maxRequest = o.maxRequestBytes ?? 2 * 1024 * 1024;
  const maxAudit = o.maxAuditBytes ?? 1024 * 1024;
  const timeout = o.timeoutMs ?? 30_000;
  const holdMs = o.holdMs ?? 5_000;
  const clock = o.clock ?? newExchangeClock();
  const agent = new Agent({ headersTimeout: timeout, bodyTimeout: timeout, connect: { timeout: Math.min(timeout, 10_000) } });
  /** Reordered webhooks waiting for the next one to their path. */
  const held = new Map<string, Held>();
  const inFlight = new Set<Promise<void>>();

  const deliver = async (d: Delivery): Promise<Answer> => {
    const res = await request(new URL(d.path, to.origin), {
      method: 'POST',
      headers: { ...forwardable(d.headers), ...(d.headers.host ? { host: d.headers.host } : {}) },
      body: d.body,
      dispatcher: agent,
    });
    const copy = new AuditCopy(maxAudit);
    const read = await readBody(res.body, maxAudit);
    for (const c of read.chunks) copy.add(c);
    if (read.end !== 'complete') {
      copy.truncated = true;
      res.body.destroy();
    }
    return { status: res.statusCode, headers: normalizeHeaders(res.headers as Record<string, string | string[] | undefined>), copy };
  };

  /** A copy the relay sends on its own (a duplicate, a late delivery): recorded as the relay's act. */
  const sendCopy = async (d: Delivery, request: ProxiedExchange['request']): Promise<string> => {
    const seq = clock.next();
    const started = new Date().toISOString();
    const tStart = clock.now();
    const base = { seq, started_at: started, t_start: tStart, channel: 'webhook' as const, request, injected_copy: true as const };
    try {
      const a = await deliver(d);
      o.onExchange({ ...base, t_end: clock.now(), response: { status: a.status, headers: a.headers, ...a.copy.record() } });
      return `the receiver answered ${a.status}`;
    } catch (err) {
      const message = `receiver ${to.origin} not reached: ${(err as Error).message}`;
      o.onExchange({ ...base, t_end: clock.now(), error: message });
      return message;
    }
  };

  /** Delivers a held webhook; the caller has taken it out of `held`. */
  const release = async (h: Held, why: string): Promise<void> => {
    clearTimeout(h.timer);
    const outcome = await sendCopy(h.delivery, h.exchange);
    o.inject?.record(h.seq, h.rule, `held webhook ${h.delivery.path} (answered the sender 200), delivered it ${why}; ${outcome}`);
  };

  const track = (p: Promise<void>): void => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const n = clock.next();
    const started = new Date().toISOString();
    const tStart = clock.now();
    const path = req.url ?? '/';
    const headers = normalizeHeaders(req.headers);
    const read = await readBody(req, maxRequest);
    const copy = new AuditCopy(maxAudit);
    for (const c of read.chunks) copy.add(c);
    const request = { method: req.method ?? 'POST', path, headers, ...copy.record() };
    const record = (rest: Partial<ProxiedExchange>): void =>
      o.onExchange({ seq: n, started_at: started, t_start: tStart, t_end: clock.now(), channel: 'webhook', request, ...rest });
    if (read.end === 'too_large') {
      res.writeHead(413, { 'content-type': 'text/plain', connection: 'close' }).end(`webhook body above the relay's ${maxRequest}-byte limit\n`);
      req.destroy();
      record({ error: `webhook body above ${maxRequest} bytes; not relayed` });
      return;
    }
    if (read.end !== 'complete') {
      record({ error: 'the sender went away before the body ended' });
      return;
    }
    const delivery: Delivery = { path, headers, body: Buffer.concat(read.chunks) };
    const faults = o.inject && req.method === 'POST' ? o.inject.firing('webhook', n) : [];
    const reorder = faults.find((f) => f.kind === 'reorder');
    const waiting = held.get(path);
    if (reorder && !waiting) {
      const body = JSON.stringify({ status: 'held by proto-comply proxy (webhook:reorder)' });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      record({ response: { status: 200, headers: { 'content-type': 'application/json' }, body }, injected_answer: true });
      const h: Held = {
        seq: n,
        rule: reorder,
        delivery,
        exchange: request,
        timer: setTimeout(() => {
          held.delete(path);
          track(release(h, `alone after ${holdMs} ms (no later webhook to the same path came)`));
        }, holdMs),
      };
      held.set(path, h);
      return;
    }
    // Taken now, before any await: a concurrent webhook to the same path must not deliver it too.
    if (waiting) held.delete(path);
    const corrupt = faults.find((f) => f.kind === 'corrupt-signature');
    let sent = delivery;
    if (corrupt) {
      const changed = headers.signature === undefined ? undefined : corruptSignature(headers.signature);
      if (changed) {
        sent = { ...delivery, headers: { ...headers, signature: changed } };
        o.inject?.record(n, corrupt, `changed one character of the Signature header of webhook ${path}`);
      }
    }
    let answer: Answer;
    try {
      answer = await deliver(sent);
    } catch (err) {
      const message = `receiver ${to.origin} not reached: ${(err as Error).message}`;
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`${message}\n`);
      record({ error: message });
      if (waiting) await release(waiting, `after webhook #${n} (which did not reach the receiver)`);
      return;
    }
    // What the fault adds is done before the sender hears back: once a sender has its answer, every
    // copy the relay made of what it sent has been delivered (a sender can wait for quiet and read back).
    if (waiting) await release(waiting, `after webhook #${n}, which arrived later`);
    const duplicate = faults.find((f) => f.kind === 'duplicate');
    if (duplicate) {
      const outcome = await sendCopy(sent, request);
      o.inject?.record(n, duplicate, `delivered webhook ${path} a second time, byte for byte; ${outcome}`);
    }
    res.writeHead(answer.status, forwardable(answer.headers)).end(answer.copy.text());
    record({ response: { status: answer.status, headers: answer.headers, ...answer.copy.record() } });
  };

  const server: Server = createServer((req, res) => {
    const p = handle(req, res).catch((err: unknown) => handlerFailed({ ...o, clock }, req, res, err, { channel: 'webhook', error: 'relay error' }));
    track(p);
  });
  server.requestTimeout = timeout;
  const origin = await listenOrigin(server, o.host ?? '127.0.0.1', o.port ?? 0);
  return {
    url: origin,
    async close() {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A sender keeping its connection busy gets at most the relay timeout before it is cut.
      const cut = setTimeout(() => server.closeAllConnections(), timeout);
      await stopped;
      clearTimeout(cut);
      await Promise.allSettled([...inFlight]);
      const rest = [...held.values()];
      held.clear();
      await Promise.allSettled(rest.map((h) => release(h, 'when the proxy stopped')));
      await agent.close().catch(() => undefined);
    },
  };
}
