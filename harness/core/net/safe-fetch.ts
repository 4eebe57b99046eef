/**
 * SSRF-safe document fetch for counterparty files (brand.json, JWKS, adagents.json; digest 1.11,
 * 5.9): https only, the host resolved and every address checked against the reserved ranges
 * (address-policy.ts, documents rules: always refused, the run's allow-list aside), the connection
 * pinned to the checked addresses, no redirects, a connect timeout, a total timeout and a body cap.
 * `allowInsecureLoopback` (a local agent under test, the tests) permits http and loopback
 * addresses, nothing else, and only while the run does not deny private addresses. Errors never
 * echo the counterparty's response body. Nothing is sent but the GET itself: no credential.
 */
import { request } from 'undici';
import { AddressPolicy, findAddressRefusal } from './address-policy.js';
import { isLoopbackAddress } from './address-ranges.js';
import { policyAgent } from './pinned-connector.js';

export type SafeFetchErrorKind = 'url' | 'scheme' | 'address' | 'redirect' | 'status' | 'too_large' | 'timeout' | 'network';

export class SafeFetchError extends Error {
  override name = 'SafeFetchError';
  constructor(
    readonly kind: SafeFetchErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface FetchedDocument {
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * Fetches one document under a byte cap. Injectable wherever counterparty files are read.
 * `anyStatus` (the OAuth metadata graph's endpoint probes and its own redirect handling) answers
 * every status instead of refusing a redirect or a status other than 200; a redirect's body is
 * dropped and it is never followed here.
 */
export type DocumentFetcher = (url: string, opts: { maxBytes: number; anyStatus?: boolean }) => Promise<FetchedDocument>;

export interface SafeFetchOptions {
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** A local agent under test, tests: allow http:// and loopback addresses (other reserved ranges stay refused). */
  allowInsecureLoopback?: boolean;
  /** The run's address policy: its allow-list and resolver are used; with `denyPrivate` loopback is refused too unless allow-listed. */
  policy?: AddressPolicy;
  /** The Accept header (default application/json). */
  accept?: string;
  /** PEM of extra certificate authorities to trust for https (a test counterparty's own CA), beside the system's. */
  ca?: string;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_TOTAL_TIMEOUT_MS = 10_000;

/** Drop a response body without leaving an unhandled abort error behind. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => undefined);
  body.destroy();
}

export function createSafeFetcher(opts: SafeFetchOptions = {}): DocumentFetcher {
  const connectTimeout = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const totalTimeout = opts.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS;
  // http stays loopback-only; loopback addresses themselves pass only while the run does not
  // deny private addresses (then only allow-listed ones do: forDocuments).
  const allowLoopback = opts.allowInsecureLoopback === true;
  const documents = (opts.policy ?? new AddressPolicy()).forDocuments({ loopback: allowLoopback });
  return async (rawUrl, { maxBytes, anyStatus }) => {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new SafeFetchError('url', `not a URL: ${JSON.stringify(rawUrl)}`);
    }
    if (url.protocol !== 'https:' && !(allowLoopback && url.protocol === 'http:')) {
      throw new SafeFetchError('scheme', `refusing ${url.protocol} URL (https only)`);
    }
    if (url.username || url.password) throw new SafeFetchError('url', 'credentials in URL');
    let addresses;
    try {
      addresses = await documents.resolve(url.hostname);
    } catch (err) {
      const refused = findAddressRefusal(err);
      if (refused) throw new SafeFetchError('address', refused.message);
      throw new SafeFetchError('network', (err as Error).message);
    }
    if (url.protocol === 'http:' && !addresses.every((a) => isLoopbackAddress(a.address))) {
      throw new SafeFetchError('scheme', 'plain http is allowed for loopback only');
    }
    const agent = policyAgent(documents, { connectTimeoutMs: connectTimeout, ...(opts.ca ? { ca: opts.ca } : {}) });
    const signal = AbortSignal.timeout(totalTimeout);
    try {
      const res = await request(url, { method: 'GET', dispatcher: agent, signal, headers: { accept: opts.accept ?? 'application/json' } });
      if (res.statusCode >= 300 && res.statusCode < 400) {
        discard(res.body);
        if (anyStatus) return { url: url.href, status: res.statusCode, headers: res.headers, body: Buffer.alloc(0) };
        throw new SafeFetchError('redirect', `redirect (${res.statusCode}) refused`);
      }
      if (res.statusCode !== 200 && !anyStatus) {
        discard(res.body);
        throw new SafeFetchError('status', `HTTP ${res.statusCode}`);
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        discard(res.body);
        throw new SafeFetchError('too_large', `body of ${declared} bytes exceeds ${maxBytes}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          discard(res.body);
          throw new SafeFetchError('too_large', `body exceeds ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return { url: url.href, status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) };
    } catch (err) {
      if (err instanceof SafeFetchError) throw err;
      if (signal.aborted || (err as Error).name === 'ConnectTimeoutError') throw new SafeFetchError('timeout', `fetch of ${url.host} timed out`);
      const refused = findAddressRefusal(err);
      if (refused) throw new SafeFetchError('address', refused.message);
      throw new SafeFetchError('network', `fetch of ${url.host} failed: ${(err as Error).message}`);
    } finally {
      await agent.destroy().catch(() => undefined);
    }
  };
}
