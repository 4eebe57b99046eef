/** Where OAuth discovery documents live: the well-known URL of a protected resource (RFC 9728) and of an authorization server (RFC 8414). */

/** RFC 9728 section 3.1: the well-known segment goes between the host and the resource's path. */
export function protectedResourceUrl(endpoint: string): string {
  const u = new URL(endpoint);
  return `${u.origin}/.well-known/oauth-protected-resource${u.pathname === '/' ? '' : u.pathname.replace(/\/+$/, '')}`;
}

/** RFC 8414 section 3.1: the same insertion for an issuer with a path. */
export function authServerMetadataUrl(issuer: string): string {
  const u = new URL(issuer);
  return `${u.origin}/.well-known/oauth-authorization-server${u.pathname === '/' ? '' : u.pathname.replace(/\/+$/, '')}`;
}
