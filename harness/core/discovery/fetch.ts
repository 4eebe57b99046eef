/**
 * Discovery files (adagents.json, brand.json, a key set) are fetched from third-party domains:
 * through the SSRF-safe fetcher (the run's address policy, https only off loopback, no
 * redirects, a timeout) under a byte cap, then parsed with the nesting bound. Never throws: a
 * file that cannot be had is a failure with a kind and one clear line.
 */
import type { AddressPolicy } from '../net/address-policy.js';
import { createSafeFetcher, SafeFetchError, type SafeFetchErrorKind } from '../net/safe-fetch.js';
import { parseBoundedJson, tooDeepMessage } from '../transport/bounded-json.js';

/** Largest discovery file read (the spec states none; a publisher file listing many agents stays far below). */
export const MAX_DISCOVERY_BYTES = 1024 * 1024;

export type DiscoveryFetch =
  | { ok: true; url: string; status: number; contentType: string; bytes: number; value: unknown }
  | { ok: false; url: string; kind: SafeFetchErrorKind | 'json' | 'too_deep'; message: string };

export interface DiscoveryFetchOptions {
  policy?: AddressPolicy;
  /** A local test server: http and loopback allowed (never other reserved ranges). */
  allowInsecureLoopback?: boolean;
  maxBytes?: number;
  totalTimeoutMs?: number;
}

export async function fetchDiscoveryJson(url: string, o: DiscoveryFetchOptions = {}): Promise<DiscoveryFetch> {
  const maxBytes = o.maxBytes ?? MAX_DISCOVERY_BYTES;
  const fetcher = createSafeFetcher({
    policy: o.policy,
    allowInsecureLoopback: o.allowInsecureLoopback,
    ...(o.totalTimeoutMs ? { totalTimeoutMs: o.totalTimeoutMs } : {}),
  });
  let doc;
  try {
    doc = await fetcher(url, { maxBytes });
  } catch (e) {
    if (e instanceof SafeFetchError) return { ok: false, url, kind: e.kind, message: `${url}: ${e.message}` };
    return { ok: false, url, kind: 'network', message: `${url}: ${(e as Error).message}` };
  }
  const text = doc.body.toString('utf8');
  const parsed = parseBoundedJson(text);
  if (!parsed.ok) {
    if (parsed.tooDeep) return { ok: false, url, kind: 'too_deep', message: `${url}: ${tooDeepMessage('the file')}` };
    let why = 'not JSON';
    try {
      JSON.parse(text);
    } catch (e) {
      why = `not JSON (${(e as Error).message.slice(0, 200)})`;
    }
    return { ok: false, url, kind: 'json', message: `${url}: ${why}; ${doc.body.length} bytes read` };
  }
  const type = doc.headers['content-type'];
  return { ok: true, url, status: doc.status, contentType: Array.isArray(type) ? (type[0] ?? '') : (type ?? ''), bytes: doc.body.length, value: parsed.value };
}
