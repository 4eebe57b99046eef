/**
 * The forward proxy (`proto-comply proxy --mitm`), built on http-mitm-proxy: a buyer configured
 * with it as HTTP(S) proxy, and trusting the CA it generates in `--ca-dir`, has its HTTPS opened
 * and read. Requests to the agent's origin (`--upstream`) are exchanges with the agent; requests
 * to any other origin carrying a webhook envelope are webhooks the agent posts (when the seller
 * also routes through the proxy); everything else passes unaudited. Bodies stream through; the
 * audit gets a bounded copy of each, and the agent is asked for identity encoding so that copy is
 * readable.
 */
import { chmodSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Agent as HttpsAgent } from 'node:https';
import { Agent as HttpAgent } from 'node:http';
import { type IContext, Proxy as MitmProxy } from 'http-mitm-proxy';
import { normalizeHeaders } from '../core/transport/http-client.js';
import { detectWebhookFormat } from '../core/schemas/validator.js';
import { tryParseJson } from '../core/transport/jsonrpc.js';
import { AuditCopy, type ListenerOptions, newExchangeClock, type ProxiedExchange, type RunningListener } from './http-parts.js';

export interface MitmProxyOptions extends ListenerOptions {
  /** The agent's base URL: exchanges with its origin are audited as calls. */
  upstream: string;
  /** Where the CA (certs/ca.pem, keys/ca.private.key) is kept, created when absent. */
  caDir: string;
  /** PEM of a CA the upstream's certificate chains to, beyond the system's (a private or test agent). */
  upstreamCa?: string;
  maxAuditBytes?: number;
  /** Idle timeout of a proxied connection. Default 120 s. */
  timeoutMs?: number;
}

export interface RunningMitmProxy extends RunningListener {
  /** The CA certificate a client must trust. */
  caCertPath: string;
}

function portFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, host, () => s.close(() => resolve()));
  });
}

/** The origin of the request in its context: the CONNECT target for HTTPS, the absolute URL or Host otherwise. */
function originOf(ctx: IContext): string {
  const req = ctx.clientToProxyRequest;
  const host = req.headers.host ?? '';
  return `${ctx.isSSL ? 'https' : 'http'}://${host}`.toLowerCase();
}

function sameOrigin(a: string, b: URL): boolean {
  const u = new URL(a);
  const port = (x: URL) => x.port || (x.protocol === 'https:' ? '443' : '80');
  return u.protocol === b.protocol && u.hostname === b.hostname.toLowerCase() && port(u) === port(b);
}

/**
 * http-mitm-proxy writes to the console as it goes (hostnames a client named, errors with either
 * side's text): none of it may reach a terminal raw. While any forward proxy runs, the console's
 * debug, info, log and error are muted (until shortly after the last one closes); the errors that
 * matter reach the report through onError.
 */
let muted = 0;
let saved: Pick<Console, 'debug' | 'info' | 'log' | 'error'> | undefined;
function muteConsole(): () => void {
  if (muted++ === 0) {
    saved = { debug: console.debug, info: console.info, log: console.log, error: console.error };
    console.debug = console.info = console.log = console.error = () => {};
  }
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--muted === 0 && saved) Object.assign(console, saved);
  };
}

