/** The owner's settings routes' descriptions (routes/owner-settings.ts): monitoring, lifecycle stage, opting out. */
import { MAX_INTERVAL_HOURS, MIN_INTERVAL_HOURS } from '../routes/owner-settings.js';
import { AGENT_URL_PARAM, error, LIFECYCLE_STAGE } from './common.js';
import { json, jsonBody, type OperationGroup, ref, type Schema } from './types.js';

const BODY_400 =
  'The body is not a JSON object, lacks its one field, has another field, its value is not allowed, or the agent URL is not URL-encoded correctly.';
const BODY_ERRORS = { '400': error(BODY_400), '413': error('The body is larger than 64 KiB.'), '415': error('The body is not `application/json`.') };
const only = (name: string, schema: Schema): Schema => ({ type: 'object', required: [name], properties: { [name]: schema }, additionalProperties: false });

export const ownerSettingsDocs: OperationGroup = {
  schemas: {
    MonitoringSettings: {
      type: 'object',
      required: ['monitoring_paused', 'check_interval_hours', 'monitoring_paused_at'],
      properties: {
        monitoring_paused: { type: 'boolean' },
        check_interval_hours: { type: 'number', exclusiveMinimum: 0, description: "The agent's own interval, else the service's." },
        monitoring_paused_at: { type: ['string', 'null'], format: 'date-time' },
      },
      additionalProperties: false,
    },
    RegistryMetadata: {
      type: 'object',
      required: ['agent_url', 'lifecycle_stage', 'compliance_opt_out', 'badge_requalification_required', 'monitoring_paused', 'check_interval_hours'],
      properties: {
        agent_url: { type: 'string' },
        lifecycle_stage: { anyOf: [LIFECYCLE_STAGE, { type: 'null' }], description: "The owner's declaration; null: none (the latest run's stage applies)." },
        compliance_opt_out: { type: 'boolean' },
        badge_requalification_required: { type: 'boolean' },
        monitoring_paused: { type: 'boolean' },
        check_interval_hours: { type: 'number', exclusiveMinimum: 0 },
      },
      additionalProperties: false,
    },
  },
  operations: [
    {
      method: 'GET',
      path: '/api/registry/agents/{encodedUrl}/monitoring/settings',
      operationId: 'getMonitoringSettings',
      tags: ['Owner settings'],
      parameters: [AGENT_URL_PARAM],
      responses: { '200': json('The settings.', ref('MonitoringSettings')) },
    },
    {
      method: 'PUT',
      path: '/api/registry/agents/{encodedUrl}/monitoring/pause',
      operationId: 'setMonitoringPaused',
      tags: ['Owner settings'],
      description: 'A paused agent is not probed, requeued or refreshed until resumed; resuming makes it due at once.',
      parameters: [AGENT_URL_PARAM],
      requestBody: jsonBody(only('paused', { type: 'boolean' })),
      responses: { '200': json('The settings after the change.', ref('MonitoringSettings')), ...BODY_ERRORS },
    },
    {
      method: 'PUT',
      path: '/api/registry/agents/{encodedUrl}/monitoring/interval',
      operationId: 'setMonitoringInterval',
      tags: ['Owner settings'],
      parameters: [AGENT_URL_PARAM],
      requestBody: jsonBody(only('interval_hours', { type: 'integer', minimum: MIN_INTERVAL_HOURS, maximum: MAX_INTERVAL_HOURS })),
      responses: { '200': json('The settings after the change.', ref('MonitoringSettings')), ...BODY_ERRORS },
    },
    {
      method: 'POST',
      path: '/api/registry/agents/{encodedUrl}/monitoring/requeue',
      operationId: 'requeueAgent',
      tags: ['Owner settings'],
      parameters: [AGENT_URL_PARAM],
      responses: {
        '200': json('Whether it was requeued.', {
          type: 'object',
          required: ['requeued'],
          properties: { requeued: { type: 'boolean' } },
          additionalProperties: false,
        }),
        '409': error('Monitoring is paused, or the agent is opted out.'),
      },
    },
    {
      method: 'PUT',
      path: '/api/registry/agents/{encodedUrl}/lifecycle',
      operationId: 'setAgentLifecycleStage',
      tags: ['Owner settings'],
      parameters: [AGENT_URL_PARAM],
      requestBody: jsonBody(only('lifecycle_stage', LIFECYCLE_STAGE)),
      responses: { '200': json("The agent's registry metadata.", ref('RegistryMetadata')), ...BODY_ERRORS },
    },
    {
      method: 'PUT',
      path: '/api/registry/agents/{encodedUrl}/compliance/opt-out',
      operationId: 'setAgentComplianceOptOut',
      tags: ['Owner settings'],
      description:
        'An opted-out agent is not probed, its badges are revoked at once and its compliance detail is the minimal response; opting back in makes it due at once, and `badge_requalification_required` stays true until a run passes.',
      parameters: [AGENT_URL_PARAM],
      requestBody: jsonBody(only('opt_out', { type: 'boolean' })),
      responses: { '200': json("The agent's registry metadata.", ref('RegistryMetadata')), ...BODY_ERRORS },
    },
  ],
};
