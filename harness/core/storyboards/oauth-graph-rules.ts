/**
 * The rules the `oauth_metadata_graph` validation applies to the documents it follows (the 3.2
 * oauth-setup runner contract, profile `adcp/oauth-metadata-graph/v1`): its diagnostic codes in
 * their precedence order, the URL shapes (issuer, endpoint, resource), the RFC 9728 resource
 * comparison, the RFC 8414 required and conditional members, what a passive endpoint probe must
 * answer, and how a URL is shown in any output (its secrets replaced).
 */

/** The contract's diagnostic codes, first to last in precedence. */
export const GRAPH_CODES = [
  'oauth_graph_limit_exceeded',
  'oauth_fetch_blocked',
  'oauth_protected_resource_metadata_unavailable',
  'oauth_protected_resource_metadata_invalid',
  'oauth_resource_mismatch',
  'oauth_authorization_servers_empty',
  'oauth_authorization_server_url_invalid',
  'oauth_authorization_server_metadata_unavailable',
  'oauth_authorization_server_metadata_invalid',
  'oauth_issuer_mismatch',
  'oauth_endpoint_url_invalid',
  'oauth_endpoint_unreachable',
  'oauth_jwks_unavailable',
] as const;
export type GraphCode = (typeof GRAPH_CODES)[number];

/** The contract's fixed graph limits. */
export const GRAPH_LIMITS = {
  authorizationServers: 16,
  uniqueUrls: 64,
  requests: 64,
  bytesPerResponse: 256 * 1024,
  totalBytes: 2 * 1024 * 1024,
  redirects: 3,
  wholeRunMs: 60_000,
} as const;

/**
 * A URL as any output shows it: userinfo and each query value replaced by REDACTED, the fragment
 * dropped. Text that is not a URL is shown as `(not a URL)` when it looks like one with secrets.
 */
export function shownUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return /[@?#]/.test(url) ? '(not a URL)' : url.slice(0, 200);
  }
  if (u.username || u.password) {
    u.username = 'REDACTED';
    u.password = u.password ? 'REDACTED' : '';
  }
  const names = [...new Set(u.searchParams.keys())];
  u.search = names.length > 0 ? names.map((n) => `${encodeURIComponent(n)}=REDACTED`).join('&') : '';
  u.hash = '';
  return u.href;
}

