/**
 * One webhook POST attempt with the limits every outbound call needs: a connect timeout and a
 * total timeout, no redirects followed, at most `maxResponseBytes` of the answer read. The
 * answer is classified for the retry policy (digest 5.4-5.6): 2xx delivered; a 401 carrying
 * `WWW-Authenticate: Signature error="webhook_*"` is terminal for this delivery; any other 401,
 * 408, 425, 429, 5xx, timeouts and connection errors are transient; other answers are final.
 */
import { type Dispatcher, request } from 'undici';
import { parseWwwAuthenticate } from '../../../harness/core/signing/parse/www-authenticate.js';
import { findAddressRefusal } from '../../../harness/core/net/address-policy.js';

export type AttemptStatus = 'success' | 'failed' | 'timeout' | 'connection_error';

export interface AttemptOutcome {
  status: AttemptStatus;
  http_status_code?: number;
  error_message?: string;
  /** Worth another attempt of the same event. */
  retryable: boolean;
  /** The receiver refused the signature with a `webhook_*` code (terminal for this delivery). */
  signatureRejected?: string;
}

export interface PostOptions {
  dispatcher: Dispatcher;
  timeoutMs: number;
  maxResponseBytes: number;
  signal: AbortSignal;
  /** Fault `webhook-follows-redirect`: a 3xx with a Location is followed once (same method, headers, body). */
  followRedirect?: boolean;
}

const TRANSIENT = new Set([401, 408, 425, 429]);

async function drain(body: AsyncIterable<Buffer> & { destroy(): void; on(e: 'error', f: () => void): unknown }, max: number): Promise<void> {
  let size = 0;
  body.on('error', () => undefined);
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      return;
    }
  }
}

export async function postWebhook(url: string, headers: Record<string, string>, body: Uint8Array, opts: PostOptions): Promise<AttemptOutcome> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = AbortSignal.any([timeout, opts.signal]);
  try {
    const res = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher: opts.dispatcher,
      signal,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
    await drain(res.body, opts.maxResponseBytes).catch(() => undefined);
    const code = res.statusCode;
    if (code >= 200 && code < 300) return { status: 'success', http_status_code: code, retryable: false };
    const location = res.headers.location;
    if (code >= 300 && code < 400 && opts.followRedirect && typeof location === 'string') {
      return postWebhook(new URL(location, url).toString(), headers, body, { ...opts, followRedirect: false });
    }
    if (code >= 300 && code < 400) return { status: 'failed', http_status_code: code, error_message: `redirect (${code}) not followed`, retryable: false };
    if (code === 401) {
      const raw = res.headers['www-authenticate'];
      const signatureCode = parseWwwAuthenticate(Array.isArray(raw) ? raw[0] : raw);
      if (signatureCode?.startsWith('webhook_')) {
        return {
          status: 'failed',
          http_status_code: code,
          error_message: `signature refused: ${signatureCode}`,
          retryable: false,
          signatureRejected: signatureCode,
        };
      }
    }
    const retryable = TRANSIENT.has(code) || code >= 500;
    return { status: 'failed', http_status_code: code, error_message: `receiver answered HTTP ${code}`, retryable };
  } catch (err) {
    if (timeout.aborted) return { status: 'timeout', error_message: `no answer within ${opts.timeoutMs} ms`, retryable: true };
    if (opts.signal.aborted) return { status: 'connection_error', error_message: 'seller shutting down', retryable: false };
    // Never echo what the receiver's host resolved to (digest 5.9 rule 6); a refusal is final.
    if (findAddressRefusal(err)) return { status: 'connection_error', error_message: 'receiver address refused (digest 5.9)', retryable: false };
    return { status: 'connection_error', error_message: (err as Error).message.slice(0, 200), retryable: true };
  }
}
