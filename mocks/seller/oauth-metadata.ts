/**
 * The seller's public OAuth discovery graph, served with the `oauth` option (MockSellerOptions):
 * the RFC 9728 protected-resource metadata of each endpoint (`/.well-known/oauth-protected-resource/mcp`
 * and `/a2a`), naming one authorization server on the seller's origin, `<base>/oauth`, whose RFC
 * 8414 metadata (`/.well-known/oauth-authorization-server/oauth`) is a client-credentials server
 * (no authorization endpoint, no response types) with a token endpoint and a JWKS. Nothing here
 * issues a token: the graph is what the 3.2 oauth-setup storyboard grades, and the capability
 * declares `oauth.supported: true` with it.
 *
 * `issuer-mismatch` breaks exactly one rule of it (RFC 8414 section 3.3, the 3.2 runner contract's
 * `oauth_issuer_mismatch`): the metadata's `issuer` carries a trailing slash the issuer named in
 * `authorization_servers` does not, equal only under URL normalization, which the rule forbids.
 */
import { type Route, sendJson } from './http/server.js';

import type { MockOAuthGraph } from './options.js';

export type { MockOAuthGraph };

export const OAUTH_ISSUER_PATH = '/oauth';

export function oauthRoutes(baseUrl: string, endpoints: Readonly<Record<string, string>>, mode: MockOAuthGraph): Route[] {
  const issuer = `${baseUrl}${OAUTH_ISSUER_PATH}`;
  const protectedResource = (resource: string) => ({ resource, authorization_servers: [issuer], bearer_methods_supported: ['header'] });
  const metadata = {
    issuer: mode === 'issuer-mismatch' ? `${issuer}/` : issuer,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
  };
  return [
    ...Object.entries(endpoints).map(
      ([path, resource]): Route => ({
        path: `/.well-known/oauth-protected-resource${path}`,
        methods: ['GET'],
        handle: async (ctx) => sendJson(ctx.res, 200, protectedResource(resource)),
      }),
    ),
    { path: `/.well-known/oauth-authorization-server${OAUTH_ISSUER_PATH}`, methods: ['GET'], handle: async (ctx) => sendJson(ctx.res, 200, metadata) },
    // The token endpoint takes POST; a GET learns only that it is deployed.
    {
      path: `${OAUTH_ISSUER_PATH}/token`,
      methods: ['GET', 'POST'],
      handle: async (ctx) =>
        sendJson(
          ctx.res,
          ctx.req.method === 'GET' ? 405 : 400,
          { error: ctx.req.method === 'GET' ? 'method_not_allowed' : 'unsupported_grant_type' },
          { allow: 'POST' },
        ),
    },
    { path: `${OAUTH_ISSUER_PATH}/jwks`, methods: ['GET'], handle: async (ctx) => sendJson(ctx.res, 200, { keys: [] }) },
  ];
}
