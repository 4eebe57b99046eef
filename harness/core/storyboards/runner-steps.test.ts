/**
 * Runner-side storyboard steps against the real mock seller on loopback, over MCP and A2A, with the
 * fixture bundle in testing/runner-steps/: test kits (task names, values, credentials, skip_if),
 * the webhook pseudo-tasks at the harness's receiver (a delivery, its signature, retries with a
 * stable key, silence, a delivery that never comes within its bounded window), and steps calling
 * with their own credentials. Mock faults that break webhook signing or retries fail the steps
 * that judge them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { certifyMock } from '../../../suites/testing/mock-run.js';
import type { RunResult } from '../engine/result.js';
import type { CheckContext } from '../engine/kinds/types.js';
import { protocolIds } from '../token.js';
import { compileStoryboards } from './compile.js';
import { loadStoryboardBundle } from './load.js';
import { receiverScope } from './runner-webhooks.js';
import { storyboardState } from './state.js';
import { phaseSkip, taskOf, testKitOf } from './test-kits.js';
import { UnresolvedSubstitution } from './substitute.js';

const BUNDLE = join(import.meta.dirname, 'testing', 'runner-steps');
const bundle = loadStoryboardBundle(BUNDLE);
const catalog = compileStoryboards(bundle);
const only = (...ids: string[]) => catalog.suites.filter((s) => ids.includes(s.id));

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

describe('webhook steps at the harness receiver', () => {
  it('run with no harness error', () => {
    expect(run.harness_error).toBeUndefined();
    expect(run.checks.filter((c) => c.outcome === 'error')).toEqual([]);
  });

  it.each(['mcp', 'a2a'])('pass on a seller that delivers, signs and retries (%s)', (t) => {
    for (const id of ['arm', 'create', 'complete', 'arrived', 'signed', 'once']) expect(outcome(run, `hooks.delivered.${id}`, t), id).toBe('pass');
    for (const id of ['arm_retry', 'create_retry', 'complete_retry', 'keys_stable']) expect(outcome(run, `hooks.retried.${id}`, t), id).toBe('pass');
    expect(check(run, 'hooks.retried.keys_stable', t)?.message).toMatch(/^3 matching of 3 deliveries to the URL step create_retry sent/);
  });

  it.each(['mcp', 'a2a'])('hold no_webhook for a create answered inline, and fail an awaited one when its bounded window ends (%s)', (t) => {
    expect(outcome(run, 'hook_misses.inline.silent', t)).toBe('pass');
    const awaited = check(run, 'hook_misses.inline.awaited', t)!;
    expect([awaited.outcome, awaited.message]).toEqual(['fail', 'no_webhook_received: no matching delivery arrived within 1 s']);
    expect(awaited.duration_ms).toBeLessThan(5_000);
    // The runner output fails a step on a failed validation: the assertion is recorded as one.
    expect(awaited.storyboard_step?.validations).toEqual([
      expect.objectContaining({ check: 'expect_webhook', outcome: 'failed', message: 'no_webhook_received: no matching delivery arrived within 1 s' }),
    ]);
  });

  it('are blocked by a trigger that did not pass', () => {
    const hooks = catalog.suites.find((s) => s.id === 'storyboard.hooks')!;
    expect(hooks.checks.find((c) => c.id === 'storyboard.hooks.delivered.signed')?.steps[0]?.prerequisite).toBe('storyboard.hooks.delivered.create');
  });

  it('fail the signature step when the seller signs with a key it does not publish', async () => {
    const faulty = await runWith(['webhook-key-unpublished'], only('storyboard.hooks'));
    for (const t of ['mcp', 'a2a']) {
      expect(outcome(faulty, 'hooks.delivered.arrived', t)).toBe('pass');
      const signed = check(faulty, 'hooks.delivered.signed', t)!;
      expect(signed.outcome).toBe('fail');
      expect(signed.message).toMatch(/^signature_key_unknown: delivery 1 does not verify under the RFC 9421 webhook profile/);
      expect(signed.evidence?.exchanges.map((x) => [x.purpose.replace(/capture \w+/, 'capture'), x.response?.status])).toEqual([
        ['webhook received by the harness (capture, delivery 1)', 200],
      ]);
    }
  }, 60_000);

  it('fail retry stability when the seller rotates the key, or reuses the nonce, across retries', async () => {
    const faulty = await runWith(['webhook-key-rotated-on-retry'], only('storyboard.hooks'));
    expect(check(faulty, 'hooks.retried.keys_stable', 'mcp')?.message).toBe(
      'idempotency_key_rotated: the retries of one event carry different idempotency_keys',
    );
    const replayed = await runWith(['webhook-nonce-reused'], only('storyboard.hooks'));
    expect(check(replayed, 'hooks.retried.keys_stable', 'mcp')?.message).toMatch(/^signature_replayed: delivery 2 /);
    expect(outcome(replayed, 'hooks.delivered.signed', 'mcp')).toBe('pass');
  }, 60_000);

  it('are a gap naming what to supply when the seller is not on this machine and no public receiver URL is set', async () => {
    const ids = protocolIds('adcp');
    const resources = new Map<string, unknown>();
    const ctx = {
      ids,
      kind: 'mcp',
      transport: { endpoint: 'https://seller.example.com/mcp' },
      resources: { get: async (k: string, make: () => Promise<{ value: unknown }>) => resources.get(k) ?? (await make()).value },
    } as unknown as CheckContext;
    const sb = bundle.storyboards.get('hooks')!;
    const state = await storyboardState(ctx, sb.id);
    const create = sb.phases[0]!.steps.find((s) => s.id === 'create')!;
    const saved = process.env[ids.runnerWebhookEnv];
    delete process.env[ids.runnerWebhookEnv];
    try {
      expect(await receiverScope(ctx, sb, 'create', state, create.sampleRequest)).toMatchObject({
        status: 'gap',
        gap: 'public webhook receiver URL',
        message: expect.stringContaining(`set ${ids.runnerWebhookEnv} to a public https URL`),
      });
      expect(await receiverScope(ctx, sb, 'arm', state, { no: 'receiver' })).toEqual({});
    } finally {
      if (saved !== undefined) process.env[ids.runnerWebhookEnv] = saved;
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

describe('parallel dispatches', () => {
  it.each(['mcp', 'a2a'])('resolve concurrent same-key creates to one buy on a seller that claims the key in flight (%s)', (t) => {
    const c = check(run, 'concurrent.race.create_twice', t)!;
    expect(c.outcome).toBe('pass');
    expect(c.message).toMatch(/^parallel_dispatch: 3 calls at once, sent \d, \d, \d time\(s\) each; 3 validations passed/);
    expect(c.storyboard_step?.validations?.map((v) => [v.check, v.outcome])).toEqual([
      ['field_present', 'passed'],
      ['cross_response_field_equal', 'passed'],
      ['cross_response_count_distinct', 'passed'],
    ]);
  });

  it('fail the cross-response checks on a seller whose concurrent creates each make a buy', async () => {
    const faulty = await runWith(['concurrent-double-create'], only('storyboard.concurrent'));
    for (const t of ['mcp', 'a2a']) {
      const c = check(faulty, 'concurrent.race.create_twice', t)!;
      expect(c.outcome).toBe('fail');
      expect(c.message).toMatch(
        /cross_response_field_equal \(every dispatch resolves to the same buy\): the resolved dispatches carry [23] different values at media_buy_id/,
      );
      expect(c.message).toMatch(
        /cross_response_count_distinct \(exactly one buy is created\): [23] distinct value\(s\) at media_buy_id across 3 resolved dispatches, expected 1/,
      );
    }
  }, 60_000);

  it('send a dispatch refused while the key is in flight again after its retry_after, with the same key', async () => {
    const retried = await runWith(['in-flight-unavailable'], only('storyboard.concurrent'));
    const c = check(retried, 'concurrent.race.create_twice', 'mcp')!;
    expect(c.outcome).toBe('pass');
    expect(c.message).toMatch(/sent (1|2), (1|2), (1|2) time\(s\) each/);
    expect(c.message).toMatch(/\b2\b.*time\(s\) each/);
  }, 60_000);

  it('are not applicable with a count outside [2, 10], and the cross kinds on a single call', () => {
    expect(check(run, 'concurrent.malformed.one_dispatch', 'mcp')?.message).toBe('parallel_dispatch count must be an integer in [2, 10], got 1');
    const single = check(run, 'concurrent.malformed.single', 'mcp')!;
    expect(single.storyboard_step?.validations).toEqual([
      expect.objectContaining({
        check: 'cross_response_field_equal',
        outcome: 'not_applicable',
        message: 'judged on a parallel_dispatch step only; this step made one call',
      }),
    ]);
  });
});

describe('A2A context continuity', () => {
  const validation = (id: string, t: string) => check(run, `continuity.p.${id}`, t)?.storyboard_step?.validations?.[0];
  it('sends a follow-up with the storyboard’s last A2A contextId, which the agent echoes', () => {
    expect(validation('follow_up', 'a2a')).toMatchObject({ check: 'a2a_context_continuity', outcome: 'passed' });
    expect(check(run, 'continuity.p.follow_up', 'a2a')?.message).toMatch(/message sent with contextId \S+, the storyboard's last A2A context/);
  });
  it('is not applicable on the first A2A step and over MCP', () => {
    expect(validation('first', 'a2a')).toMatchObject({ outcome: 'not_applicable', message: expect.stringMatching(/^no earlier A2A step/) });
    expect(validation('follow_up', 'mcp')).toMatchObject({ outcome: 'not_applicable', message: 'graded on A2A only; this step came over mcp' });
  });
});
