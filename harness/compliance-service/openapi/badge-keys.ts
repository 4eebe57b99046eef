/** Descriptions of the badge-token key routes (routes/badge-keys.ts). */
import { error } from './common.js';
import { json, type OperationGroup } from './types.js';

export const badgeKeyDocs: OperationGroup = {
  operations: [
    {
      method: 'GET',
      path: '/api/.well-known/jwks.json',
      operationId: 'getBadgeJwks',
      tags: ['Badges'],
      description: 'Public Ed25519 keys (kty OKP, crv Ed25519, alg EdDSA, use sig); a retired key stays until every token it signed has expired.',
      responses: {
        '200': json('A JWK set.', {
          type: 'object',
          required: ['keys'],
          additionalProperties: false,
          properties: {
            keys: {
              type: 'array',
              items: {
                type: 'object',
                required: ['kty', 'crv', 'x', 'kid', 'alg', 'use'],
                additionalProperties: false,
                properties: {
                  kty: { const: 'OKP' },
                  crv: { const: 'Ed25519' },
                  x: { type: 'string' },
                  kid: { type: 'string' },
                  alg: { const: 'EdDSA' },
                  use: { const: 'sig' },
                },
              },
            },
          },
        }),
        '503': error('The service signs no badge tokens.'),
      },
    },
    {
      method: 'POST',
      path: '/api/registry/badge-keys/rotate',
      operationId: 'rotateBadgeKey',
      tags: ['Badges'],
      description: 'A new current signing key; the retired one stays in the JWKS until its tokens have expired.',
      responses: {
        '200': json('The new and the retired key.', {
          type: 'object',
          required: ['kid', 'retired_kid', 'retired_published_until'],
          additionalProperties: false,
          properties: { kid: { type: 'string' }, retired_kid: { type: 'string' }, retired_published_until: { type: ['string', 'null'] } },
        }),
        '503': error('The service signs no badge tokens.'),
      },
    },
  ],
};
