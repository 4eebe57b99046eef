/** The members-only storyboard status routes' descriptions (routes/storyboard-status.ts). */
import { MAX_BULK_URLS } from '../routes/storyboard-status.js';
import { AGENT_URL_PARAM, COUNT, error, MEMBERS_ONLY } from './common.js';
import { json, jsonBody, type OperationGroup, ref } from './types.js';

const MEMBERS = "Members only. A status carries its storyboard's first-failure fields only for the agent's owner, and never `first_failure_validations`.";

export const storyboardStatusDocs: OperationGroup = {
  schemas: {
    AgentStoryboardStatuses: {
      type: 'object',
      required: ['agent_url', 'storyboards', 'passing_count', 'total_count'],
      properties: {
        agent_url: { type: 'string' },
        status: { const: 'opted_out', description: 'Only for an opted-out agent (then no storyboards).' },
        storyboards: { type: 'array', items: ref('StoryboardStatus') },
        passing_count: COUNT,
        total_count: COUNT,
      },
      additionalProperties: false,
    },
    BulkStoryboardStatuses: {
      type: 'object',
      required: ['agents'],
      properties: {
        agents: {
          type: 'object',
          description: 'Each registered agent asked for, by the URL as given.',
          additionalProperties: {
            oneOf: [
              { type: 'array', items: ref('StoryboardStatus') },
              { type: 'object', required: ['status'], properties: { status: { const: 'opted_out' } }, additionalProperties: false },
            ],
          },
        },
        invalid_urls: { type: 'array', description: 'What was asked for that is no registered agent (as given, strings cut at 2,048 characters).' },
      },
      additionalProperties: false,
    },
  },
  operations: [
    {
      method: 'GET',
      path: '/api/registry/agents/{encodedUrl}/storyboard-status',
      operationId: 'getAgentStoryboardStatus',
      tags: ['Compliance'],
      description: MEMBERS,
      parameters: [AGENT_URL_PARAM],
      responses: {
        '200': json("The agent's storyboard statuses.", ref('AgentStoryboardStatuses')),
        '403': MEMBERS_ONLY,
      },
    },
    {
      method: 'POST',
      path: '/api/registry/agents/storyboard-status',
      operationId: 'getBulkStoryboardStatus',
      tags: ['Compliance'],
      description: MEMBERS,
      requestBody: jsonBody({
        type: 'object',
        required: ['agent_urls'],
        properties: { agent_urls: { type: 'array', minItems: 1, maxItems: MAX_BULK_URLS, items: { type: 'string' } } },
      }),
      responses: {
        '200': json('The statuses of each agent found.', ref('BulkStoryboardStatuses')),
        '400': error(`The body is not a JSON object, or \`agent_urls\` is not a list of 1 to ${MAX_BULK_URLS} URLs.`),
        '403': MEMBERS_ONLY,
        '413': error('The body is larger than 64 KiB.'),
        '415': error('The body is not `application/json`.'),
      },
    },
  ],
};
