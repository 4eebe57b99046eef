/**
 * How the OAuth metadata graph (oauth-graph-walk.ts) fetches one URL: a credential-free GET through
 * the SSRF-safe fetcher (net/safe-fetch.ts) under the run's address policy, with counterparty
 * documents' rules (reserved addresses refused unless the run allow-lists them; http and loopback
 * only when the agent and the URL's host are both on loopback), 5 s to connect, 10 s in all, a
 * byte cap, and never a redirect followed here (the walk validates each hop itself). A refusal
 * says whether the refused address is on a local network (loopback, private, unique-local, CGNAT)
 * or one that is nobody's to advertise (link-local and cloud metadata, unspecified, multicast,
 * documentation, benchmarking, reserved).
 */
import { AddressPolicy } from '../net/address-policy.js';
import { classifyAddress } from '../net/address-ranges.js';
import { createSafeFetcher, SafeFetchError } from '../net/safe-fetch.js';
import { isLoopbackName } from './oauth-graph-rules.js';

export type GraphReply =
  | { kind: 'response'; status: number; headers: Readonly<Record<string, string>>; body: Buffer }
  /** The fetch policy refused it before anything was sent; `local`: a local-network address. */
  | { kind: 'refused'; why: string; local: boolean }
  | { kind: 'too_large'; why: string }
  /** DNS, connection, timeout: the URL did not answer. */
  | { kind: 'failed'; why: string };

/** One GET of the graph (injectable: the tests and a vector corpus answer from a map). */
export type GraphFetch = (url: string, o: { maxBytes: number }) => Promise<GraphReply>;

const LOCAL_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

/** True when a reserved address is on a local network (an embedded IPv4 address judged by its own range). */
export function isLocalRange(address: string): boolean {
  const c = classifyAddress(address);
  return LOCAL_RANGES.has(c.range) || (c.embedded !== undefined && LOCAL_RANGES.has(c.embedded.range));
}

/** Whether every address a host resolves to is public; false when it cannot be resolved. */
export async function isPublicHost(host: string, policy: AddressPolicy = new AddressPolicy()): Promise<boolean> {
  try {
    const addresses = await policy.resolver.resolve(host);
    return addresses.every((a) => !classifyAddress(a.address).reserved);
  } catch {
    return false;
  }
}

function headersOf(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The real fetch, for an agent at `agentUrl` and the run's address policy. */
export function safeGraphFetch(agentUrl: string, policy: AddressPolicy = new AddressPolicy()): GraphFetch {
  const agentOnLoopback = isLoopbackName(new URL(agentUrl).hostname);
  return async (url, { maxBytes }) => {
    const host = new URL(url).hostname;
    const fetcher = createSafeFetcher({
      policy,
      allowInsecureLoopback: agentOnLoopback && isLoopbackName(host),
      connectTimeoutMs: 5_000,
      totalTimeoutMs: 10_000,
    });
    try {
      const got = await fetcher(url, { maxBytes, anyStatus: true });
      return { kind: 'response', status: got.status, headers: headersOf(got.headers), body: got.body };
    } catch (e) {
      if (!(e instanceof SafeFetchError)) return { kind: 'failed', why: (e as Error).message };
      if (e.kind === 'too_large') return { kind: 'too_large', why: e.message };
      if (e.kind === 'scheme' || e.kind === 'url') return { kind: 'refused', why: e.message, local: false };
      if (e.kind === 'address') return { kind: 'refused', why: e.message, local: await refusedLocally(host, policy) };
      return { kind: 'failed', why: e.message };
    }
  };
}

/** True when every reserved address the host resolves to is on a local network. */
async function refusedLocally(host: string, policy: AddressPolicy): Promise<boolean> {
  try {
    const reserved = (await policy.resolver.resolve(host)).filter((a) => classifyAddress(a.address).reserved);
    return reserved.length > 0 && reserved.every((a) => isLocalRange(a.address));
  } catch {
    return false;
  }
}
