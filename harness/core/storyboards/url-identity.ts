/**
 * A URL compared by identity (refs_resolve scope keys, the RFC 9728 `resource`): scheme and host
 * lower-cased and the default port dropped (WHATWG serialization), userinfo and fragment dropped,
 * trailing slashes of the path collapsed, the path itself case-sensitive. `query: true` keeps the
 * query. Undefined for a string that is not a URL.
 */
export function urlIdentity(url: string, opts: { query?: boolean } = {}): string | undefined {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${opts.query ? u.search : ''}`;
  } catch {
    return undefined;
  }
}
