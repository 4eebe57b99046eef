/** The fleet routes' descriptions (routes/fleet.ts): statistics, the agent list, the change feed, registering and removing agents. */
import { MAX_CHANGES } from '../routes/fleet.js';
import { AGENT_URL_PARAM, COUNT, DATE_TIME, error, intQuery, REGISTRY_STATUS } from './common.js';
import { json, jsonBody, type OperationGroup, ref } from './types.js';

export const fleetDocs: OperationGroup = {
  schemas: {
    RegistryStats: {
      type: 'object',
      required: ['passing', 'degraded', 'failing', 'unknown', 'agents', 'runs'],
      properties: {
        passing: COUNT,
        degraded: COUNT,
        failing: COUNT,
        unknown: COUNT,
        agents: { ...COUNT, description: 'Registered agents.' },
        runs: { ...COUNT, description: 'Finished runs.' },
      },
    },
    AgentListEntry: {
      type: 'object',
      description: "An agent as listed: spec 2.4's fields (domain, agent_url, capabilities, channels) and the registry's standing of it.",
      required: ['domain', 'agent_url', 'capabilities', 'channels', 'transports', 'status', 'lifecycle_stage'],
      properties: {
        domain: { type: 'string' },
        agent_url: { type: 'string', format: 'uri' },
        capabilities: { type: 'array', items: { type: 'string' }, description: 'The tasks the agent declared in its last run.' },
        channels: { type: 'array', items: { type: 'string' } },
        transports: { type: 'array', items: { type: 'string', enum: ['mcp', 'a2a'] }, minItems: 1 },
        status: REGISTRY_STATUS,
        lifecycle_stage: { const: 'production' },
        last_checked_at: DATE_TIME,
        headline: { type: 'string' },
        problem: { type: 'string', description: 'Why the last probe could not run or reach the agent.' },
        owner: { type: 'string', description: 'The member who owns the agent.' },
        auth_ref: { type: 'string', description: "Where the owner keeps the agent's credential (free text)." },
      },
      additionalProperties: false,
    },
    AgentList: {
      type: 'object',
      required: ['agents', 'count'],
      properties: { agents: { type: 'array', items: ref('AgentListEntry') }, count: COUNT },
      additionalProperties: false,
    },
    StatusChange: {
      type: 'object',
      required: ['seq', 'agent_url', 'from', 'to', 'at', 'run_id'],
      properties: {
        seq: { type: 'integer', minimum: 1, description: 'The cursor of this change.' },
        agent_url: { type: 'string' },
        from: REGISTRY_STATUS,
        to: REGISTRY_STATUS,
        at: DATE_TIME,
        run_id: { type: ['integer', 'null'] },
      },
      additionalProperties: false,
    },
    ChangeFeed: {
      type: 'object',
      required: ['changes', 'next_cursor'],
      properties: {
        changes: { type: 'array', items: ref('StatusChange') },
        next_cursor: { type: 'integer', minimum: 0, description: 'Give it as `cursor` for the changes after these (the same cursor when there were none).' },
      },
      additionalProperties: false,
    },
    AgentRegistration: {
      type: 'object',
      description: "The agent URL as `url` or, in the interface spec's name, `agent_url` (both given: the same).",
      anyOf: [
        { type: 'object', required: ['url'], properties: { url: true } },
        { type: 'object', required: ['agent_url'], properties: { agent_url: true } },
      ],
      properties: {
        url: { type: 'string', maxLength: 2048, description: 'The agent URL: http or https, without credentials.' },
        agent_url: { type: 'string', maxLength: 2048, description: "The same, by the interface spec's name (2.4)." },
        capabilities: {
          type: 'array',
          maxItems: 200,
          items: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' },
          description: 'Task names it declares: searched until a probe lists its own.',
        },
        channels: { type: 'array', maxItems: 200, items: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' }, description: 'Channel codes (spec 2.4).' },
        transports: { type: 'array', items: { type: 'string', enum: ['mcp', 'a2a'] }, minItems: 1, description: 'Default: both.' },
        token: { type: 'string', maxLength: 64, description: 'The protocol token of its task names (default `proto`).' },
        auth_token: { type: 'string', maxLength: 4096, description: 'A bearer sent to this agent only; stored, never served.' },
        auth_ref: { type: 'string', maxLength: 512 },
        owner: { type: 'string', maxLength: 512, description: "A member's agents are theirs: a member may give only their own name." },
      },
      additionalProperties: false,
    },
  },
  operations: [
    {
      method: 'POST',
      path: '/api/organizations',
      operationId: 'createOrganization',
      tags: ['Fleet'],
      description: "A member's organization is the member's own; an operator key has none (400).",
      requestBody: jsonBody({
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', maxLength: 200 },
          company_type: { type: 'string', maxLength: 200 },
          revenue_tier: { type: 'string', maxLength: 200 },
        },
      }),
      responses: {
        '201': json('The organization as stored.', {
          type: 'object',
          required: ['member', 'name', 'company_type', 'revenue_tier', 'updated_at'],
          additionalProperties: false,
          properties: {
            member: { type: 'string' },
            name: { type: 'string' },
            company_type: { type: ['string', 'null'] },
            revenue_tier: { type: ['string', 'null'] },
            updated_at: { type: 'string', format: 'date-time' },
          },
        }),
        '400': error('A malformed body, or an operator key.'),
        '413': error('The body is too large.'),
        '415': error('The body is not JSON.'),
      },
    },
    {
      method: 'GET',
      path: '/api/registry/stats',
      operationId: 'getRegistryStats',
      tags: ['Fleet'],
      responses: { '200': json('Registered agents per registry status, and finished runs.', ref('RegistryStats')) },
    },
    {
      method: 'GET',
      path: '/api/registry/agents',
      operationId: 'listAgents',
      tags: ['Fleet'],
      parameters: [
        {
          name: 'capability',
          in: 'query',
          description: 'Only agents that list this task (from their latest probe, else their registration).',
          schema: { type: 'string' },
        },
        { name: 'channel', in: 'query', description: 'Only agents that declared this channel.', schema: { type: 'string' } },
        { name: 'status', in: 'query', description: 'Only agents with this registry status.', schema: REGISTRY_STATUS },
      ],
      responses: { '200': json('The agents.', ref('AgentList')) },
    },
    {
      method: 'GET',
      path: '/api/registry/changes',
      operationId: 'listStatusChanges',
      tags: ['Fleet'],
      parameters: [
        intQuery('cursor', 'The changes after this one (`next_cursor` of the previous page; 0: from the start).', 0, Number.MAX_SAFE_INTEGER),
        intQuery('limit', 'At most this many changes.', 100, MAX_CHANGES),
      ],
      responses: {
        '200': json('Status transitions after the cursor, oldest first.', ref('ChangeFeed')),
        '400': error('`cursor` or `limit` is not a non-negative integer.'),
      },
    },
    {
      method: 'POST',
      path: '/api/me/agents',
      operationId: 'registerAgent',
      tags: ['Fleet'],
      description: 'The scheduler probes a new agent at once. An agent registered with a member key is owned by that member.',
      requestBody: jsonBody(ref('AgentRegistration')),
      responses: {
        '201': json('Registered.', ref('AgentListEntry'), {
          Location: { description: "The agent's compliance detail.", schema: { type: 'string' } },
        }),
        '400': error('The body is not JSON, not an object, has an unknown field or a bad value.'),
        '403': error('A member named another owner.'),
        '409': error('The agent is already registered.'),
        '413': error('The body is larger than 64 KiB.'),
        '415': error('The body is not `application/json`.'),
      },
    },
    {
      method: 'DELETE',
      path: '/api/me/agents/{encodedUrl}',
      operationId: 'removeAgent',
      tags: ['Fleet'],
      parameters: [AGENT_URL_PARAM],
      responses: { '204': { description: 'Removed, with its history.' } },
    },
  ],
};
