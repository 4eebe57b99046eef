/**
 * The JSON Schema of a storyboard file as far as the harness acts on it (digest 6.1; the bundle's
 * own `universal/storyboard-schema.yaml` describes the rest in prose). Members the harness does
 * not read are left free, so a newer bundle's additions load; what it reads must have its type.
 */
const ID = { type: 'string', minLength: 1, maxLength: 200 } as const;
const REQUIREMENT = {
  type: 'object',
  required: ['path'],
  properties: { path: { type: 'string', maxLength: 500 }, present: { type: 'boolean' } },
} as const;

export const STORYBOARD_SHAPE = {
  type: 'object',
  required: ['id', 'phases'],
  properties: {
    id: ID,
    title: { type: 'string' },
    version: { type: 'string' },
    required_tools: { type: 'array', maxItems: 200, items: { type: 'string' } },
    required_any_of_tools: {
      type: 'array',
      items: { type: 'object', required: ['tools'], properties: { tools: { type: 'array', minItems: 1, items: { type: 'string' } } } },
    },
    requires_capability: REQUIREMENT,
    requires_all_capabilities: { type: 'array', items: REQUIREMENT },
    requires_scenarios: { type: 'array', items: ID },
    phases: {
      type: ['array', 'null'],
      maxItems: 500,
      items: {
        type: 'object',
        required: ['id'],
        properties: {
          id: ID,
          depends_on: { anyOf: [ID, { type: 'array', items: ID }] },
          optional: { type: 'boolean' },
          requires_capability: REQUIREMENT,
          steps: {
            type: 'array',
            maxItems: 500,
            items: {
              type: 'object',
              required: ['id', 'task'],
              properties: {
                id: ID,
                task: { type: 'string', minLength: 1, maxLength: 200 },
                requires_tool: { type: 'string' },
                stateful: { type: 'boolean' },
                expect_error: { type: 'boolean' },
                triggered_by: ID,
                timeout_seconds: { type: 'number', exclusiveMinimum: 0 },
                // The receiver contract's bounds (test-kits/webhook-receiver-runner.yaml retry_replay_contract):
                // runners must refuse other counts and statuses at load time.
                retry_trigger: {
                  type: 'object',
                  properties: { count: { type: 'integer', minimum: 1, maximum: 10 }, http_status: { enum: [429, 500, 502, 503, 504] } },
                },
                expect_min_deliveries: { type: 'integer', minimum: 1, maximum: 100 },
                context_outputs: {
                  type: 'array',
                  // the context name is `name` (digest 6.1) or, in some 3.0 storyboards, `key`
                  items: {
                    type: 'object',
                    required: ['path'],
                    anyOf: [{ required: ['name'] }, { required: ['key'] }],
                    properties: { name: { type: 'string' }, key: { type: 'string' }, path: { type: 'string' } },
                  },
                },
                validations: {
                  type: 'array',
                  maxItems: 500,
                  items: {
                    type: 'object',
                    required: ['check'],
                    properties: {
                      check: { type: 'string', minLength: 1, maxLength: 100 },
                      path: { type: 'string' },
                      severity: { enum: ['required', 'advisory'] },
                      expires_after_version: { type: 'string' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;
