/** The manual refresh route's description (routes/refresh.ts): digest 6.3's refresh response and its rate limits. */
import { AGENT_URL_PARAM, COUNT, DATE_TIME, error, RATE_LIMITED } from './common.js';
import { json, type OperationGroup, ref } from './types.js';

export const refreshDocs: OperationGroup = {
  schemas: {
    RefreshResult: {
      type: 'object',
      description: "What the probe found (digest 6.3's refresh response), and the compliance run it recorded (in the history as `triggered_by: refresh`).",
      required: ['online', 'tools_count', 'response_time_ms', 'inferred_type', 'type_promoted', 'oauth_required', 'checked_at', 'compliance'],
      properties: {
        online: { type: 'boolean' },
        tools_count: COUNT,
        response_time_ms: COUNT,
        inferred_type: { type: 'string', examples: ['sales'] },
        type_promoted: { type: 'boolean' },
        oauth_required: { type: 'boolean' },
        checked_at: DATE_TIME,
        error: { type: 'string', description: 'Why the agent could not be reached or tested.' },
        compliance: {
          type: 'object',
          required: ['ran'],
          properties: {
            ran: { type: 'boolean' },
            run_id: { type: 'string' },
            test_session_id: { type: 'string' },
            requested_compliance_target: { type: 'string' },
            proto_version: { type: 'string' },
            badge_eligible: { type: 'boolean' },
            badge_eligible_proto_versions: { type: 'array', items: { type: 'string' } },
            overall_status: { type: 'string', enum: ['passing', 'failing', 'partial', 'unknown'] },
            storyboards_passing: COUNT,
            storyboards_total: COUNT,
            observations_count: COUNT,
            notices_count: COUNT,
            error: { type: 'string' },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
  },
  operations: [
    {
      method: 'POST',
      path: '/api/registry/agents/{encodedUrl}/refresh',
      operationId: 'refreshAgent',
      tags: ['Compliance'],
      description:
        'Probes the agent now and answers when the probe is done. One refresh per agent per 60 s and 30 per caller per hour (counted in the store, across every process serving the API).',
      parameters: [AGENT_URL_PARAM],
      responses: {
        '200': json('The probe and its run.', ref('RefreshResult')),
        '409': error('Monitoring is paused, the agent is opted out, or a probe of it is already running.'),
        '429': RATE_LIMITED,
        '503': error('This service does not probe agents itself.'),
      },
    },
  ],
};
