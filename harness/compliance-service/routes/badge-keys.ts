/**
 * The badge-token keys (badge-tokens/, badge-signing.ts):
 *
 *   GET  /api/.well-known/jwks.json          {keys[]}: the public keys of every token still valid (digest 6.3)
 *   POST /api/registry/badge-keys/rotate     operator only: a new signing key; the old one stays published until its tokens expire
 *
 * A service without a key set answers 503 to both.
 */
import { requireKey } from '../http/callers.js';
import { HttpError, send } from '../http/respond.js';
import type { Route } from '../http/router.js';
import type { ServiceContext } from './context.js';

export function badgeKeyRoutes(s: ServiceContext): Route[] {
  const keys = () => {
    if (!s.badgeKeys) throw new HttpError(503, 'this service signs no badge tokens (it was started without a badge key set)');
    return s.badgeKeys;
  };
  return [
    {
      method: 'GET',
      path: '/api/.well-known/jwks.json',
      access: 'public',
      summary: 'The public keys that verify badge tokens',
      handle: ({ res }) => send(res, 200, keys().jwks(new Date(s.now())), { 'cache-control': 'public, max-age=300' }),
    },
    {
      method: 'POST',
      path: '/api/registry/badge-keys/rotate',
      access: 'operator',
      summary: 'Rotate the badge signing key',
      handle: async ({ res, caller }) => {
        requireKey(caller);
        if (caller.kind !== 'operator') throw new HttpError(403, "only the registry's operator may rotate the badge key");
        const set = keys();
        const r = await set.rotate(new Date(s.now()));
        send(res, 200, { kid: r.kid, retired_kid: r.retired.kid, retired_published_until: r.retired.publish_until ?? null });
      },
    },
  ];
}
