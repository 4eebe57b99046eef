/**
 * SSRF-safe document fetch for counterparty files (brand.json, JWKS, adagents.json): https
 * only, every resolved address checked against the reserved ranges and the connection pinned
 * to the validated address, no redirects, a connect timeout, a total timeout and a body cap.
 * `allowInsecureLoopback` (tests only) permits http and loopback addresses, nothing else.
 * Errors never echo the counterparty's response body.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { isLoopbackAddress, isReservedAddress } from './reserved-address.js';

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

/** Fetches one document under a byte cap. Injectable wherever counterparty files are read. */
export type DocumentFetcher = (url: string, opts: { maxBytes: number }) => Promise<FetchedDocument>;

export interface SafeFetchOptions {
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** Tests: allow http:// and loopback addresses (other reserved ranges stay refused). */
  allowInsecureLoopback?: boolean;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_TOTAL_TIMEOUT_MS = 10_000;

async function validatedAddress(host: string, allowLoopback: boolean): Promise<{ address: string; family: 4 | 6 }> {
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  const addrs = isIP(literal)
    ? [{ address: literal, family: isIP(literal) as 4 | 6 }]
    : await dnsLookup(literal, { all: true, verbatim: true }).catch((err: Error) => {
        throw new SafeFetchError('network', `cannot resolve ${literal}: ${err.message}`);
      });
  if (addrs.length === 0) throw new SafeFetchError('network', `no address for ${literal}`);
  for (const a of addrs) {
    if (isReservedAddress(a.address) && !(allowLoopback && isLoopbackAddress(a.address))) {
      throw new SafeFetchError('address', `${literal} resolves to reserved address ${a.address}`);
    }
  }
  const first = addrs[0]!;
  return { address: first.address, family: first.family as 4 | 6 };
}

/** Drop a response body without leaving an unhandled abort error behind. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => undefined);
  body.destroy();
}

export function createSafeFetcher(opts: SafeFetchOptions = {}): DocumentFetcher {
  const connectTimeout = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const totalTimeout = opts.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS;
  const allowLoopback = opts.allowInsecureLoopback === true;
  return async (rawUrl, { maxBytes }) => {
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
    const pinned = await validatedAddress(url.hostname, allowLoopback);
    if (url.protocol === 'http:' && !isLoopbackAddress(pinned.address)) {
      throw new SafeFetchError('scheme', 'plain http is allowed for loopback only');
    }
    const agent = new Agent({
      connect: {
        timeout: connectTimeout,
        lookup: (_host: string, o: { all?: boolean }, cb: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) =>
          o?.all ? cb(null, [pinned]) : cb(null, pinned.address, pinned.family),
      },
    });
    const signal = AbortSignal.timeout(totalTimeout);
    try {
      const res = await request(url, { method: 'GET', dispatcher: agent, signal, headers: { accept: 'application/json' } });
      if (res.statusCode >= 300 && res.statusCode < 400) {
        discard(res.body);
        throw new SafeFetchError('redirect', `redirect (${res.statusCode}) refused`);
      }
      if (res.statusCode !== 200) {
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
      throw new SafeFetchError('network', `fetch of ${url.host} failed: ${(err as Error).message}`);
    } finally {
      await agent.destroy().catch(() => undefined);
    }
  };
}
