/**
 * The one HTTP client every transport uses (undici). Every call has a connect timeout, a total
 * timeout (headers + body), a response body cap enforced while reading, no redirect following,
 * caller abort, bearer auth with per-call override, a last `prepare` hook over the exact bytes,
 * and every request/response is recorded through the run's `ExchangeRecorder`.
 *
 * The run's bearer token goes only to the origins the user named (`credentialOrigins`): a request
 * to any other origin carries no `Authorization` with it, whatever a `prepare` hook did. With an
 * address policy that denies private addresses every connection is resolved, checked and pinned
 * (harness/core/net); a refused connection is a `refused` failure and nothing is sent.
 */
import type { Agent } from 'undici';
import { findAddressRefusal } from '../net/address-policy.js';
import { policyAgent } from '../net/pinned-connector.js';
import { describeError, failure, TransportConfigError } from './errors.js';
import { startExchange } from './exchange.js';

export { normalizeHeaders } from './exchange.js';
import { HARNESS_NAME, HARNESS_VERSION } from './version.js';
import type { AuthOverride, CallOptions, OutgoingRequest, TransportFailure, TransportKind, TransportSettings, WireExchange } from './types.js';

export type HttpSettings = Pick<
  TransportSettings,
  'authToken' | 'connectTimeoutMs' | 'totalTimeoutMs' | 'maxResponseBytes' | 'capture' | 'addressPolicy' | 'credentialOrigins'
>;

/** Given the response status and headers, optionally return a chunk sink; it returns true to stop reading. */
export type StreamConsumerFactory = (status: number, headers: Record<string, string>) => ((chunk: Buffer) => boolean) | undefined;

export interface HttpRequestSpec {
  method: string;
  url: string;
  /** Request headers; names are lower-cased before sending. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  transport: TransportKind | 'http';
  purpose: string;
  signal?: AbortSignal;
  auth?: AuthOverride;
  prepare?: CallOptions['prepare'];
  /** Total timeout of this one request (default: settings.totalTimeoutMs). */
  timeoutMs?: number;
  /** Lets a caller stop reading a stream (SSE) once it has what it needs. */
  consumer?: StreamConsumerFactory;
}

interface HttpBase {
  exchange: WireExchange;
  durationMs: number;
}

/** A complete, non-redirect HTTP response (any status). */
export interface HttpResponse extends HttpBase {
  ok: true;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** True when the consumer stopped reading before the server ended the body. */
  stoppedEarly: boolean;
}

/** No usable response: network, timeout, abort, redirect or size cap. */
export interface HttpFailure extends HttpBase {
  ok: false;
  failure: TransportFailure;
  status?: number;
  headers?: Record<string, string>;
}

export type HttpResult = HttpResponse | HttpFailure;

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
/** How long the rest of a body is read after the consumer had its answer, before the connection is dropped. */
const DRAIN_AFTER_ANSWER_MS = 1_000;

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new TransportConfigError(`${name} must be a positive number, got ${value}`);
  return value;
}

