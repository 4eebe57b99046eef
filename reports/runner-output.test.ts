/**
 * The runner output document of the fixture bundle's run (mock seller, MCP and A2A): every
 * validation the steps judged is in it, as judged; the skip reasons say why, naming the step or
 * what to supply; no secret reaches it; the summary adds up. The contract's own required fields
 * and enumerations are checked in runner-output.contract.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURE_SECRET, runFixtureBundle, type FixtureRun } from '../harness/core/storyboards/testing/fixture-bundle.js';
import { buildRunFixture } from './testing/run-result.js';
import type { CheckResult } from '../harness/core/engine/result.js';
import { writeReports } from './index.js';
import { RUNNER_CAPABILITY_VERSION } from '../harness/core/storyboards/runner-capability.js';
import { RUNNER_OUTPUT_FILE, toRunnerOutput, type RunnerOutputDocument, type StepResultDoc } from './runner-output.js';

let fixture: FixtureRun;
let doc: RunnerOutputDocument;
const dirs: string[] = [];
beforeAll(async () => {
  fixture = await runFixtureBundle();
  doc = toRunnerOutput(fixture.run);
}, 120_000);
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const step = (storyboard: string, phase: string, id: string, transport = 'mcp'): StepResultDoc => {
  const s = doc.step_results.find((x) => x.storyboard_id === storyboard && x.phase_id === phase && x.step_id === id && x.transport === transport);
  if (!s) throw new Error(`no step_result ${storyboard}.${phase}.${id} [${transport}]`);
  return s;
};

describe('the runner output of a storyboard run', () => {
  it('keeps every validation a step judged: the required ones in authored order, then its advisory ones', () => {
    for (const t of ['mcp', 'a2a']) {
      expect(step('flow', 'discover', 'products', t).validations.map((v) => [v.check, v.severity, v.passed, v.not_applicable ?? false])).toEqual([
        ['field_present', 'required', true, false],
        ['field_value', 'required', true, false],
        ['some_future_check', 'required', true, true],
        ['field_value', 'advisory', false, false],
      ]);
      expect(step('flow', 'discover', 'products', t).passed).toBe(true);
    }
    // Every step that ran to a pass lists exactly the validations its storyboard authored.
    const passed = doc.step_results.filter((s) => s.passed);
    expect(passed.length).toBeGreaterThan(8);
    for (const s of passed) {
      const authored = fixture.bundle.storyboards
        .get(s.storyboard_id)
        ?.phases.find((p) => p.id === s.phase_id)
        ?.steps.find((x) => x.id === s.step_id)?.validations;
      const inOrder = [...(authored ?? []).filter((v) => v.severity !== 'advisory'), ...(authored ?? []).filter((v) => v.severity === 'advisory')];
      expect(
        s.validations.map((v) => [v.check, v.description]),
        s.check_id,
      ).toEqual(inOrder.map((v) => [v.check, v.description ?? '']));
    }
  });

  it('records a failure with its pointer, expected and actual, and the schema a response_schema check applied', () => {
    expect(step('flow', 'broken', 'wrong').validations).toEqual([
      expect.objectContaining({
        check: 'field_value',
        passed: false,
        json_pointer: '/products/0/product_id',
        expected: 'no-such-product',
        actual: 'ctv_sports_premium',
        schema_id: null,
      }),
    ]);
    const id = 'https://proto-comply.local/schemas/get_products-response.json';
    expect(step('flow', 'discover', 'again').validations[1]).toEqual({
      check: 'response_schema',
      passed: true,
      description: 'a valid get_products response',
      severity: 'required',
      schema_id: id,
      schema_url: id,
    });
    expect(doc.run_summary.schemas_used).toEqual([{ schema_id: id, schema_url: id, schema_file: 'fixtures/schemas/get_products-response.json' }]);
    expect(step('branches', 'enforce', 'never_handled').validations).toEqual([
      expect.objectContaining({ check: 'any_of', passed: false, expected: ['never'], description: 'a path nobody takes' }),
    ]);
  });

  it("names the runner's own check when the step failed on no authored validation", () => {
    const refused = step('refusal', 'p', 'refused');
    expect(refused.validations.map((v) => [v.check, v.passed])).toEqual([
      ['some_future_check', true],
      ['unexpected_error', false],
    ]);
    expect(refused.extraction.path).toBe('error');
  });

  it('says why each step was not run, in the contract vocabulary', () => {
    const skip = (sb: string, phase: string, id: string) => step(sb, phase, id).skip;
    expect(skip('flow', 'broken', 'after')).toEqual({
      reason: 'prerequisite_failed',
      detail: expect.stringMatching(
        /^prerequisite step broken\.wrong \(storyboard\.flow\.broken\.wrong\) did not pass: the stateful step before it did not hold \(field_value: /,
      ),
    });
    expect(skip('flow', 'runner_side', 'observe')).toEqual({
      reason: 'unsatisfied_contract',
      detail: 'expect_substitution_safe: the bundle has no substitution_observer_runner test kit (test-kits/substitution-observer-runner.yaml); supply it',
    });
    expect(skip('flow', 'runner_side', 'unlisted')).toEqual({
      reason: 'missing_tool',
      detail: expect.stringMatching(/^the step calls sync_plans, which the agent does not list; it lists .*get_products/),
    });
    expect(skip('signals_only', 'p', 's')).toEqual({
      reason: 'not_applicable',
      detail: expect.stringMatching(/^the agent does not list signals in supported_protocols; the agent declares supported_protocols \[media_buy\]/),
    });
    expect(skip('clashing', 'prerequisites', 'controller_seeding')).toEqual({
      reason: 'missing_test_controller',
      detail: expect.stringMatching(/did not take seed_product ctv_sports_premium .*; supply a controller that takes seed_product$/),
    });
    expect(skip('clashing', 'p', 'buy')?.reason).toBe('prerequisite_failed');
    expect(skip('clashing', 'p', 'buy')?.detail).toMatch(
      /^prerequisite step prerequisites\.controller_seeding \(storyboard\.clashing\.controller-seeding\) was not run/,
    );
    expect(skip('misseeded', 'p', 's')?.reason).toBe('not_applicable');
    expect(skip('chained', 'p', 'plan')?.reason).toBe('missing_tool');
    expect(skip('chained', 'p', 'read')).toEqual({
      reason: 'prerequisite_failed',
      detail: expect.stringMatching(/^prerequisite step storyboard\.chained\.p\.plan: needs the state of storyboard\.chained\.p\.plan, which never existed/),
    });
    expect(skip('branches', 'refuse_path', 'refused')).toEqual({
      reason: 'peer_branch_taken',
      detail: 'handled contributed by answer_path.answered — refuse_path is moot',
    });
    expect(skip('branches', 'never_path', 'never')?.reason).toBe('not_applicable');
    expect(step('seeded', 'prerequisites', 'controller_seeding')).toMatchObject({ passed: true, task: 'comply_test_controller' });
  });

  it('never shows the bearer token or a value at a secret-bearing key, in payloads or JSON text', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain(fixture.bearer);
    expect(text).not.toContain(FIXTURE_SECRET);
    for (const t of ['mcp', 'a2a']) {
      // A failing step keeps its call (a passing one keeps none: the contract's request and response are optional there).
      expect(step('flow', 'discover', 'products', t).request).toBeUndefined();
      const s = step('refusal', 'p', 'refused', t);
      expect(s.request?.payload).toMatchObject({ context: { api_key: '[redacted]' } });
      expect(s.response?.payload).toBeDefined();
      expect(JSON.stringify(s.response?.payload)).toContain('[redacted]');
    }
    // The run itself kept the secret sent under api_key (it is not one the run knew): only the contract's redaction removes it.
    expect(JSON.stringify(fixture.run)).toContain(FIXTURE_SECRET);
  });

  it('sums up: every step counted once, per track with its skip reasons', () => {
    const s = doc.run_summary;
    expect(s.total_steps).toBe(doc.step_results.length);
    expect(s.steps_passed + s.steps_failed + s.steps_skipped + s.steps_not_selected).toBe(s.total_steps);
    expect(s.steps_skipped).toBe(doc.step_results.filter((x) => x.skip && !x.not_selected).length);
    expect(s.tracks.find((t) => t.track === 'core')).toMatchObject({
      status: 'fail',
      storyboards: ['flow'],
      steps_passed: 4,
      steps_failed: 2,
      steps_skipped: 6,
    });
    expect(s.validations_advisory_failed).toBe(2);
    // Only flow has a track; the totals count every step, and none was excluded by the run's selection.
    expect(s.tracks.map((t) => t.track)).toEqual(['core']);
    expect(s.steps_not_selected).toBe(0);
    expect(s.runner_capability_version).toBe(RUNNER_CAPABILITY_VERSION);
  });
});

describe('the runner-output format', () => {
  it('is written on request only, as runner-output.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runner-output-'));
    dirs.push(dir);
    expect(await writeReports(fixture.run, { dir })).not.toContain(join(dir, RUNNER_OUTPUT_FILE));
    expect(await writeReports(fixture.run, { dir, formats: ['runner-output'] })).toEqual([join(dir, RUNNER_OUTPUT_FILE)]);
    expect(JSON.parse(readFileSync(join(dir, RUNNER_OUTPUT_FILE), 'utf8'))).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('gives a run without storyboard steps an empty document that says so', () => {
    const empty = toRunnerOutput(buildRunFixture());
    expect(empty.step_results).toEqual([]);
    expect(empty.run_summary).toMatchObject({ total_steps: 0, steps_passed: 0, steps_failed: 0, steps_skipped: 0, tracks: [], schemas_used: [] });
    expect(empty.note).toMatch(/no storyboard steps/);
  });
});

describe('steps the fixture run does not have', () => {
  const base = buildRunFixture();
  const template = base.checks[0];
  const ref = { storyboard_id: 'sb', phase_id: 'p', step_id: 's', task: 'get_products' };
  const check = (extra: Partial<CheckResult>): CheckResult => ({
    ...template,
    suite_id: 'storyboard.sb',
    check_id: 'storyboard.sb.p.s',
    transport: 'mcp',
    ...extra,
  });

  it('a step whose call got no reply ran and failed on the transport: error set, pointer, expected and actual null, no skip', () => {
    const failure = 'network: connect ECONNREFUSED 127.0.0.1:9';
    const run = {
      ...base,
      checks: [
        check({
          outcome: 'blocked',
          blocked_by: 'transport.mcp',
          message: `blocked by transport.mcp: the agent could not be reached: ${failure}`,
          storyboard_step: {
            ...ref,
            reply: { payload_source: 'none', is_error: false, failure },
            validations: [{ check: 'transport', outcome: 'failed', severity: 'required', description: 'the agent answers the task call', message: failure }],
          },
        }),
      ],
    };
    const [s] = toRunnerOutput(run).step_results;
    expect(s).toMatchObject({ passed: false, error: failure, extraction: { path: 'error', note: failure } });
    expect(s.skip).toBeUndefined();
    expect(s.validations).toEqual([
      expect.objectContaining({ check: 'transport', passed: false, json_pointer: null, expected: null, actual: null, request: null, response: null }),
    ]);
  });

  it('a step the budget did not reach is skipped, saying what to supply', () => {
    const run = {
      ...base,
      checks: [check({ outcome: 'gap', gap: 'run budget', not_run: true, message: 'not run: the run budget ran out', storyboard_step: ref })],
    };
    expect(toRunnerOutput(run).step_results[0].skip).toEqual({
      reason: 'unsatisfied_contract',
      detail: 'not run: the run budget ran out before this step (not run: the run budget ran out); supply a larger --budget-s',
    });
  });
});
