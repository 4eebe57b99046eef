/**
 * Abusive clients for the servers' load-and-abuse battery (abuse.test.ts), loopback only and
 * bounded: each holds or sends for as long as the test lets it and is stopped by `stop()`.
 *
 * - `idle`: connections opened and left silent;
 * - `slowHeaders`: a request line, then one header line every 500 ms, never finishing;
 * - `slowBodies`: complete headers announcing a large body, then one byte every 500 ms;
 * - `flood`: small requests as fast as a few keep-alive connections allow;
 * - `oversizedHeaders`: requests with 100 KiB of headers, over and over.
 *
 * `legit` times requests of a well-behaved client, each on a fresh connection (so a server that
 * refuses new connections cannot hide behind a kept-alive one).
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface Abuser {
  stop(): void;
}

const sockets = (target: URL, n: number, onOpen: (s: Socket) => void): Socket[] =>
  Array.from({ length: n }, () => {
    const s = connect(Number(target.port), target.hostname, () => onOpen(s));
    s.on('error', () => {});
    return s;
  });

const every = (ms: number, f: () => void): NodeJS.Timeout => setInterval(f, ms);

/** Stops a trickle and closes its connections. */
const stopping =
  (held: Socket[], trickle?: NodeJS.Timeout): Abuser['stop'] =>
  () => {
    clearInterval(trickle);
    for (const s of held) s.destroy();
  };

export const ABUSES = {
  idle(target: URL, n = 300): Abuser {
    return { stop: stopping(sockets(target, n, () => {})) };
  },
  slowHeaders(target: URL, n = 300): Abuser {
    const held = sockets(target, n, (s) => s.write(`GET ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\n`));
    let i = 0;
    return {
      stop: stopping(
        held,
        every(500, () => held.forEach((s) => s.writable && s.write(`x-slow-${i++}: 1\r\n`))),
      ),
    };
  },
  slowBodies(target: URL, n = 300): Abuser {
    const held = sockets(target, n, (s) =>
      s.write(`POST ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\ncontent-type: application/json\r\ncontent-length: 60000\r\n\r\n{`),
    );
    return {
      stop: stopping(
        held,
        every(500, () => held.forEach((s) => s.writable && s.write(' '))),
      ),
    };
  },
  flood(target: URL, connections = 8): Abuser {
    let stopped = false;
    const loop = (s: Socket) => {
      // Pipelined small requests; answers are read and dropped.
      const burst = () => {
        if (stopped || !s.writable) return;
        s.write(`GET ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`.repeat(16), () => setImmediate(burst));
      };
      burst();
    };
    const held = sockets(target, connections, loop);
    held.forEach((s) => s.on('data', () => {}));
    return {
      stop: () => {
        stopped = true;
        held.forEach((s) => s.destroy());
      },
    };
  },
  oversizedHeaders(target: URL, connections = 20): Abuser {
    let stopped = false;
    const big = `x-big: ${'a'.repeat(100 * 1024)}\r\n`;
    const open = (): Socket | undefined => {
      if (stopped) return undefined;
      const s = connect(Number(target.port), target.hostname, () => s.write(`GET ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\n${big}\r\n`));
      s.on('error', () => {});
      s.on('data', () => {});
      s.once('close', () => setTimeout(open, 5));
      return s;
    };
    const held = Array.from({ length: connections }, open);
    return {
      stop: () => {
        stopped = true;
        held.forEach((s) => s?.destroy());
      },
    };
  },
} as const;

export type AbuseName = keyof typeof ABUSES;

export interface LegitRequest {
  url: URL;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Through this HTTP proxy (absolute-form request target). */
  via?: URL;
  /** The answers a well-behaved client must get (default: any 2xx). */
  ok?: (status: number) => boolean;
}

/** One request on a fresh connection: its latency in ms, or the reason it failed. */
export function legitOnce(r: LegitRequest, timeoutMs = 10_000): Promise<{ ms: number } | { error: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const hop = r.via ?? r.url;
    const req = request(
      {
        host: hop.hostname,
        port: Number(hop.port),
        method: r.method ?? 'GET',
        path: r.via ? r.url.href : `${r.url.pathname}${r.url.search}`,
        headers: { ...(r.via ? { host: r.url.host } : {}), ...(r.headers ?? {}), connection: 'close' },
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        res.once('end', () => {
          const good = (r.ok ?? ((s) => s >= 200 && s < 300))(res.statusCode ?? 0);
          resolve(good ? { ms: performance.now() - started } : { error: `HTTP ${res.statusCode}` });
        });
      },
    );
    req.once('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.once('error', (e) => resolve({ error: e.message }));
    req.end(r.body);
  });
}

/** `count` legitimate requests one after another: the worst latency and the failures. */
export async function legitRound(r: LegitRequest, count = 5): Promise<{ worstMs: number; failures: string[] }> {
  let worstMs = 0;
  const failures: string[] = [];
  for (let i = 0; i < count; i++) {
    const out = await legitOnce(r);
    if ('error' in out) failures.push(out.error);
    else worstMs = Math.max(worstMs, out.ms);
    await new Promise((res) => setTimeout(res, 50));
  }
  return { worstMs: Math.round(worstMs), failures };
}