export function validateHttpUrl(url: string, what = 'URL'): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TransportConfigError(`${what} ${JSON.stringify(url)} is not a valid absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TransportConfigError(`${what} ${JSON.stringify(url)} must use http or https, not ${parsed.protocol.replace(/:$/, '')}`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new TransportConfigError(`${what} must not carry credentials in the URL (userinfo); pass them with --auth-token instead`);
  }
  return parsed;
}

/** Every string at `authentication.credentials` in a value (webhook registrations), depth-bounded. */
export function webhookCredentials(value: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 8 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    for (const v of value) webhookCredentials(v, depth + 1, out);
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === 'authentication' && v && typeof v === 'object' && typeof (v as { credentials?: unknown }).credentials === 'string')
      out.push((v as { credentials: string }).credentials);
    webhookCredentials(v, depth + 1, out);
  }
  return out;
}

/** The origin of a URL (`https://host:port`), or undefined when it does not parse. */
/** Origins of URLs seen lately: a run sends every call to the same few endpoints. */
const origins = new Map<string, string | undefined>();
const MAX_REMEMBERED_ORIGINS = 256;

export function originOf(url: string): string | undefined {
  if (origins.has(url)) return origins.get(url);
  let origin: string | undefined;
  try {
    const o = new URL(url).origin;
    origin = o === 'null' ? undefined : o;
  } catch {
    origin = undefined;
  }
  if (origins.size >= MAX_REMEMBERED_ORIGINS) origins.clear();
  origins.set(url, origin);
  return origin;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * undici takes the TLS server name from a Host header and asserts on an IPv6 bracket left open
 * there (`[::1`, a signature probe's malformed authority, digest 1.6 step 3): such a request names
 * its server after the URL instead (the name it would have had without the header).
 */
function unclosedBracketServerName(req: OutgoingRequest): { servername?: string } {
  const host = req.headers.host;
  if (host === undefined || !host.startsWith('[') || host.includes(']')) return {};
  return { servername: new URL(req.url).hostname.replace(/^\[(.*)\]$/, '$1') };
}

export class HttpClient {
  private readonly agent: Agent;
  /** Request URLs already found valid (a run sends every call to the same few endpoints). */
  private readonly validUrls = new Set<string>();
  private readonly settings: HttpSettings;
  /** Origins the run's bearer token may go to; undefined: any (no transport leaves it unset). */
  private readonly tokenOrigins?: Set<string>;

  constructor(settings: HttpSettings) {
    positive('connectTimeoutMs', settings.connectTimeoutMs);
    positive('totalTimeoutMs', settings.totalTimeoutMs);
    positive('maxResponseBytes', settings.maxResponseBytes);
    this.settings = settings;
    if (settings.authToken) settings.capture.addSecret(settings.authToken);
    if (settings.credentialOrigins) this.tokenOrigins = new Set(settings.credentialOrigins.flatMap((u) => originOf(u) ?? []));
    this.agent = policyAgent(settings.addressPolicy, {
      connectTimeoutMs: settings.connectTimeoutMs,
      headersTimeout: settings.totalTimeoutMs,
      bodyTimeout: settings.totalTimeoutMs,
    });
  }

  /** May the run's bearer token go to this URL? */
  tokenAllowedFor(url: string): boolean {
    if (!this.tokenOrigins) return true;
    const origin = originOf(url);
    return origin !== undefined && this.tokenOrigins.has(origin);
  }

  /** Let the run's bearer token go to one more origin (an A2A card url the user allowed it for). */
  allowTokenFor(url: string): void {
    const origin = originOf(url);
    if (origin !== undefined) this.tokenOrigins?.add(origin);
  }

  /** Agent text with the run's secrets redacted, for snippets cut before the final redaction pass. */
  redactText(text: string): string {
    return this.settings.capture.redactText?.(text) ?? text;
  }

  get totalTimeoutMs(): number {
    return this.settings.totalTimeoutMs;
  }

  /** Webhook credentials a call is about to send (`authentication.credentials` anywhere in it) are redacted from every exchange. */
  redactCredentialsOf(...values: unknown[]): void {
    for (const secret of webhookCredentials(values)) this.settings.capture.addSecret(secret);
  }

  /**
   * Build the exact outgoing request: headers, auth, then the caller's `prepare` hook. Synchronous
   * when there is no hook (most calls), so a plain call costs no extra turn of the event loop.
   */
  private outgoing(spec: HttpRequestSpec): OutgoingRequest | Promise<OutgoingRequest> {
    const headers: Record<string, string> = { 'user-agent': `${HARNESS_NAME}/${HARNESS_VERSION}` };
    for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k.toLowerCase()] = v;
    const auth = spec.auth ?? { mode: 'default' };
    delete headers.authorization;
    const token = this.settings.authToken;
    if (auth.mode === 'default' && token && this.tokenAllowedFor(spec.url)) headers.authorization = `Bearer ${token}`;
    if (auth.mode === 'bearer') {
      this.settings.capture.addSecret(auth.token);
      headers.authorization = `Bearer ${auth.token}`;
    }
    const body = typeof spec.body === 'string' ? Buffer.from(spec.body, 'utf8') : (spec.body ?? new Uint8Array());
    const req: OutgoingRequest = { method: spec.method, url: spec.url, headers, body };
    const prepare = spec.prepare;
    if (!prepare) return req;
    return (async () => {
      const prepared = await prepare(req);
      const lower: Record<string, string> = {};
      for (const [k, v] of Object.entries(prepared.headers)) lower[k.toLowerCase()] = v;
      // Whatever `prepare` did (a replayed request, a rewritten URL): no token to another origin.
      if (token && !this.tokenAllowedFor(prepared.url) && lower.authorization?.includes(token)) delete lower.authorization;
      return { ...prepared, headers: lower };
    })();
  }

  /**
   * Send one request. Wire problems come back as `{ok: false, failure}`; only harness bugs throw
   * (a `prepare` hook that throws or produces a non-http(s) URL).
   */
  async send(spec: HttpRequestSpec): Promise<HttpResult> {
    const made = this.outgoing(spec);
    const req = made instanceof Promise ? await made : made;
    // A URL only `prepare` can break; the constructors validated the configured ones.
    if (req.url !== spec.url || !this.validUrls.has(req.url)) {
      validateHttpUrl(req.url, 'request URL');
      if (req.url === spec.url && this.validUrls.size < 64) this.validUrls.add(req.url);
    }
    const startedAt = new Date();
    const t0 = performance.now();
    const reqRecord = {
      method: req.method,
      url: req.url,
      headers: req.headers,
      // The caller's text when nothing rewrote the request (no decoding of what was just encoded).
      body:
        typeof spec.body === 'string' && !spec.prepare ? spec.body : Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength).toString('utf8'),
    };
    const finish = (response: WireExchange['response'] | undefined, error: string | undefined): { exchange: WireExchange; durationMs: number } => {
      const durationMs = Math.round(performance.now() - t0);
      const exchange = this.settings.capture.record({
        transport: spec.transport,
        purpose: spec.purpose,
        started_at: startedAt.toISOString(),
        duration_ms: durationMs,
        request: reqRecord,
        ...(response ? { response } : {}),
        ...(error !== undefined ? { error } : {}),
      });
      return { exchange, durationMs };
    };
    const fail = (f: TransportFailure, response?: WireExchange['response']): HttpFailure => ({
      ok: false,
      failure: f,
      ...(response ? { status: response.status, headers: response.headers } : {}),
      ...finish(response, f.message),
    });

    if (spec.signal?.aborted) return fail(failure('aborted', 'request aborted before it was sent'));

    const timeoutMs = Math.max(1, Math.min(spec.timeoutMs ?? this.settings.totalTimeoutMs, this.settings.totalTimeoutMs));
    const cap = this.settings.maxResponseBytes;
    const exchange = startExchange(this.agent, {
      url: req.url,
      method: req.method,
      headers: req.headers,
      // A view of the bytes `outgoing` or `prepare` made, not a copy.
      body: req.body.length > 0 || req.method !== 'GET' ? asBuffer(req.body) : undefined,
      cap,
      consumer: spec.consumer,
      drainMs: DRAIN_AFTER_ANSWER_MS,
      ...unclosedBracketServerName(req),
    });
    let why: 'timeout' | 'aborted' | undefined;
    const timer = setTimeout(() => {
      why ??= 'timeout';
      exchange.abort(new Error(`total timeout of ${timeoutMs} ms exceeded`));
    }, timeoutMs);
    const onCallerAbort = (): void => {
      why ??= 'aborted';
      exchange.abort(new Error('request aborted by the caller'));
    };
    spec.signal?.addEventListener('abort', onCallerAbort, { once: true });

    const classify = (err: unknown, phase: string): TransportFailure => {
      if (why === 'timeout') return failure('timeout', `total timeout of ${timeoutMs} ms exceeded (${phase})`);
      if (why === 'aborted') return failure('aborted', `request aborted by the caller (${phase})`);
      const refused = findAddressRefusal(err);
      if (refused) return failure('refused', `${refused.message}; nothing was sent`);
      const code = errorCode(err);
      if (code === 'UND_ERR_CONNECT_TIMEOUT') {
        return failure('timeout', `connect timeout of ${this.settings.connectTimeoutMs} ms exceeded`);
      }
      if (code && TIMEOUT_CODES.has(code)) return failure('timeout', `timeout (${phase}): ${describeError(err)}`);
      // Refused, reset, DNS, closed socket, TLS, anything else below HTTP: the agent was not reached.
      return failure('network', `${phase}: ${describeError(err)}`);
    };

    let out;
    try {
      out = await exchange.done;
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onCallerAbort);
    }
    if (out.end === 'error' && out.status === undefined) return fail(classify(out.error, 'sending request'));
    const status = out.status!;
    const headers = out.headers!;
    const head = { status, headers };
    switch (out.end) {
      case 'redirect': {
        const location = headers.location;
        return fail(
          failure('redirect', `HTTP ${status} redirect${location ? ` to ${location}` : ' without a Location header'} not followed`, {
            httpStatus: status,
          }),
          { ...head, body: '' },
        );
      }
      case 'declared_too_large':
        return fail(
          failure('body_too_large', `response declares ${Number(headers['content-length'])} bytes, above the ${cap}-byte cap; not read`, {
            httpStatus: status,
          }),
          { ...head, body: '', body_truncated: true },
        );
      case 'too_large':
        return fail(failure('body_too_large', `response body exceeded the ${cap}-byte cap; reading stopped`, { httpStatus: status }), {
          ...head,
          body: Buffer.concat(out.chunks).toString('utf8'),
          body_truncated: true,
        });
      case 'error':
        return fail(classify(out.error, 'reading response body'), {
          ...head,
          body: Buffer.concat(out.chunks).toString('utf8'),
          body_truncated: true,
        });
    }
    const body = out.chunks.length === 1 ? out.chunks[0]! : Buffer.concat(out.chunks, out.size);
    const text = body.toString('utf8');
    return { ok: true, status, headers, body, text, stoppedEarly: out.end === 'stopped', ...finish({ ...head, body: text }, undefined) };
  }

  /** Close idle connections; anything still open after a short grace period is destroyed. */
  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), 1_000);
    });
    const outcome = await Promise.race([this.agent.close().then(() => 'closed' as const), grace]).catch(() => 'late' as const);
    clearTimeout(timer);
    if (outcome === 'late') await this.agent.destroy().catch(() => {});
  }
}