/** Every absolute URL in a text shown as `shownUrl` shows it. */
export const shownText = (text: string) => text.replace(/\bhttps?:\/\/[^\s"'<>,)]+/gi, (m) => shownUrl(m));

/** Plain http is allowed only in the local case: the agent and this URL's host both on loopback. */
export interface UrlScope {
  agentOnLoopback: boolean;
}

function parsed(url: unknown): URL | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

export function isLoopbackName(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

function schemeAllowed(u: URL, scope: UrlScope): boolean {
  return u.protocol === 'https:' || (u.protocol === 'http:' && scope.agentOnLoopback && isLoopbackName(u.hostname));
}

/** An issuer identifier (RFC 8414 section 2): absolute https, no userinfo, query or fragment. */
export function issuerProblem(value: unknown, scope: UrlScope): string | undefined {
  const u = parsed(value);
  if (!u) return 'is not an absolute URL';
  if (!schemeAllowed(u, scope)) return `uses ${u.protocol}, not https`;
  if (u.username || u.password) return 'carries userinfo';
  if ((value as string).includes('?')) return 'carries a query';
  if ((value as string).includes('#')) return 'carries a fragment';
  return undefined;
}

/** An endpoint URL (authorization, token, JWKS, registration): absolute https, no userinfo or fragment. */
export function endpointProblem(value: unknown, scope: UrlScope): string | undefined {
  const u = parsed(value);
  if (!u) return 'is not an absolute URL';
  if (!schemeAllowed(u, scope)) return `uses ${u.protocol}, not https`;
  if (u.username || u.password) return 'carries userinfo';
  if ((value as string).includes('#')) return 'carries a fragment';
  return undefined;
}

/** A redirect target the graph may follow: the endpoint rules (its scheme never downgraded). */
export const redirectProblem = endpointProblem;

/**
 * The resource comparison of the 3.2 contract: scheme and host lower-cased and the default port
 * dropped; the rest of the URL (path, trailing slash, query) compared exactly, as written.
 * Undefined for a string that is not an absolute URL with an authority.
 */
export function resourceKey(url: string): string | undefined {
  const m = /^([A-Za-z][A-Za-z\d+.-]*):\/\/([^/?#]*)([\s\S]*)$/.exec(url);
  if (!m) return undefined;
  const scheme = m[1]!.toLowerCase();
  const authority = m[2]!;
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : '';
  const hostPort = authority.slice(at + 1);
  const hp = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(hostPort);
  if (!hp?.[1]) return undefined;
  const port = hp[2] ?? '';
  const defaultPort = scheme === 'https' ? '443' : scheme === 'http' ? '80' : undefined;
  return `${scheme}://${userinfo}${hp[1].toLowerCase()}${port && port !== defaultPort ? `:${port}` : ''}${m[3]}`;
}

/** What RFC 8414 requires of one authorization server's metadata, or the member that breaks it. */
export type ServerShape = { ok: true; usesAuthorization: boolean; usesToken: boolean } | { ok: false; field: string; problem: string };

const nonEmptyStrings = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && x !== '');

/**
 * RFC 8414 section 2's conditional members: the effective grants are `grant_types_supported`, by
 * default authorization_code and implicit. A grant using the authorization endpoint (or a response
 * type naming `code` or `token`) needs `authorization_endpoint` and a non-empty
 * `response_types_supported`; every grant set but implicit alone needs `token_endpoint`. A
 * token-only server omits `response_types_supported` (RFC 8414 erratum 7793, adopted by 3.2): an
 * empty list is refused wherever it appears.
 */
export function serverShape(doc: Record<string, unknown>): ServerShape {
  const grants = doc.grant_types_supported;
  if (grants !== undefined && !nonEmptyStrings(grants))
    return { ok: false, field: 'grant_types_supported', problem: 'is not a non-empty list of grant type names' };
  const effective = grants ?? ['authorization_code', 'implicit'];
  const types = doc.response_types_supported;
  if (types !== undefined && !nonEmptyStrings(types))
    return { ok: false, field: 'response_types_supported', problem: 'is present but not a non-empty list of response types' };
  const typeUsesAuthorization = (types ?? []).some((t) => t.split(/\s+/).some((p) => p === 'code' || p === 'token'));
  const usesAuthorization = effective.some((g) => g === 'authorization_code' || g === 'implicit') || typeUsesAuthorization;
  const usesToken = !effective.every((g) => g === 'implicit');
  if (usesAuthorization && types === undefined)
    return { ok: false, field: 'response_types_supported', problem: 'is required: a grant uses the authorization endpoint' };
  if (usesAuthorization && typeof doc.authorization_endpoint !== 'string')
    return { ok: false, field: 'authorization_endpoint', problem: 'is required: a grant uses the authorization endpoint' };
  if (usesToken && typeof doc.token_endpoint !== 'string')
    return { ok: false, field: 'token_endpoint', problem: 'is required unless the only grant is implicit' };
  return { ok: true, usesAuthorization, usesToken };
}

/**
 * A passive GET of an endpoint proves it deployed: the authorization endpoint with any 2xx or 3xx
 * or 400, 401, 403, 405, 429 (a parameterless request is commonly refused or sent to a login);
 * the token endpoint with anything below 500 but 410 (it takes POST; the grade sends no grant).
 */
export function endpointAnswered(field: 'authorization_endpoint' | 'token_endpoint', status: number): boolean {
  if (field === 'token_endpoint') return status >= 200 && status < 500 && status !== 410;
  return (status >= 200 && status < 400) || [400, 401, 403, 405, 429].includes(status);
}

/** application/json or a `+json` type. */
export const isJsonType = (type: string | undefined) => typeof type === 'string' && /^\s*(application\/json|[^;\s]+\+json)\s*(;|$)/i.test(type);
