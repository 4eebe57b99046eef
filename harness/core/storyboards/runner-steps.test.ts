/**
 * Runner-side storyboard steps against the real mock seller on loopback, over MCP and A2A, with the
 * fixture bundle in testing/runner-steps/: test kits (task names, values, credentials, skip_if)
 * and steps calling with their own credentials.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { certifyMock } from '../../../suites/testing/mock-run.js';
import type { RunResult } from '../engine/result.js';
import { compileStoryboards } from './compile.js';
import { loadStoryboardBundle } from './load.js';
import { phaseSkip, taskOf, testKitOf } from './test-kits.js';
import { UnresolvedSubstitution } from './substitute.js';

const BUNDLE = join(import.meta.dirname, 'testing', 'runner-steps');
const bundle = loadStoryboardBundle(BUNDLE);
const catalog = compileStoryboards(bundle);

function runWith(faults: string[], suites = catalog.suites): Promise<RunResult> {
  return certifyMock({ token: 'adcp', catalog, suites, mock: { kinds: ['media-buy'], faults } });
}

const check = (run: RunResult, id: string, transport: string) => run.checks.find((c) => c.check_id === `storyboard.${id}` && c.transport === transport);
const outcome = (run: RunResult, id: string, transport: string) => {
  const c = check(run, id, transport);
  return c ? `${c.outcome}${c.blocked_by ? ` by ${c.blocked_by}` : ''}` : 'missing';
};

let run: RunResult;
beforeAll(async () => {
  run = await runWith([]);
}, 120_000);

describe('test kits', () => {
  it("are read from the bundle's test-kits/ and found by path, file name or id", () => {
    expect(bundle.testKits.map((k) => [k.file, k.id])).toEqual([
      ['test-kits/hooks-runner.yaml', 'hooks_runner'],
      ['test-kits/probe-brand.yaml', 'probe_brand'],
    ]);
    const gaps = bundle.storyboards.get('kit_gaps')!;
    expect(testKitOf(bundle, gaps).kit?.id).toBe('hooks_runner');
    expect(testKitOf(bundle, bundle.storyboards.get('credentials')!).kit?.id).toBe('probe_brand');
    expect(testKitOf(bundle, { ...gaps, raw: { prerequisites: { test_kit: 'hooks_runner' } } }).kit?.file).toBe('test-kits/hooks-runner.yaml');
    expect(testKitOf(bundle, { ...gaps, raw: {} })).toEqual({});
  });

  it('name the task of a $test_kit step, falling back on task_default; neither is an unresolved_substitution naming the kit', () => {
    const gaps = bundle.storyboards.get('kit_gaps')!;
    const kit = testKitOf(bundle, gaps);
    const step = gaps.phases[0]!.steps[0]!;
    const withDefault = { ...step, raw: { task_default: 'get_products' } };
    expect(taskOf({ ...step, task: '$test_kit.operations.primary_webhook_emitter' }, kit)).toBe('create_media_buy');
    expect(taskOf(withDefault, kit)).toBe('get_products');
    expect(() => taskOf(step, kit)).toThrow(UnresolvedSubstitution);
    expect(() => taskOf(step, {})).toThrow(/names no test kit/);
    expect(() => taskOf(step, { named: 'test-kits/gone.yaml' })).toThrow(/test-kits\/gone.yaml is not in the bundle/);
  });

  it('skip a phase by skip_if: [!]test_kit.<path>; other expressions run it', () => {
    const creds = bundle.storyboards.get('credentials')!;
    const kit = testKitOf(bundle, creds);
    const phase = (id: string) => creds.phases.find((p) => p.id === id)!;
    expect(phaseSkip(phase('with_key'), kit)).toBeUndefined();
    expect(phaseSkip(phase('without_principal'), kit)).toMatch(/the test kit test-kits\/probe-brand.yaml has auth.api_key/);
    expect(phaseSkip(phase('with_key'), {})).toMatch(/no test kit has no auth.api_key/);
    expect(phaseSkip({ ...phase('with_key'), raw: { skip_if: "agent.webhook_auth_mode == 'hmac_legacy'" } }, kit)).toBeUndefined();
  });

  it.each(['mcp', 'a2a'])('leave what the kit lacks a gap naming the kit and path, never a failure (%s)', (t) => {
    for (const [step, path] of [
      ['no_task', 'operations.secondary_emitter'],
      ['no_key', 'auth.api_key'],
      ['no_value', 'brand.house.domain'],
    ]) {
      const c = check(run, `kit_gaps.gaps.${step}`, t)!;
      expect([c.outcome, c.gap, c.message]).toEqual([
        'gap',
        'storyboard test kit',
        `unresolved_substitution: $test_kit.${path} (the test kit test-kits/hooks-runner.yaml has no ${path})`,
      ]);
    }
  });
});

describe('steps with their own credentials', () => {
  it.each(['mcp', 'a2a'])('call with none, the kit key or random invalid ones, which the mock refuses as the steps expect (%s)', (t) => {
    for (const [id, note] of [
      ['no_credentials', 'called with no credentials (auth: none)'],
      ['kit_key', "called with the test kit's auth.api_key as the bearer token"],
      ['random_key', 'called with a random invalid API key (random_invalid)'],
      ['random_jwt', 'called with a random JWT-shaped bearer token whose signature is random (random_invalid_jwt)'],
    ]) {
      const c = check(run, `credentials.probes.${id}`, t)!;
      expect([id, c.outcome]).toEqual([id, 'pass']);
      expect(c.message).toBe(`${note}; 1 validations passed, 0 failed, 0 not applicable`);
    }
    expect(outcome(run, 'credentials.probes.own_token', t)).toBe('pass');
  });

  it('send the kit key, refused with 401, and keep it out of the evidence', () => {
    const c = check(run, 'credentials.key_path.key_accepted', 'mcp')!;
    const call = c.evidence?.exchanges.at(-1);
    expect([call?.request.headers.authorization, call?.response?.status]).toEqual([expect.stringMatching(/^Bearer <redacted:[0-9a-f]+>$/), 401]);
    expect(JSON.stringify(c.evidence)).not.toContain('demo-probe-brand-v1');
  });

  it('are not applicable for an auth shape the harness does not send, naming it', () => {
    expect(check(run, 'credentials.probes.literal', 'mcp')).toMatchObject({
      outcome: 'not_applicable',
      message:
        'the step\'s auth {"type":"api_key","value":"not-allowed-in-storyboards"} carries a literal value, which the storyboard schema disallows (use from_test_kit or value_strategy)',
    });
  });

  it('skip a phase by the kit, and count a contribution only when its contributes_if step passed', () => {
    expect(outcome(run, 'credentials.with_key.runs', 'mcp')).toBe('pass');
    expect(outcome(run, 'credentials.without_principal.skipped', 'mcp')).toBe('not_applicable');
    expect(outcome(run, 'credentials.key_path.key_accepted', 'mcp')).toBe('not_applicable');
    expect(outcome(run, 'credentials.key_path.bad_key_refused', 'mcp')).toBe('pass');
    expect(check(run, 'credentials.mechanism.key_verified', 'mcp')).toMatchObject({
      outcome: 'fail',
      message: expect.stringMatching(/^no path contributed key_verified/),
    });
  });
});
