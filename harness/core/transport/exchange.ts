/**
 * One HTTP exchange on an undici dispatcher through its handler API (`dispatch`), not through
 * `request()`: the response body arrives as chunks in `onResponseData`, with no Readable stream,
 * no stream end watcher and no AbortSignal per call. The HTTP client (http-client.ts) measured
 * about half its own per-call CPU in that machinery (npm run bench -- harness).
 *
 * What it guarantees, as the stream reader (read-body.ts) did:
 * - a byte cap enforced while reading (the first `cap` bytes are kept, then the exchange is aborted);
 * - a declared Content-Length above the cap, and any 3xx, are not read at all;
 * - an optional sink sees every chunk and may stop reading early (an SSE stream the server keeps
 *   open): the answer is returned at once and the rest of the body is read in the background,
 *   bounded in bytes and time, then the connection is dropped if it is still busy;
 * - `abort(reason)` ends the exchange at any point (a timeout, the caller's signal); called before
 *   the request was written, it aborts the request as soon as undici starts it (as `request()`'s
 *   signal does).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/** Header names lower-cased, repeated fields joined with `, `. */
export function normalizeHeaders(h: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in h) {
    const v = h[k];
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

export type ExchangeOutcome =
  /** The server ended the body, or the sink stopped reading (`stopped`). */
  | { end: 'complete' | 'stopped'; status: number; headers: Record<string, string>; chunks: Buffer[]; size: number }
  /** A 3xx, or a declared Content-Length above the cap: nothing of the body was read. */
  | { end: 'redirect' | 'declared_too_large'; status: number; headers: Record<string, string>; chunks: Buffer[]; size: number }
  /** More than `cap` bytes: `chunks` hold the first `cap`. */
  | { end: 'too_large'; status: number; headers: Record<string, string>; chunks: Buffer[]; size: number }
  /** No response head (`status` undefined), or the body failed before its end. */
  | { end: 'error'; error: unknown; status?: number; headers?: Record<string, string>; chunks: Buffer[]; size: number };

export interface ExchangeSpec {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  cap: number;
  /** Given the status and headers of a 2xx-5xx response, optionally a chunk sink that returns true to stop reading. */
  consumer?: (status: number, headers: Record<string, string>) => ((chunk: Buffer) => boolean) | undefined;
  /** How long the rest of a body is read after the sink stopped, before the connection is dropped. */
  drainMs: number;
  /** The TLS server name when undici must not take it from the Host header (http-client.ts). */
  servername?: string;
}

export interface Exchange {
  done: Promise<ExchangeOutcome>;
  abort(reason: Error): void;
}

interface Controller {
  abort(reason: Error): void;
}

/** Origin and path of URLs seen lately (a run sends every call to the same few endpoints). */
const targets = new Map<string, { origin: string; path: string }>();
const MAX_REMEMBERED_TARGETS = 256;

function targetOf(url: string): { origin: string; path: string } {
  let t = targets.get(url);
  if (t === undefined) {
    const u = new URL(url);
    // As undici's request(): the path is the pathname and the query, the fragment is not sent.
    t = { origin: u.origin, path: `${u.pathname}${u.search}` };
    if (targets.size >= MAX_REMEMBERED_TARGETS) targets.clear();
    targets.set(url, t);
  }
  return t;
}

export function startExchange(dispatcher: Dispatcher, spec: ExchangeSpec): Exchange {
  let controller: Controller | undefined;
  let pendingAbort: Error | undefined;
  let settled = false;
  let draining = false;
  let drainTimer: NodeJS.Timeout | undefined;
  let status: number | undefined;
  let headers: Record<string, string> | undefined;
  let sink: ((chunk: Buffer) => boolean) | undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  let resolveDone!: (o: ExchangeOutcome) => void;
  const done = new Promise<ExchangeOutcome>((r) => {
    resolveDone = r;
  });
  const settle = (o: ExchangeOutcome): void => {
    if (settled) return;
    settled = true;
    resolveDone(o);
  };
  const stopDraining = (): void => {
    draining = false;
    if (drainTimer !== undefined) clearTimeout(drainTimer);
  };
  const abort = (reason: Error): void => {
    if (controller) controller.abort(reason);
    else pendingAbort ??= reason;
  };

  const handler = {
    onRequestStart(c: Controller) {
      controller = c;
      if (pendingAbort) c.abort(pendingAbort);
    },
    onResponseStart(c: Controller, statusCode: number, raw: Record<string, string | string[] | undefined>) {
      if (statusCode < 200 || settled) return; // informational (1xx): the final head follows
      status = statusCode;
      headers = normalizeHeaders(raw);
      if (statusCode >= 300 && statusCode < 400) {
        settle({ end: 'redirect', status, headers, chunks, size });
        c.abort(new Error('redirect not followed'));
        return;
      }
      const declared = Number(headers['content-length']);
      if (Number.isFinite(declared) && declared > spec.cap) {
        settle({ end: 'declared_too_large', status, headers, chunks, size });
        c.abort(new Error('declared body above the cap'));
        return;
      }
      sink = spec.consumer?.(statusCode, headers);
    },
    onResponseData(c: Controller, chunk: Buffer) {
      if (draining) {
        size += chunk.length;
        if (size > spec.cap) {
          stopDraining();
          c.abort(new Error('the rest of the body passed the cap'));
        }
        return;
      }
      if (settled) return;
      if (size + chunk.length > spec.cap) {
        chunks.push(chunk.subarray(0, spec.cap - size));
        size = spec.cap;
        settle({ end: 'too_large', status: status!, headers: headers!, chunks, size });
        c.abort(new Error('body above the cap'));
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
      if (sink?.(chunk)) {
        settle({ end: 'stopped', status: status!, headers: headers!, chunks, size });
        // The rest is read in the background, bounded in bytes and time, so the connection stays
        // reusable when the server ends the stream promptly, and is dropped when it keeps it open.
        draining = true;
        drainTimer = setTimeout(() => {
          draining = false;
          c.abort(new Error('the rest of the body took too long'));
        }, spec.drainMs);
        drainTimer.unref();
      }
    },
    onResponseEnd() {
      stopDraining();
      settle({ end: 'complete', status: status!, headers: headers!, chunks, size });
    },
    onResponseError(_c: Controller | undefined, error: unknown) {
      stopDraining();
      settle(status === undefined ? { end: 'error', error, chunks, size } : { end: 'error', error, status, headers, chunks, size });
    },
  };

  try {
    const { origin, path } = targetOf(spec.url);
    const options = { origin, path, method: spec.method as Dispatcher.HttpMethod, headers: spec.headers, body: spec.body };
    // `servername` is a core request option undici's DispatchOptions type does not list.
    const withName = spec.servername === undefined ? options : ({ ...options, servername: spec.servername } as Dispatcher.DispatchOptions);
    dispatcher.dispatch(withName, handler as never);
  } catch (error) {
    settle({ end: 'error', error, chunks, size });
  }
  return { done, abort };
}
