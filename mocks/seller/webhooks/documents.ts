/**
 * The seller's published identity documents: `/.well-known/brand.json` (interface spec 2.3,
 * 5.1: `agents[]` entries with `jwks_uri`) and the JWKS it points to. Buyers resolve the
 * webhook signing `keyid` through these (digest 1.11).
 */
import { type Route, sendJson } from '../http/server.js';
import type { SellerWebhookKeys } from './keys.js';

export const BRAND_JSON_PATH = '/.well-known/brand.json';
export const JWKS_PATH = '/.well-known/jwks.json';

export interface SellerIdentity {
  baseUrl: string;
  mcpUrl: string;
  a2aUrl: string;
  name: string;
}

export function brandDeclaration(identity: SellerIdentity): Record<string, unknown> {
  const jwksUri = `${identity.baseUrl}${JWKS_PATH}`;
  return {
    house: { domain: new URL(identity.baseUrl).hostname, name: identity.name },
    brands: [],
    // One entry per endpoint URL, so a verifier matching `agents[].url` byte for byte finds either.
    agents: [
      { url: identity.mcpUrl, type: 'sales', protocol: 'mcp', jwks_uri: jwksUri },
      { url: identity.a2aUrl, type: 'sales', protocol: 'a2a', jwks_uri: jwksUri },
    ],
  };
}

export function identityRoutes(identity: SellerIdentity, keys: SellerWebhookKeys): Route[] {
  const brand = brandDeclaration(identity);
  const cache = { 'cache-control': 'max-age=300' };
  return [
    { path: BRAND_JSON_PATH, methods: ['GET'], handle: async (ctx) => sendJson(ctx.res, 200, brand, cache) },
    { path: JWKS_PATH, methods: ['GET'], handle: async (ctx) => sendJson(ctx.res, 200, keys.jwks, cache) },
  ];
}
