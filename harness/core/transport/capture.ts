/**
 * Wire capture. Every HTTP exchange of a run goes through one recorder: it numbers exchanges
 * with a run-global sequence, redacts secrets at record time (nothing unredacted is ever
 * stored), caps stored bodies, and lets the engine read back the exchanges of one check by
 * sequence range.
 */
import { DEFAULT_TOKEN, protocolIds } from '../token.js';
import { Redactor, redactAuthorization, redactCookie, redactHmacSignature } from './redact.js';
import type { ExchangeRecorder, WireExchange } from './types.js';

export const DEFAULT_STORED_BODY_BYTES = 64 * 1024;
export const DEFAULT_MAX_STORED_EXCHANGES = 5_000;

export interface RecorderOptions {
  /** Protocol token, for the `x-<token>-signature` header. Default `proto`. */
  token?: string;
  /** Secrets known up front (auth token, webhook credentials). */
  secrets?: Iterable<string>;
  /** Stored body cap in bytes (UTF-8). Default 64 KiB. */
  maxBodyBytes?: number;
  /** Oldest exchanges are dropped beyond this many (see `dropped()`). Default 5000. */
  maxExchanges?: number;
  /** Clock for `started_at` defaults; tests may pin it. */
  now?: () => Date;
  /** The run's redactor (shared with the final redaction pass over the result); default a new one. */
  redactor?: Redactor;
}

/** Exchange intervals kept for `intervals()` (two numbers each); beyond it the oldest are dropped. */
export const MAX_TIMED_EXCHANGES = 200_000;

export interface Recorder extends ExchangeRecorder {
  /** All stored exchanges, oldest first (copies). */
  all(): WireExchange[];
  /** Exchanges with `from <= seq <= to` (`to` defaults to the latest). */
  range(from: number, to?: number): WireExchange[];
  /** Sequence number of the latest exchange, 0 before the first. Use `lastSeq() + 1` as a check's start mark. */
  lastSeq(): number;
  /** How many exchanges were dropped because of `maxExchanges`. */
  dropped(): number;
  /** Redact a string with the current secrets (for notes and messages built outside the recorder). */
  redactText(text: string): string;
  /** Every secret the run knows so far (the final pass over the result uses it). */
  readonly redactor: Redactor;
  /** Start and end (ms since the epoch) of every exchange recorded, stored or not (engine/timing.ts). */
  intervals(): Array<{ start: number; end: number }>;
}

function truncateUtf8(text: string, maxBytes: number): { body: string; truncated: boolean } {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: a short text fits without being encoded.
  if (text.length * 3 <= maxBytes) return { body: text, truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { body: text, truncated: false };
  // Drop a trailing partial multi-byte sequence instead of emitting U+FFFD.
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return { body: bytes.subarray(0, end).toString('utf8'), truncated: true };
}

export function createRecorder(opts: RecorderOptions = {}): Recorder {
  const ids = protocolIds(opts.token ?? DEFAULT_TOKEN);
  const hmacHeader = ids.hmacSignatureHeader.toLowerCase();
  const maxBody = opts.maxBodyBytes ?? DEFAULT_STORED_BODY_BYTES;
  const maxExchanges = opts.maxExchanges ?? DEFAULT_MAX_STORED_EXCHANGES;
  if (!Number.isInteger(maxBody) || maxBody < 0) throw new RangeError(`maxBodyBytes must be a non-negative integer, got ${maxBody}`);
  if (!Number.isInteger(maxExchanges) || maxExchanges < 1) throw new RangeError(`maxExchanges must be a positive integer, got ${maxExchanges}`);

  const redactor = opts.redactor ?? new Redactor();
  for (const s of opts.secrets ?? []) redactor.add(s);
  const stored: WireExchange[] = [];
  let seq = 0;
  let droppedCount = 0;
  // Exchange start/end pairs, flat, for where the run's time went (not the stored exchanges: those are capped lower).
  let spans: number[] = [];

  const text = (s: string): string => redactor.text(s);

  function headers(input: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [rawName, rawValue] of Object.entries(input)) {
      const name = rawName.toLowerCase();
      const value = String(rawValue);
      let safe: string;
      if (name === 'authorization' || name === 'proxy-authorization') safe = redactAuthorization(value);
      else if (name === hmacHeader) safe = redactHmacSignature(value);
      else if (name === 'cookie' || name === 'set-cookie') safe = redactCookie(value);
      else safe = value;
      out[name] = text(safe);
    }
    return out;
  }

  function body(raw: string, alreadyTruncated: boolean | undefined): { body: string; body_truncated?: true } {
    const cut = truncateUtf8(text(raw), maxBody);
    return cut.truncated || alreadyTruncated ? { body: cut.body, body_truncated: true } : { body: cut.body };
  }

  /** A deep copy (an exchange holds strings and numbers, and header maps one level down). */
  function clone(x: WireExchange): WireExchange {
    const copy: WireExchange = { ...x, request: { ...x.request, headers: { ...x.request.headers } } };
    if (x.response) copy.response = { ...x.response, headers: { ...x.response.headers } };
    return copy;
  }

  return {
    record(exchange) {
      seq += 1;
      const start = Date.parse(exchange.started_at);
      if (Number.isFinite(start)) {
        if (spans.length >= 2 * MAX_TIMED_EXCHANGES) spans = spans.slice(spans.length / 2);
        spans.push(start, start + exchange.duration_ms);
      }
      const safe: WireExchange = {
        seq,
        transport: exchange.transport,
        purpose: text(exchange.purpose),
        started_at: exchange.started_at || (opts.now?.() ?? new Date()).toISOString(),
        duration_ms: exchange.duration_ms,
        request: {
          method: exchange.request.method,
          url: text(exchange.request.url),
          headers: headers(exchange.request.headers),
          ...body(exchange.request.body, exchange.request.body_truncated),
        },
      };
      if (exchange.response) {
        safe.response = {
          status: exchange.response.status,
          headers: headers(exchange.response.headers),
          ...body(exchange.response.body, exchange.response.body_truncated),
        };
      }
      if (exchange.error !== undefined) safe.error = text(exchange.error);
      stored.push(safe);
      if (stored.length > maxExchanges) {
        stored.splice(0, stored.length - maxExchanges);
        droppedCount = seq - maxExchanges;
      }
      return clone(safe);
    },
    addSecret(secret) {
      redactor.add(secret);
    },
    redactor,
    all() {
      return stored.map(clone);
    },
    range(from, to = Number.POSITIVE_INFINITY) {
      return stored.filter((x) => x.seq >= from && x.seq <= to).map(clone);
    },
    lastSeq() {
      return seq;
    },
    intervals() {
      const out: Array<{ start: number; end: number }> = [];
      for (let i = 0; i < spans.length; i += 2) out.push({ start: spans[i]!, end: spans[i + 1]! });
      return out;
    },
    dropped() {
      return droppedCount;
    },
    redactText(s) {
      return text(s);
    },
  };
}
