/** Descriptions of the verification and badge routes (routes/badges.ts). */
import { ROLES } from '../badges.js';
import { AGENT_URL_PARAM, DATE_TIME, error } from './common.js';
import { json, type OperationDoc, type OperationGroup, type ParameterDoc, ref, type ResponseDoc } from './types.js';

const ROLE_PARAM: ParameterDoc = { name: 'role', in: 'path', required: true, description: `One of ${ROLES.join(', ')}.`, schema: { type: 'string' } };
const VERSION_PARAM: ParameterDoc = {
  name: 'version',
  in: 'path',
  required: true,
  description: 'A protocol version, MAJOR.MINOR (e.g. 3.1).',
  schema: { type: 'string' },
};
const INVALID: ResponseDoc = json('An unknown role (`code: invalid_role`) or a version that is not MAJOR.MINOR (`code: invalid_version`).', {
  anyOf: [ref('InvalidRoleError'), { allOf: [ref('Error'), { type: 'object', required: ['code'], properties: { code: { const: 'invalid_version' } } }] }],
});
const SVG: ResponseDoc = {
  description: 'A flat SVG badge: `verified 3.1`, `degraded 3.1` or `not verified`.',
  content: { 'image/svg+xml': { schema: { type: 'string' } } },
};
const EMBED: ResponseDoc = json('What to paste to show the badge.', ref('BadgeEmbed'));

const svgOp = (path: string, operationId: string, params: ParameterDoc[]): OperationDoc => ({
  method: 'GET',
  path,
  operationId,
  tags: ['Badges'],
  parameters: [AGENT_URL_PARAM, ...params],
  responses: { '200': SVG, '400': INVALID },
});
const embedOp = (path: string, operationId: string, params: ParameterDoc[]): OperationDoc => ({
  method: 'GET',
  path,
  operationId,
  tags: ['Badges'],
  parameters: [AGENT_URL_PARAM, ...params],
  responses: { '200': EMBED, '400': INVALID },
});

const base = '/api/registry/agents/{encodedUrl}';

export const badgeDocs: OperationGroup = {
  operations: [
    {
      method: 'GET',
      path: `${base}/verification`,
      operationId: 'getAgentVerification',
      tags: ['Badges'],
      description:
        'The badges the agent holds (active while it passes, degraded for the grace period after it stops; revoked badges are not listed), each with its EdDSA-signed token when the service signs.',
      parameters: [AGENT_URL_PARAM],
      responses: { '200': json("The agent's verification.", ref('Verification')), '503': error('The service cannot sign badge tokens right now.') },
    },
    svgOp(`${base}/badge/{role}.svg`, 'getAgentRoleBadge', [ROLE_PARAM]),
    svgOp(`${base}/badge/{role}/{version}.svg`, 'getAgentRoleBadgeForVersion', [ROLE_PARAM, VERSION_PARAM]),
    embedOp(`${base}/badge/{role}/embed`, 'getAgentRoleBadgeEmbed', [ROLE_PARAM]),
    embedOp(`${base}/badge/{role}/{version}/embed`, 'getAgentRoleBadgeEmbedForVersion', [ROLE_PARAM, VERSION_PARAM]),
  ],
  schemas: {
    VerificationBadge: {
      type: 'object',
      required: ['role', 'proto_version', 'verified_at', 'verified_specialisms', 'verification_modes', 'verified_protocol_version', 'status', 'badge_url'],
      additionalProperties: false,
      properties: {
        role: { type: 'string', enum: [...ROLES] },
        proto_version: { type: 'string', description: 'The protocol line judged, e.g. 3.1.' },
        verified_at: DATE_TIME,
        verified_specialisms: { type: 'array', items: { type: 'string' } },
        verification_modes: { type: 'array', minItems: 1, items: { type: 'string', enum: ['spec', 'live'] } },
        verified_protocol_version: { type: 'string', description: 'The concrete version tested.' },
        status: { type: 'string', enum: ['active', 'degraded'] },
        badge_url: { type: 'string', format: 'uri' },
        token: { type: 'string', description: 'A compact JWS (EdDSA) verifiable with the keys at /api/.well-known/jwks.json.' },
      },
    },
    Verification: {
      type: 'object',
      required: ['agent_url', 'verified', 'badges', 'registry_url'],
      additionalProperties: false,
      properties: {
        agent_url: { type: 'string' },
        verified: { type: 'boolean' },
        badges: { type: 'array', items: ref('VerificationBadge') },
        registry_url: { type: 'string', format: 'uri' },
      },
    },
    BadgeEmbed: {
      type: 'object',
      required: ['agent_url', 'role', 'verified', 'badge_svg_url', 'registry_url', 'html', 'markdown'],
      additionalProperties: false,
      properties: {
        agent_url: { type: 'string' },
        role: { type: 'string', enum: [...ROLES] },
        verified: { type: 'boolean' },
        proto_version: { type: 'string' },
        state: { type: 'string', enum: ['active', 'degraded'] },
        badge_svg_url: { type: 'string', format: 'uri' },
        registry_url: { type: 'string', format: 'uri' },
        html: { type: 'string' },
        markdown: { type: 'string' },
      },
    },
  },
};
