/** The step diagnostics route's description (routes/diagnostics.ts, diagnostics.ts): digest 6.3's ComplianceStepDiagnostic. */
import { AGENT_URL_PARAM, COUNT, DATE_TIME, error, intQuery } from './common.js';
import { DEFAULT_DIAGNOSTICS, MAX_DIAGNOSTICS } from '../diagnostics.js';
import { KEPT_REPORTS } from '../sqlite-store.js';
import { json, type OperationGroup, ref } from './types.js';

/** Parsed JSON when the body was JSON, else the text; null when there was none. */
const ANY_JSON = { description: 'The body parsed when it is JSON, else its text; null without one.' };

export const diagnosticsDocs: OperationGroup = {
  schemas: {
    ComplianceStepDiagnostic: {
      type: 'object',
      description:
        'A check that fails the run (or broke), with the exchange it judged (as redacted in the report). Checks compiled from storyboard steps are named by storyboard, phase, step and task; our own checks by suite (`storyboard_id`) and check id (`step_id`). We add `transport`, `outcome`.',
      required: [
        'id',
        'run_id',
        'agent_url',
        'storyboard_id',
        'phase_id',
        'step_id',
        'task',
        'transport',
        'step_passed',
        'outcome',
        'duration_ms',
        'request_url',
        'request_jsonb',
        'response_status',
        'response_headers_jsonb',
        'response_jsonb',
        'extraction_path',
        'extraction_note',
        'error_text',
        'proto_error_jsonb',
        'failed_validations_jsonb',
        'served_by_agent_url',
        'captured_at',
      ],
      properties: {
        id: { type: 'string', description: '`<run_id>:<n>`' },
        run_id: { type: 'string' },
        agent_url: { type: 'string' },
        storyboard_id: { type: 'string' },
        phase_id: { type: ['string', 'null'] },
        step_id: { type: 'string' },
        task: { type: ['string', 'null'] },
        transport: { type: 'string' },
        step_passed: { const: false },
        outcome: { type: 'string' },
        duration_ms: COUNT,
        request_url: { type: ['string', 'null'] },
        request_jsonb: ANY_JSON,
        response_status: { type: ['integer', 'null'] },
        response_headers_jsonb: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
        response_jsonb: ANY_JSON,
        extraction_path: { type: ['string', 'null'], description: 'The JSON pointer the check looked at.' },
        extraction_note: { type: ['string', 'null'] },
        error_text: { type: ['string', 'null'] },
        proto_error_jsonb: { description: 'The protocol error in the answer (`errors[]` or `error`), else null.' },
        failed_validations_jsonb: { type: 'array', minItems: 1 },
        served_by_agent_url: { type: 'string' },
        captured_at: DATE_TIME,
      },
      additionalProperties: false,
    },
    ComplianceDiagnostics: {
      type: 'object',
      required: ['agent_url', 'run_id', 'count', 'diagnostics'],
      properties: {
        agent_url: { type: 'string' },
        run_id: { type: 'string' },
        count: COUNT,
        diagnostics: { type: 'array', items: ref('ComplianceStepDiagnostic') },
      },
      additionalProperties: false,
    },
  },
  operations: [
    {
      method: 'GET',
      path: '/api/registry/agents/{encodedUrl}/compliance/diagnostics',
      operationId: 'getAgentComplianceDiagnostics',
      tags: ['Compliance'],
      description: `Only the newest ${KEPT_REPORTS} runs keep their full report: an older run's diagnostics are gone (410).`,
      parameters: [
        AGENT_URL_PARAM,
        {
          name: 'run_id',
          in: 'query',
          description: 'The run (default: the latest finished run).',
          schema: { type: 'string', pattern: '^\\d{1,15}$' },
        },
        intQuery('limit', 'At most this many diagnostics.', DEFAULT_DIAGNOSTICS, MAX_DIAGNOSTICS),
      ],
      responses: {
        '200': json("The run's failing steps.", ref('ComplianceDiagnostics')),
        '400': error('`run_id` or `limit` is not a whole number, or the agent URL is not URL-encoded correctly.'),
        '404': error('No such agent, no finished run yet, or no such finished run of the agent.'),
        '410': error('The run is older than the runs whose full reports are kept.'),
      },
    },
  ],
};
