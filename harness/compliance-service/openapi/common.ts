/**
 * What every route group shares: the `{error}` bodies (digest 6.3: errors are `{error}`, some with
 * extra members), the `{encodedUrl}` path parameter, query integers, and the statuses we use.
 */
import type { OperationGroup, ParameterDoc, ResponseDoc, Schema } from './types.js';
import { json, ref } from './types.js';

/** Registry status (digest 6.3) and the values our records use. */
export const REGISTRY_STATUS: Schema = { type: 'string', enum: ['passing', 'degraded', 'failing', 'unknown'] };
export const LIFECYCLE_STAGE: Schema = { type: 'string', enum: ['development', 'testing', 'production', 'deprecated'] };
export const TRACK_STATUS: Schema = { type: 'string', enum: ['pass', 'fail', 'partial', 'skip', 'silent'] };
export const DATE_TIME: Schema = { type: 'string', format: 'date-time' };
export const COUNT: Schema = { type: 'integer', minimum: 0 };

export const commonSchemas: NonNullable<OperationGroup['schemas']> = {
  Error: {
    type: 'object',
    description: 'Every reply other than a success: `{error}` (digest 6.3), sometimes with more members.',
    required: ['error'],
    properties: { error: { type: 'string', description: 'What went wrong, for a person to read.' } },
  },
  RateLimitedError: {
    description: 'A refresh over its rate limit: when to try again, in seconds (also in `Retry-After`).',
    allOf: [ref('Error'), { type: 'object', required: ['retry_after'], properties: { retry_after: { type: 'integer', minimum: 1 } } }],
  },
  MembersOnlyError: {
    description: 'A members-only read without a member or operator key.',
    allOf: [ref('Error'), { type: 'object', required: ['members_only'], properties: { members_only: { const: true } } }],
  },
  InvalidRoleError: {
    description: 'A badge role that is not one of the roles (digest 6.3).',
    allOf: [
      ref('Error'),
      {
        type: 'object',
        required: ['code', 'valid_roles'],
        properties: {
          code: { const: 'invalid_role' },
          message: { type: 'string' },
          valid_roles: { type: 'array', items: { type: 'string' } },
        },
      },
    ],
  },
};

/** An `{error}` reply. */
export const error = (description: string): ResponseDoc => json(description, ref('Error'));

export const CHALLENGE_HEADER: ResponseDoc['headers'] = {
  'WWW-Authenticate': { description: '`Bearer realm="proto-comply registry"`', schema: { type: 'string' } },
};

export const RATE_LIMITED: ResponseDoc = json('Over a refresh rate limit (one per agent per 60 s, 30 per caller per hour).', ref('RateLimitedError'), {
  'Retry-After': { description: 'Seconds to wait, as `retry_after`.', schema: { type: 'integer', minimum: 1 } },
});

export const MEMBERS_ONLY: ResponseDoc = json('No member or operator key was given: `{error, members_only: true}`.', ref('MembersOnlyError'));

export const AGENT_URL_PARAM: ParameterDoc = {
  name: 'encodedUrl',
  in: 'path',
  required: true,
  description: "The agent's URL, URL-encoded (`encodeURIComponent`), as registered or as the registry stores it (the WHATWG serialization, without fragment).",
  schema: { type: 'string', minLength: 1 },
};

/** What `intParam` (http/respond.ts) reads: at most 9 digits. */
const MAX_QUERY_INT = 999_999_999;

/**
 * A non-negative integer query parameter read by `intParam`: absent → `dflt`; above `max` it is
 * taken as `max`; anything but at most 9 digits → 400.
 */
export const intQuery = (name: string, description: string, dflt: number, max: number): ParameterDoc => ({
  name,
  in: 'query',
  required: false,
  description: `${description}${max < MAX_QUERY_INT ? ` A larger value is taken as ${max};` : ''} anything but a non-negative integer (at most 9 digits) is a 400.`,
  schema: { type: 'integer', minimum: 0, maximum: Math.min(max, MAX_QUERY_INT), default: dflt },
});
