/** Descriptions of one agent's storyboard operations (routes/storyboards.ts): applicable storyboards, run, step, compare. */
import { AGENT_URL_PARAM, error, RATE_LIMITED } from './common.js';
import { json, type OperationDoc, type OperationGroup, type ParameterDoc, ref } from './types.js';

const SID: ParameterDoc = {
  name: 'sid',
  in: 'path',
  required: true,
  description: "A built-in suite's id, or a bundle storyboard's id on a service given `--storyboards`.",
  schema: { type: 'string' },
};
const STEP: ParameterDoc = {
  name: 'stepId',
  in: 'path',
  required: true,
  description: "A suite's check id or a storyboard step's id, optionally `@mcp` / `@a2a` for one transport.",
  schema: { type: 'string' },
};
const base = '/api/registry/agents/{encodedUrl}';
const UNKNOWN_SB = error('No agent of that URL, or no storyboard (step) of that id.');
const OPTED_OUT = error('The agent is opted out of compliance testing, or a probe of it is already running.');
const NOT_RUNNING = error('This service does not run storyboards itself.');
/** An object with these members (their shapes are described in docs/compliance-service.md), and maybe more. */
const loose = (required: string[], description: string) => ({
  type: 'object',
  ...(description ? { description } : {}),
  required,
  properties: Object.fromEntries(required.map((k) => [k, {}])),
  additionalProperties: true,
});

const post = (
  path: string,
  operationId: string,
  description: string,
  params: ParameterDoc[],
  ok: string,
  extra: OperationDoc['responses'] = {},
): OperationDoc => ({
  method: 'POST',
  path,
  operationId,
  tags: ['Storyboards'],
  description,
  parameters: [AGENT_URL_PARAM, ...params],
  responses: {
    '200': json(ok, ref(`${operationId[0]!.toUpperCase()}${operationId.slice(1)}Result`)),
    '404': UNKNOWN_SB,
    '409': OPTED_OUT,
    '429': RATE_LIMITED,
    '503': NOT_RUNNING,
    ...extra,
  },
});

export const storyboardDocs: OperationGroup = {
  operations: [
    {
      method: 'GET',
      path: `${base}/applicable-storyboards`,
      operationId: 'getApplicableStoryboards',
      tags: ['Storyboards'],
      description:
        "Reads the agent's tasks and capabilities now and lists what a full run would grade, grouped as universal, domain and specialism bundles; nothing is run. Answers are kept 30 s per agent.",
      parameters: [AGENT_URL_PARAM],
      responses: {
        '200': json('What will be graded.', ref('ApplicableStoryboards')),
        '409': json('The agent is opted out: it is not contacted.', { allOf: [ref('Error'), loose(['agent_url', 'status'], '')] }),
        '422': json('The declaration cannot be graded: `error_kind` says why.', {
          allOf: [
            ref('Error'),
            {
              type: 'object',
              required: ['error_kind'],
              properties: {
                error_kind: { enum: ['specialism_parent_protocol_missing', 'unknown_specialism', 'unsupported_proto_version'] },
                needs_auth: { type: 'boolean' },
              },
            },
          ],
        }),
        '500': json('The capabilities could not be read: `reason` says why.', {
          allOf: [
            ref('Error'),
            { type: 'object', required: ['reason'], properties: { reason: { enum: ['network', 'tls', 'timeout', 'protocol', 'unknown'] } } },
          ],
        }),
        '503': NOT_RUNNING,
      },
    },
    post(
      `${base}/storyboard/{sid}/run`,
      'runStoryboard',
      "Runs one storyboard now; recorded in the history as `storyboard_run`, never changing the agent's status or badges.",
      [SID],
      'The run.',
    ),
    {
      ...post(
        `${base}/storyboard/{sid}/step/{stepId}`,
        'runStoryboardStep',
        'One step: by default a dry run that says what would be sent and sends nothing; `dry_run: false` sends it alone (a step that needs earlier steps is refused with 409 and `needs`).',
        [SID, STEP],
        'The step, said or run.',
        { '400': error('A malformed body or path.') },
      ),
      requestBody: {
        required: false,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              properties: { context: { type: 'object' }, dry_run: { type: 'boolean', default: true }, organization_id: { type: 'string' } },
            },
          },
        },
      },
    },
    post(
      `${base}/storyboard/{sid}/compare`,
      'compareStoryboard',
      'The storyboard on the agent and on the reference agent, side by side per step; not recorded.',
      [SID],
      'The comparison.',
    ),
  ],
  schemas: {
    ApplicableStoryboards: {
      type: 'object',
      required: ['agent_url', 'requested_compliance_target', 'proto_version', 'supported_protocols', 'specialisms', 'bundles', 'total_storyboards'],
      properties: {
        agent_url: { type: 'string' },
        requested_compliance_target: { type: 'string' },
        proto_version: { type: 'string' },
        agent_name: { type: ['string', 'null'] },
        supported_protocols: { type: 'array', items: { type: 'string' } },
        specialisms: { type: 'array', items: { type: 'string' } },
        capabilities_probe_error: { type: 'string' },
        needs_auth: { type: 'boolean' },
        bundles: {
          type: 'array',
          items: {
            type: 'object',
            required: ['kind', 'id', 'storyboards'],
            properties: {
              kind: { enum: ['universal', 'domain', 'specialism'] },
              id: { type: 'string' },
              storyboards: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id', 'title', 'step_count'],
                  properties: {
                    id: { type: 'string' },
                    title: { type: 'string' },
                    summary: { type: ['string', 'null'] },
                    step_count: { type: 'integer', minimum: 0 },
                  },
                },
              },
            },
          },
        },
        total_storyboards: { type: 'integer', minimum: 0 },
      },
    },
    RunStoryboardResult: loose(
      [
        'storyboard',
        'agent',
        'proto_version',
        'requested_compliance_target',
        'badge_eligible',
        'run_id',
        'storyboard_status',
        'phases',
        'summary',
        'diagnostics',
        'total_duration_ms',
      ],
      'Digest 6.3: the storyboard, the agent and its profile, the run id, the storyboard status, phases, summary, diagnostics, observations.',
    ),
    RunStoryboardStepResult: loose(
      ['proto_version', 'requested_compliance_target', 'dry_run', 'sent'],
      'The step said (dry run: the requests that would be sent, what they need) or its results.',
    ),
    CompareStoryboardResult: loose(
      ['storyboard', 'user_agent', 'reference_agent', 'proto_version', 'requested_compliance_target', 'phases', 'total_duration_ms'],
      'Digest 6.3: the storyboard on both agents, per phase and step with `same`.',
    ),
  },
};
