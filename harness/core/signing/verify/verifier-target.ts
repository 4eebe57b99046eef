/**
 * Step 10's target checks for the verifier: the canonical `@target-uri` / `@authority` of the
 * received URL, and agreement of `:authority` / `Host` with it. Canonicalization is a pure
 * function of its input and a receiver sees the same few URLs and hosts, so results (including
 * errors) are memoized in small bounded maps.
 */
import { canonicalizeAuthority, canonicalizeTargetUri, TargetUriError, type CanonicalTarget } from '../parse/target-uri.js';

const CACHE_MAX = 512;
const targetCache = new Map<string, CanonicalTarget | TargetUriError>();
/** scheme → received authority text → canonical `host[:port]` or the error. */
const authorityCache = new Map<string, Map<string, string | TargetUriError>>();

/** The canonical target of a received URL, or the TargetUriError it raises. */
export function canonicalTarget(url: string): CanonicalTarget | TargetUriError {
  if (url === lastUrl) return lastTarget!;
  let t = targetCache.get(url);
  if (t !== undefined) return remember(url, t);
  try {
    t = canonicalizeTargetUri(url);
  } catch (err) {
    if (!(err instanceof TargetUriError)) throw err;
    t = err;
  }
  if (targetCache.size >= CACHE_MAX) targetCache.clear();
  targetCache.set(url, t);
  return remember(url, t);
}

/** The last URL and its target: consecutive requests mostly go to the same endpoint. */
let lastUrl: string | undefined;
let lastTarget: CanonicalTarget | TargetUriError | undefined;

function remember(url: string, t: CanonicalTarget | TargetUriError): CanonicalTarget | TargetUriError {
  lastUrl = url;
  lastTarget = t;
  return t;
}

/** The TargetUriError side of `canonicalTarget` (a property check, cheaper than instanceof). */
export function isTargetError(t: CanonicalTarget | TargetUriError): t is TargetUriError {
  return typeof (t as CanonicalTarget).targetUri !== 'string';
}

function canonicalAuthority(value: string, scheme: string): string | TargetUriError {
  let byValue = authorityCache.get(scheme);
  if (byValue === undefined) {
    byValue = new Map();
    authorityCache.set(scheme, byValue);
  }
  let a = byValue.get(value);
  if (a !== undefined) return a;
  try {
    a = canonicalizeAuthority(value, scheme);
  } catch (err) {
    if (!(err instanceof TargetUriError)) throw err;
    a = err;
  }
  if (byValue.size >= CACHE_MAX) byValue.clear();
  byValue.set(value, a);
  return a;
}

function authorityProblem(value: string, target: CanonicalTarget): string | undefined {
  // The usual Host is the canonical authority itself, and canonicalization is idempotent.
  if (value === target.authority) return undefined;
  const canonical = canonicalAuthority(value, target.scheme);
  if (canonical instanceof TargetUriError) return `authority ${JSON.stringify(value)}: ${canonical.message}`;
  if (canonical !== target.authority) {
    return `authority ${JSON.stringify(canonical)} does not match the target URI authority ${JSON.stringify(target.authority)}`;
  }
  return undefined;
}

/**
 * `:authority` (HTTP/2) and `Host` must each canonicalize to the target URI's authority; a
 * repeated Host is malformed. Returns the problem, or undefined.
 */
export function checkAuthority(authority: string | undefined, host: string | readonly string[] | undefined, target: CanonicalTarget): string | undefined {
  if (Array.isArray(host) && host.length !== 1) return 'Host header is repeated';
  if (authority !== undefined) {
    const problem = authorityProblem(authority, target);
    if (problem !== undefined) return problem;
  }
  if (host !== undefined) return authorityProblem(typeof host === 'string' ? host : host.join(', '), target);
  return undefined;
}
