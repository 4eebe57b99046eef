/**
 * Where a badge verifier gets the registry's public JWKS: a URL (the registry's
 * `/api/.well-known/jwks.json`) or a local file. The URL is one the user typed, so no address is
 * refused, but only http and https are spoken, redirects are followed only within the same
 * origin (at most 3), the whole fetch has a timeout and the body a 256 KiB cap (the file too).
 * Errors are one line and never echo the response body: `JwksSourceError` with kind `usage`
 * (a bad URL scheme, an unreadable file: the caller's mistake) or `unavailable` (the document
 * could not be had or is not a JWKS).
 */
import { open } from 'node:fs/promises';
import { Agent, request } from 'undici';
import { parseBoundedJson } from '../../core/transport/bounded-json.js';

export const MAX_JWKS_BYTES = 256 * 1024;
export const DEFAULT_JWKS_TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 3;

export class JwksSourceError extends Error {
  override name = 'JwksSourceError';
  constructor(
    readonly kind: 'usage' | 'unavailable',
    message: string,
  ) {
    super(message);
  }
}

export interface JwksSourceOptions {
  timeoutMs?: number;
  maxBytes?: number;
}

/** True when the argument names a URL rather than a file (it has a scheme followed by "//"). */
export const looksLikeUrl = (source: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(source);

function parseJwks(text: string, where: string): { keys: unknown[] } {
  const parsed = parseBoundedJson(text);
  if (!parsed.ok) throw new JwksSourceError('unavailable', `${where} is not JSON`);
  const keys = (parsed.value as { keys?: unknown } | null)?.keys;
  if (typeof parsed.value !== 'object' || parsed.value === null || !Array.isArray(keys)) {
    throw new JwksSourceError('unavailable', `${where} is not a JWKS (no keys array)`);
  }
  return parsed.value as { keys: unknown[] };
}

async function fromFile(path: string, maxBytes: number): Promise<{ keys: unknown[] }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (e) {
    throw new JwksSourceError('usage', `--jwks: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new JwksSourceError('usage', `--jwks: ${path} is not a file`);
    if (st.size > maxBytes) throw new JwksSourceError('unavailable', `${path} is larger than ${maxBytes} bytes`);
    let text;
    try {
      text = await handle.readFile('utf8');
    } catch (e) {
      throw new JwksSourceError('usage', `--jwks: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    return parseJwks(text, path);
  } finally {
    await handle.close();
  }
}

async function fromUrl(start: URL, maxBytes: number, timeoutMs: number): Promise<{ keys: unknown[] }> {
  const signal = AbortSignal.timeout(timeoutMs);
  const dispatcher = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  let url = start;
  try {
    for (let hop = 0; ; hop++) {
      const res = await request(url, { method: 'GET', signal, dispatcher, headers: { accept: 'application/jwk-set+json, application/json' } });
      if (res.statusCode >= 300 && res.statusCode < 400) {
        res.body.on('error', () => undefined);
        res.body.destroy();
        const location = res.headers.location;
        const next = typeof location === 'string' ? URL.parse(location, url.href) : null;
        if (!next) throw new JwksSourceError('unavailable', `${url.origin} answered a redirect (HTTP ${res.statusCode}) without a usable Location`);
        if (next.origin !== start.origin) throw new JwksSourceError('unavailable', `redirect to another origin (${next.origin}) refused`);
        if (hop >= MAX_REDIRECTS) throw new JwksSourceError('unavailable', `more than ${MAX_REDIRECTS} redirects`);
        url = next;
        continue;
      }
      if (res.statusCode !== 200) {
        res.body.on('error', () => undefined);
        res.body.destroy();
        throw new JwksSourceError('unavailable', `${url.href} answered HTTP ${res.statusCode}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          res.body.on('error', () => undefined);
          res.body.destroy();
          throw new JwksSourceError('unavailable', `${url.href}: body larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return parseJwks(Buffer.concat(chunks).toString('utf8'), url.href);
    }
  } catch (e) {
    if (e instanceof JwksSourceError) throw e;
    if (signal.aborted) throw new JwksSourceError('unavailable', `fetch of ${url.origin} timed out after ${timeoutMs} ms`);
    throw new JwksSourceError('unavailable', `fetch of ${url.origin} failed (${(e as { code?: string }).code ?? (e as Error).message})`);
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
}

/** The JWKS at a URL or in a file (see the file comment). Throws `JwksSourceError`. */
export async function loadJwks(source: string, opts: JwksSourceOptions = {}): Promise<{ keys: unknown[] }> {
  const maxBytes = opts.maxBytes ?? MAX_JWKS_BYTES;
  if (!looksLikeUrl(source)) return fromFile(source, maxBytes);
  const url = URL.parse(source);
  if (!url) throw new JwksSourceError('usage', '--jwks: not a valid URL');
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new JwksSourceError('usage', `--jwks: ${url.protocol} URLs are not supported (http or https only)`);
  if (url.username || url.password) throw new JwksSourceError('usage', '--jwks: credentials in the URL are not supported');
  return fromUrl(url, maxBytes, opts.timeoutMs ?? DEFAULT_JWKS_TIMEOUT_MS);
}
