/**
 * Storyboards compiled into suites and run by the engine against the real mock seller on loopback,
 * over MCP and A2A: one check per step, blocked by the stateful step before it when that failed,
 * not applicable where the storyboard or the step does not apply, a gap for what the harness does
 * not run yet, advisory validations in their own SHOULD check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { certifyMock } from '../../../suites/testing/mock-run.js';
import type { RunResult } from '../engine/result.js';
import { compileStoryboards } from './compile.js';
import { loadStoryboardBundle } from './load.js';
import { toComplianceDetail } from '../../../reports/compliance-detail.js';

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

const STORYBOARDS: Record<string, string> = {
  'index.json': JSON.stringify({
    adcp_version: '3.0.6',
    universal: ['flow', 'seeded', 'clashing', 'misseeded', 'branches', 'refusal'],
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
          context: { correlation_id: "flow--products" }
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
          - check: oauth_metadata_graph
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
  'universal/refusal.yaml': `
id: refusal
title: A refusal nothing judges
phases:
  - id: p
    steps:
      - id: refused
        task: get_products
        sample_request: { buying_mode: nonsense }
        validations:
          - { check: oauth_metadata_graph, description: not judged by the harness }
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

let run: RunResult;
const made: string[] = [];
beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'storyboard-run-'));
  made.push(root);
  for (const [p, text] of Object.entries(STORYBOARDS)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  const catalog = compileStoryboards(loadStoryboardBundle(root));
  run = await certifyMock({ token: 'adcp', catalog, suites: catalog.suites, mock: { kinds: ['media-buy'] } });
}, 120_000);
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const outcome = (id: string, transport = 'mcp') => {
  const c = run.checks.find((x) => x.check_id === id && x.transport === transport);
  return c ? `${c.outcome}${c.blocked_by ? ` by ${c.blocked_by}` : ''}` : 'missing';
};

describe('a storyboard bundle run by the engine', () => {
  it('runs with no harness error, over both transports', () => {
    expect(run.harness_error).toBeUndefined();
    expect(run.transports).toEqual(['mcp', 'a2a']);
    expect(run.checks.filter((c) => c.outcome === 'error')).toEqual([]);
  });

  it.each(['mcp', 'a2a'])('judges steps, captured context and the chain of stateful steps (%s)', (t) => {
    expect(outcome('storyboard.flow.discover.products', t)).toBe('pass');
    expect(outcome('storyboard.flow.discover.again', t)).toBe('pass');
    expect(outcome('storyboard.flow.broken.wrong', t)).toBe('fail');
    expect(outcome('storyboard.flow.broken.after', t)).toBe('blocked by storyboard.flow.broken.wrong');
  });

  it('puts advisory validations in a SHOULD check of their own', () => {
    const c = run.checks.find((x) => x.check_id === 'storyboard.flow.discover.products.advisory' && x.transport === 'mcp')!;
    expect(c).toMatchObject({ level: 'SHOULD', outcome: 'warn' });
    expect(c.message).toMatch(/an advisory that fails/);
  });

  it('says what it did not judge', () => {
    const c = run.checks.find((x) => x.check_id === 'storyboard.flow.discover.products' && x.transport === 'mcp')!;
    expect(c.message).toBe(
      '2 validations passed, 0 failed, 1 not applicable (oauth_metadata_graph: the harness does not judge oauth_metadata_graph validations)',
    );
  });

  it('is not applicable where the storyboard or the step does not apply, and a gap for what the harness does not run yet', () => {
    expect(outcome('storyboard.signals_only.p.s')).toBe('not_applicable');
    expect(run.checks.find((x) => x.check_id === 'storyboard.signals_only.p.s')?.message).toMatch(/does not list signals in supported_protocols/);
    expect(outcome('storyboard.flow.runner_side.observe')).toBe('gap');
    expect(outcome('storyboard.flow.runner_side.unlisted')).toBe('not_applicable');
  });

  it("seeds a storyboard's fixtures first; a controller that does not take them leaves the storyboard a gap, never a failure", () => {
    for (const t of ['mcp', 'a2a']) {
      expect(outcome('storyboard.seeded.controller-seeding', t)).toBe('pass');
      expect(outcome('storyboard.seeded.p.buy', t)).toBe('pass');
    }
    const refused = run.checks.find((x) => x.check_id === 'storyboard.clashing.controller-seeding' && x.transport === 'mcp')!;
    expect(refused.outcome).toBe('gap');
    expect(refused.message).toMatch(/^seed_product ctv_sports_premium: the controller did not take the fixture/);
    expect(outcome('storyboard.clashing.p.buy')).toBe('gap');
    const wrong = run.checks.find((x) => x.check_id === 'storyboard.misseeded.controller-seeding' && x.transport === 'mcp')!;
    expect([wrong.outcome, wrong.message]).toEqual(['not_applicable', "the storyboard's fixtures cannot be seeded: fixtures.products[0] needs product_id"]);
  });

  it.each(['mcp', 'a2a'])('judges a branch set by its assertion: a path not taken is not applicable, never a failure (%s)', (t) => {
    expect(outcome('storyboard.branches.refuse_path.refused', t)).toBe('not_applicable');
    expect(run.checks.find((x) => x.check_id === 'storyboard.branches.refuse_path.refused' && x.transport === t)?.message).toMatch(
      /^optional phase refuse_path \(branch set handled\): a path the agent did not take/,
    );
    expect(outcome('storyboard.branches.answer_path.answered', t)).toBe('pass');
    expect(outcome('storyboard.branches.never_path.never', t)).toBe('not_applicable');
    expect(outcome('storyboard.branches.enforce.handled', t)).toBe('pass');
    expect(outcome('storyboard.branches.enforce.never_handled', t)).toBe('fail');
  });

  it('fails a step that got an error it does not expect when none of its validations holds on it', () => {
    const c = run.checks.find((x) => x.check_id === 'storyboard.refusal.p.refused' && x.transport === 'mcp')!;
    expect([c.outcome, c.message]).toEqual(['fail', 'get_products answered an error (INVALID_REQUEST) and no validation of the step holds on it']);
  });

  it("reports in the registry's terms: the storyboard's own id and track", () => {
    const detail = toComplianceDetail(run);
    expect(detail.storyboard_statuses.map((s) => [s.storyboard_id, s.track, s.status])).toEqual([
      ['flow', 'core', 'failing'],
      ['seeded', 'storyboard.seeded', 'passing'],
      ['clashing', 'storyboard.clashing', 'untested'],
      ['branches', 'storyboard.branches', 'failing'],
      ['refusal', 'storyboard.refusal', 'failing'],
    ]);
    expect(detail.tracks).toEqual({
      core: 'fail',
      'storyboard.seeded': 'pass',
      'storyboard.clashing': 'skip',
      'storyboard.branches': 'fail',
      'storyboard.refusal': 'fail',
      'storyboard.misseeded': 'skip',
      'storyboard.signals_only': 'skip',
    });
  });
});
