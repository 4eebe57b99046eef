/**
 * A small storyboard bundle, written to a temporary directory, and its run against the real mock
 * seller on loopback over MCP and A2A (harness/core/storyboards/run.test.ts judges the engine's
 * verdicts, reports/runner-output.test.ts the runner output of the same run). Its steps pass,
 * fail, chain, seed, take branch sets, call a runner-side step without its test kit, and send a secret
 * under a secret-bearing key (`api_key`) and the run's bearer token in text, both echoed back (by a
 * passing step, whose evidence is not kept, and by a failing one, whose evidence is).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { certify } from '../../../certify/index.js';
import { startMockSeller } from '../../../../mocks/seller/index.js';
import type { RunResult } from '../../engine/result.js';
import { compileStoryboards } from '../compile.js';
import { loadStoryboardBundle } from '../load.js';
import type { StoryboardBundle } from '../model.js';

/** A value sent under a secret-bearing key: the runner output must never show it. */
export const FIXTURE_SECRET = 'fixture-api-key-5d1c0a7e';

/** A storyboard seeding one product, then reading products under its own account. */
function seedingStoryboard(id: string, productId: string): string {
  return `
id: ${id}
title: Seeds ${productId}
prerequisites:
  controller_seeding: true
fixtures:
  products:
    - product_id: "${productId}"
      delivery_type: "non_guaranteed"
phases:
  - id: p
    steps:
      - id: buy
        task: get_products
        sample_request: { buying_mode: brief, brief: "x", account: { brand: { domain: "acme.example" }, operator: "op.example" } }
        validations: []
`;
}

/** The bundle's files; `__BEARER__` in them is the run's bearer token. */
export const STORYBOARDS: Record<string, string> = {
  'index.json': JSON.stringify({
    adcp_version: '3.0.6',
    universal: ['flow', 'seeded', 'clashing', 'misseeded', 'branches', 'refusal', 'chained'],
    protocols: [{ id: 'signals', path: 'protocols/signals/', has_baseline: true }],
    specialisms: [],
  }),
  'universal/flow.yaml': `
id: flow
title: A small flow
track: core
required_tools: [get_products]
phases:
  - id: discover
    steps:
      - id: products
        task: get_products
        stateful: true
        sample_request:
          buying_mode: brief
          brief: "Outdoor video"
          context: { correlation_id: "flow--products", api_key: "${FIXTURE_SECRET}", note: "sent with __BEARER__" }
        context_outputs:
          - name: product_id
            path: products[0].product_id
        validations:
          - check: field_present
            path: products[0].product_id
            description: a product
          - check: field_value
            path: context.correlation_id
            value: "flow--products"
          - check: field_value
            path: products[0].product_id
            value: "no-such-product"
            severity: advisory
            description: an advisory that fails
          - check: some_future_check
            description: a kind the harness does not judge
      - id: again
        task: get_products
        stateful: true
        sample_request:
          buying_mode: refine
          refine: [{ scope: product, product_id: "$context.product_id", action: more_like_this }]
        validations:
          - check: field_present
            path: products
          - check: response_schema
            description: a valid get_products response
  - id: broken
    steps:
      - id: wrong
        task: get_products
        stateful: true
        sample_request: { buying_mode: brief, brief: "x" }
        validations:
          - check: field_value
            path: products[0].product_id
            value: "no-such-product"
      - id: after
        task: get_products
        stateful: true
        sample_request: { buying_mode: brief, brief: "y" }
        validations: []
  - id: runner_side
    steps:
      - id: observe
        task: expect_substitution_safe
        validations: []
      - id: unlisted
        task: sync_plans
        validations: []
`,
  // Seeds a product of its own (taken), and one the sandbox already sells under that id (refused).
  'universal/seeded.yaml': seedingStoryboard('seeded', 'seeded_product'),
  'universal/clashing.yaml': seedingStoryboard('clashing', 'ctv_sports_premium'),
  'universal/branches.yaml': `
id: branches
title: Branch sets
phases:
  - id: refuse_path
    optional: true
    branch_set: { id: handled, semantics: any_of }
    steps:
      - id: refused
        task: get_products
        expect_error: true
        contributes: true
        sample_request: { buying_mode: brief, brief: "x" }
  - id: answer_path
    optional: true
    branch_set: { id: handled, semantics: any_of }
    steps:
      - id: answered
        task: get_products
        contributes: true
        sample_request: { buying_mode: brief, brief: "x" }
        validations:
          - { check: field_present, path: products, description: products }
  - id: never_path
    optional: true
    branch_set: { id: never, semantics: any_of }
    steps:
      - id: never
        task: get_products
        contributes_to: never
        sample_request: { buying_mode: brief, brief: "x" }
        validations:
          - { check: field_present, path: no_such_member, description: absent member }
  - id: enforce
    steps:
      - id: handled
        task: assert_contribution
        validations:
          - { check: any_of, allowed_values: [handled], description: one path handled it }
      - id: never_handled
        task: assert_contribution
        validations:
          - { check: any_of, allowed_values: [never], description: a path nobody takes }
`,
  // A stateful step the agent does not offer: the state the next one needs never existed.
  'universal/chained.yaml': `
id: chained
title: A chain without its first link
phases:
  - id: p
    steps:
      - id: plan
        task: sync_plans
        stateful: true
      - id: read
        task: get_products
        stateful: true
        sample_request: { buying_mode: brief, brief: "x" }
`,
  'universal/refusal.yaml': `
id: refusal
title: A refusal nothing judges
phases:
  - id: p
    steps:
      - id: refused
        task: get_products
        sample_request:
          buying_mode: nonsense
          context: { correlation_id: "refusal--refused", api_key: "${FIXTURE_SECRET}", note: "sent with __BEARER__" }
        validations:
          - { check: some_future_check, description: not judged by the harness }
`,
  'universal/misseeded.yaml': `
id: misseeded
title: Fixtures without ids
prerequisites:
  controller_seeding: true
fixtures:
  products:
    - delivery_type: "non_guaranteed"
phases:
  - id: p
    steps:
      - id: s
        task: get_products
        validations: []
`,
  'protocols/signals/index.yaml': `
id: signals_only
title: Signals
phases:
  - id: p
    steps:
      - id: s
        task: get_signals
        validations: []
`,
};

export interface FixtureRun {
  run: RunResult;
  bundle: StoryboardBundle;
  /** The bearer token the mock required and the harness sent. */
  bearer: string;
}

/** Writes the bundle into a new temporary directory (the caller removes it) and returns its path. */
export function writeFixtureBundle(bearer = 'no-bearer'): string {
  const root = mkdtempSync(join(tmpdir(), 'storyboard-run-'));
  for (const [p, text] of Object.entries(STORYBOARDS)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text.replaceAll('__BEARER__', bearer));
  }
  return root;
}

/** Writes the bundle, runs it against a fresh mock seller (media-buy) and removes the bundle. */
export async function runFixtureBundle(): Promise<FixtureRun> {
  const bearer = randomBytes(18).toString('base64url');
  const root = writeFixtureBundle(bearer);
  try {
    const bundle = loadStoryboardBundle(root);
    const catalog = compileStoryboards(bundle);
    const mock = await startMockSeller({ token: 'adcp', authToken: bearer, allowPrivateWebhooks: true, kinds: ['media-buy'] });
    try {
      const run = await certify({ token: 'adcp', catalog, suites: catalog.suites, agentUrl: mock.baseUrl, authToken: bearer, seed: '20261122' });
      return { run, bundle, bearer };
    } finally {
      await mock.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