export async function startMitmProxy(o: MitmProxyOptions): Promise<RunningMitmProxy> {
  const upstream = new URL(o.upstream);
  const clock = o.clock ?? newExchangeClock();
  const maxAudit = o.maxAuditBytes ?? 1024 * 1024;
  const host = o.host ?? '127.0.0.1';
  const port = o.port ?? 0;
  await portFree(host, port);
  const proxy = new MitmProxy();
  const httpsAgent = new HttpsAgent({ keepAlive: true, ...(o.upstreamCa ? { ca: o.upstreamCa } : {}) });
  const httpAgent = new HttpAgent({ keepAlive: true });

  proxy.onError((ctx, err, kind) => {
    if (!ctx?.clientToProxyRequest) return;
    const req = ctx.clientToProxyRequest;
    const now = clock.now();
    o.onExchange({
      seq: clock.next(),
      started_at: new Date().toISOString(),
      t_start: now,
      t_end: now,
      request: { method: req.method ?? 'GET', path: req.url ?? '/', headers: normalizeHeaders(req.headers), body: '' },
      error: `${kind ?? 'proxy error'}: ${err?.message ?? 'unknown'}`,
    });
  });

  proxy.onRequest((ctx, callback) => {
    const req = ctx.clientToProxyRequest;
    const answer = ctx.proxyToClientResponse;
    // http-mitm-proxy writes the client's response head from callbacks that may come after an
    // error answer went out, and the throw would end the process: a second head is dropped.
    const writeHead = answer.writeHead.bind(answer) as (...a: unknown[]) => typeof answer;
    answer.writeHead = ((...a: unknown[]) => (answer.headersSent ? answer : writeHead(...a))) as typeof answer.writeHead;
    // A request for the proxy itself (an origin-form request, whose Host names the proxy) would
    // be forwarded to the proxy again, without end: refused.
    const target = ctx.proxyToServerRequestOptions;
    if (!ctx.isSSL && target && isSelf(target.host, Number(target.port))) {
      answer.writeHead(400, { 'content-type': 'text/plain', connection: 'close' }).end('this is a forward proxy: name the target URL in the request line\n');
      return;
    }
    const seq = clock.next();
    const started = new Date().toISOString();
    const tStart = clock.now();
    const toAgent = sameOrigin(originOf(ctx), upstream);
    const reqCopy = new AuditCopy(maxAudit);
    const resCopy = new AuditCopy(maxAudit);
    let status = 0;
    let resHeaders: Record<string, string> = {};
    // The audit reads the bytes the client gets: no compressed answers.
    if (ctx.proxyToServerRequestOptions) delete ctx.proxyToServerRequestOptions.headers['accept-encoding'];
    ctx.onRequestData((_c, chunk, cb) => {
      reqCopy.add(chunk);
      cb(null, chunk);
    });
    ctx.onRequestEnd((_c, cb) => {
      if (toAgent) o.onRequest?.(seq, tStart, reqCopy.text());
      cb();
    });
    ctx.onResponse((c, cb) => {
      status = c.serverToProxyResponse?.statusCode ?? 0;
      resHeaders = normalizeHeaders(c.serverToProxyResponse?.headers ?? {});
      cb();
    });
    ctx.onResponseData((_c, chunk, cb) => {
      resCopy.add(chunk);
      cb(null, chunk);
    });
    ctx.onResponseEnd((_c, cb) => {
      const request = { method: req.method ?? 'GET', path: req.url ?? '/', headers: normalizeHeaders(req.headers), ...reqCopy.record() };
      const exchange: ProxiedExchange = {
        seq,
        started_at: started,
        t_start: tStart,
        t_end: clock.now(),
        request,
        response: { status, headers: resHeaders, ...resCopy.record() },
      };
      if (toAgent) o.onExchange(exchange);
      else {
        // Another origin: a webhook when the body is a webhook envelope (the agent posting to the buyer).
        const body = tryParseJson(request.body);
        if (request.method === 'POST' && body.ok && detectWebhookFormat(body.value) !== 'unknown') o.onExchange({ ...exchange, channel: 'webhook' });
      }
      cb();
    });
    callback();
  });

  const isSelf = (h: string | undefined, p: number): boolean =>
    p === proxy.httpPort && h !== undefined && [host, 'localhost', '127.0.0.1', '::1', '[::1]'].includes(h.toLowerCase());

  const unmute = muteConsole();
  await new Promise<void>((resolve, reject) => {
    proxy.listen({ host, port, sslCaDir: o.caDir, keepAlive: true, timeout: o.timeoutMs ?? 120_000, httpsAgent, httpAgent }, (err?: Error | null) =>
      err ? reject(err) : resolve(),
    );
  }).catch((err: unknown) => {
    unmute();
    throw err;
  });
  // The CA's private key lets its holder impersonate any site to clients that trust it.
  for (const dir of [o.caDir, join(o.caDir, 'keys')]) if (existsSync(dir)) chmodSync(dir, 0o700);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${proxy.httpPort}`,
    caCertPath: proxy.ca.getCACertPath(),
    async close() {
      // Busy keep-alive connections would hold the listening socket open.
      (proxy as unknown as { httpServer?: { closeAllConnections(): void } }).httpServer?.closeAllConnections();
      proxy.close();
      httpsAgent.destroy();
      httpAgent.destroy();
      // Sockets still closing report their errors a moment later.
      setTimeout(unmute, 2_000).unref();
    },
  };
}
