/**
 * Outcome mapping of the check runner, driven by a scripted in-process agent implementing the
 * Transport interface (the end-to-end tests against real servers live with the suites).
 */
import { describe, expect, it } from 'vitest';
import type { TaskReply, Transport } from '../transport/types.js';
import { ScriptedAgent } from './testing/scripted-transport.js';
import type { CheckDef, SuiteDef } from './model.js';
import { preflightPrerequisites, runCheck, skippedResult, type CheckEnv } from './check-runner.js';
import type { CheckResult } from './result.js';
import { protocolIds } from '../token.js';
import { ObservedReplies } from './observed.js';
import { validateSuite } from './loader.js';
import { KindRegistry } from './kinds/registry.js';

const KINDS = new KindRegistry();
import type { AgentProfile } from './profile.js';
import type { SchemaChecker } from './kinds/types.js';
import { FactStore, RunResources } from './resources.js';

const noSchemas: SchemaChecker = {
  validateTaskResponse: () => ({ valid: true, errors: [] }),
  validate: () => ({ valid: true, errors: [] }),
  hasTaskSchema: () => true,
  taskSchemaName: (task) => `${task}-response`,
  hasSchema: () => true,
};

function env(transport: Transport, profile: Partial<AgentProfile> = {}, signal = new AbortController().signal): CheckEnv {
  return {
    transport,
    profile: {
      transport: transport.kind,
      offered: true,
      reachable: true,
      authRequired: false,
      tasks: ['get_products'],
      authTokenSet: false,
      capabilities: { feature: { on: true } },
      ...profile,
    },
    ids: protocolIds('proto'),
    target: '3.1',
    seed: '42',
    runStartedAt: new Date('2026-11-22T00:00:00Z'),
    signal,
    observed: new ObservedReplies(),
    schemas: noSchemas,
    resources: new RunResources(),
    run: { seed: '42' },
    kinds: KINDS,
    facts: new FactStore(),
  };
}

function suiteWith(check: Omit<CheckDef, 'spec' | 'title'> & Partial<CheckDef>): { suite: SuiteDef; check: CheckDef } {
  const suite = validateSuite(
    { id: 'demo', title: 'Demo', checks: [{ title: 'a check', spec: { doc: 'interface-spec', section: '7' }, ...check }] },
    'test',
    KINDS,
  );
  return { suite, check: suite.checks[0] };
}

const ok = (payload: unknown): Partial<TaskReply> => ({ payload });
const err = (code: string): Partial<TaskReply> => ({
  ok: false,
  isError: true,
  status: 'failed',
  error: { code, message: `${code}!`, source: 'is_error_text', raw: { code, message: `${code}!` } },
});

describe('check runner outcomes', () => {
  it('passes when every probe expectation holds', async () => {
    const agent = new ScriptedAgent('mcp', () => ok({ value: 3 }));
    const { suite, check } = suiteWith({
      id: 'demo.a.pass',
      level: 'MUST',
      steps: [{ kind: 'call', task: 'get_products', expect: [{ kind: 'field', path: '/value', equals: 3 }] }],
    });
    const r = await runCheck(suite, check, env(agent));
    expect(r.outcome).toBe('pass');
    expect(r.evidence).toBeUndefined();
  });

  it('maps a failed probe to fail / warn / info by level, with evidence', async () => {
    for (const [level, outcome] of [
      ['MUST', 'fail'],
      ['SHOULD', 'warn'],
      ['MAY', 'info'],
    ] as const) {
      const agent = new ScriptedAgent('mcp', () => ok({ value: 4 }));
      const { suite, check } = suiteWith({
        id: 'demo.a.level',
        level,
        steps: [{ kind: 'call', task: 'get_products', expect: [{ kind: 'field', path: '/value', equals: 3 }] }],
      });
      const r = await runCheck(suite, check, env(agent));
      expect(r.outcome).toBe(outcome);
      expect(r.evidence).toMatchObject({ expected: 3, actual: 4, pointer: '/value' });
      expect(r.message).toContain('/value');
    }
  });

  it('a failed setup step blocks the check by its prerequisite, never a pass', async () => {
    const agent = new ScriptedAgent('mcp', (task) => (task === 'get_products' ? err('INTERNAL') : ok({})));
    const { suite, check } = suiteWith({
      id: 'demo.a.setup',
      level: 'MUST',
      steps: [
        { kind: 'call', role: 'setup', task: 'get_products', prerequisite: 'setup.products.offered' },
        { kind: 'call', task: 'create_media_buy' },
      ],
    });
    const r = await runCheck(suite, check, env(agent));
    expect(r).toMatchObject({ outcome: 'blocked', blocked_by: 'setup.products.offered' });
    expect(r.message).toMatch(/^blocked by setup\.products\.offered: setup step 1 failed: get_products/);
    expect(r.evidence).toBeDefined();
    expect(agent.calls).toHaveLength(1);
  });

  it('a failed setup step that names no prerequisite is a harness error (the suite must name one)', async () => {
    const agent = new ScriptedAgent('mcp', () => err('INTERNAL'));
    const { suite, check } = suiteWith({ id: 'demo.a.unnamed', level: 'MUST', steps: [{ kind: 'call', role: 'setup', task: 'get_products' }] });
    expect(await runCheck(suite, check, env(agent))).toMatchObject({ outcome: 'error' });
  });

  it('a check whose prerequisite did not pass is not run: blocked by the root, a gap or not applicable', async () => {
    const agent = new ScriptedAgent('mcp', () => ok({}));
    const { suite, check } = suiteWith({ id: 'demo.a.needs', level: 'MUST', steps: [{ kind: 'call', task: 'x', prerequisite: 'setup.p.q' }] });
    const e = env(agent);
    const prior =
      (outcome: CheckResult['outcome'], extra: Partial<CheckResult> = {}) =>
      () =>
        ({ ...skippedResult(suite, check, e, outcome, `prior ${outcome}`), check_id: 'setup.p.q', ...extra }) as CheckResult;
    expect(preflightPrerequisites(suite, check, e, ['setup.p.q'], prior('fail'))).toMatchObject({
      outcome: 'blocked',
      blocked_by: 'setup.p.q',
      message: 'blocked by setup.p.q: prior fail',
    });
    expect(preflightPrerequisites(suite, check, e, ['setup.p.q'], prior('blocked', { blocked_by: 'setup.root' }))).toMatchObject({
      outcome: 'blocked',
      blocked_by: 'setup.root',
    });
    expect(preflightPrerequisites(suite, check, e, ['setup.p.q'], prior('gap', { gap: 'test controller' }))).toMatchObject({
      outcome: 'gap',
      gap: 'test controller',
    });
    expect(preflightPrerequisites(suite, check, e, ['setup.p.q'], prior('not_applicable'))).toMatchObject({ outcome: 'not_applicable' });
    expect(preflightPrerequisites(suite, check, e, ['setup.p.q'], prior('pass'))).toBeUndefined();
    expect(preflightPrerequisites(suite, check, e, ['setup.p.q'], () => undefined)).toBeUndefined();
    expect(agent.calls).toHaveLength(0);
  });

  it('an unresolved template without a prerequisite to blame is a harness error, never a pass', async () => {
    const agent = new ScriptedAgent('mcp', () => ok({ products: [] }));
    const { suite, check } = suiteWith({
      id: 'demo.a.template',
      level: 'MUST',
      steps: [
        { kind: 'call', id: 'p', task: 'get_products' },
        { kind: 'call', task: 'create_media_buy', args: { product_id: '{{steps.p.payload.products.0.product_id}}' } },
      ],
    });
    const r = await runCheck(suite, check, env(agent));
    expect(r.outcome).toBe('error');
    expect(r.message).toMatch(/unresolved substitution/);
  });

  it('applies_when false → not_applicable with the reason; requires false → a coverage gap', async () => {
    const agent = new ScriptedAgent('mcp', () => ok({}));
    const a = suiteWith({
      id: 'demo.a.na',
      level: 'MUST',
      applies_when: { capability: '/missing' },
      not_applicable_reason: 'nothing declared',
      steps: [{ kind: 'call', task: 'x' }],
    });
    expect(await runCheck(a.suite, a.check, env(agent))).toMatchObject({ outcome: 'not_applicable', message: 'nothing declared' });
    const b = suiteWith({
      id: 'demo.a.nt',
      level: 'MUST',
      requires: { capability: '/feature/on', equals: false },
      requires_feature: 'feature off',
      steps: [{ kind: 'call', task: 'x' }],
    });
    const rb = await runCheck(b.suite, b.check, env(agent));
    expect(rb).toMatchObject({ outcome: 'gap', gap: 'feature off' });
    expect(rb.message).toMatch(/feature\/on/);
    expect(agent.calls).toHaveLength(0);
  });

  it('agent_card conditions read the A2A agent card (none over MCP)', async () => {
    const { suite, check } = suiteWith({
      id: 'demo.a.card',
      level: 'MUST',
      applies_when: { agent_card: '/capabilities/pushNotifications', equals: true },
      not_applicable_reason: 'no A2A push',
      steps: [{ kind: 'call', task: 'x' }],
    });
    const card = (push: unknown) => ({ open: { transport: 'a2a' as const, exchanges: [], agentCard: { capabilities: { pushNotifications: push } } } });
    expect((await runCheck(suite, check, env(new ScriptedAgent('a2a', () => ok({})), card(true)))).outcome).toBe('pass');
    expect(await runCheck(suite, check, env(new ScriptedAgent('a2a', () => ok({})), card(false)))).toMatchObject({
      outcome: 'not_applicable',
      message: 'no A2A push',
    });
    expect((await runCheck(suite, check, env(new ScriptedAgent('mcp', () => ok({}))))).outcome).toBe('not_applicable');
  });

  it('push_channel: the protocol registration is a call option on both transports; a2a-native only on A2A', async () => {
    const push = { url: 'https://buyer.example/h', operation_id: 'op' };
    const { suite, check } = suiteWith({
      id: 'demo.a.push',
      level: 'MUST',
      steps: [
        { kind: 'call', task: 'x', push_notification_config: push },
        { kind: 'call', task: 'y', push_notification_config: push, push_channel: 'a2a-native' },
      ],
    });
    const a2a = new ScriptedAgent('a2a', () => ok({}));
    expect((await runCheck(suite, check, env(a2a))).outcome).toBe('pass');
    expect(a2a.calls.map((c) => [c.options.pushNotificationConfig, c.options.a2aPushNotificationConfig])).toEqual([
      [push, undefined],
      [undefined, push],
    ]);
    const mcp = new ScriptedAgent('mcp', () => ok({}));
    expect(await runCheck(suite, check, env(mcp))).toMatchObject({ outcome: 'not_applicable', message: expect.stringMatching(/only on A2A/) });
    expect(mcp.calls).toHaveLength(1);
  });

  it('transport filters and unusable transports', async () => {
    const agent = new ScriptedAgent('a2a', () => ok({}));
    const a = suiteWith({ id: 'demo.a.mcponly', level: 'MUST', transports: ['mcp'], steps: [{ kind: 'call', task: 'x' }] });
    expect((await runCheck(a.suite, a.check, env(agent))).outcome).toBe('not_applicable');
    const b = suiteWith({ id: 'demo.a.down', level: 'MUST', steps: [{ kind: 'call', task: 'x' }] });
    expect(await runCheck(b.suite, b.check, env(agent, { reachable: false, problem: 'down' }))).toMatchObject({
      outcome: 'blocked',
      blocked_by: 'transport.a2a',
    });
    expect(await runCheck(b.suite, b.check, env(agent, { offered: false, problem: 'no agent card' }))).toMatchObject({ outcome: 'gap', gap: 'a2a transport' });
  });

  it('an unreachable agent mid-check blocks the check by the transport, a 5xx is a failure', async () => {
    const down = new ScriptedAgent('mcp', () => ({ ok: false, failure: { kind: 'network', message: 'ECONNREFUSED' } }));
    const { suite, check } = suiteWith({ id: 'demo.a.net', level: 'MUST', steps: [{ kind: 'call', task: 'get_products' }] });
    expect(await runCheck(suite, check, env(down))).toMatchObject({ outcome: 'blocked', blocked_by: 'transport.mcp' });
    const crash = new ScriptedAgent('mcp', () => ({ ok: false, failure: { kind: 'http_status', httpStatus: 500, message: 'HTTP 500' } }));
    expect((await runCheck(suite, check, env(crash))).outcome).toBe('fail');
  });

  it('a run budget that runs out marks the check not run', async () => {
    const ctl = new AbortController();
    const agent = new ScriptedAgent('mcp', () => {
      ctl.abort();
      return ok({});
    });
    const { suite, check } = suiteWith({
      id: 'demo.a.budget',
      level: 'MUST',
      steps: [
        { kind: 'call', task: 'a' },
        { kind: 'call', task: 'b' },
      ],
    });
    const r = await runCheck(suite, check, env(agent, {}, ctl.signal));
    expect(r).toMatchObject({ outcome: 'gap', not_run: true, gap: 'run budget' });
  });

  it('a harness exception is an error outcome, not a failure of the agent', async () => {
    const agent = new ScriptedAgent('mcp', () => {
      throw new Error('boom');
    });
    const { suite, check } = suiteWith({ id: 'demo.a.error', level: 'MUST', steps: [{ kind: 'call', task: 'a' }] });
    const r = await runCheck(suite, check, env(agent));
    expect(r.outcome).toBe('error');
    expect(r.message).toMatch(/boom/);
  });

  it('generates the same keys for the same seed and check, different ones across checks', async () => {
    const seen: unknown[] = [];
    const agent = new ScriptedAgent('mcp', (_t, args) => {
      seen.push(args.key);
      return ok({});
    });
    const a = suiteWith({
      id: 'demo.a.keys',
      level: 'MUST',
      steps: [
        { kind: 'call', task: 't', args: { key: '{{uuid:k}}' } },
        { kind: 'call', task: 't', args: { key: '{{uuid:k}}' } },
      ],
    });
    await runCheck(a.suite, a.check, env(agent));
    await runCheck(a.suite, a.check, env(agent));
    const b = suiteWith({ id: 'demo.a.other', level: 'MUST', steps: [{ kind: 'call', task: 't', args: { key: '{{uuid:k}}' } }] });
    await runCheck(b.suite, b.check, env(agent));
    expect(seen[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).toBe(seen[0]);
    expect(seen[3]).toBe(seen[0]);
    expect(seen[4]).not.toBe(seen[0]);
  });
});

describe('check runner under a compliance target (harness/core/protocol/lines.ts)', () => {
  const atTarget = (agent: Transport, target: CheckEnv['target']) => ({ ...env(agent), target });

  it('a check of other lines is not applicable, naming the lines, and calls nothing', async () => {
    const agent = new ScriptedAgent('mcp', () => ok({ value: 3 }));
    const { suite, check } = suiteWith({ id: 'demo.v.later', level: 'MUST', lines: ['3.1', '3.2'], steps: [{ kind: 'call', task: 'get_products' }] });
    const r = await runCheck(suite, check, atTarget(agent, '3.0'));
    expect(r).toMatchObject({ outcome: 'not_applicable', lines: ['3.1', '3.2'] });
    expect(r.message).toBe('not a rule of the 3.0 line: the rule belongs to 3.1 and later');
    expect(agent.calls).toHaveLength(0);
    expect((await runCheck(suite, check, atTarget(agent, '3.1'))).outcome).toBe('pass');
  });

  it("judges the target's shape: steps and expectations of other lines are skipped", async () => {
    const agent = new ScriptedAgent('mcp', () => ok({ status: 'active' }));
    const { suite, check } = suiteWith({
      id: 'demo.v.shape',
      level: 'MUST',
      steps: [
        {
          kind: 'call',
          task: 'create_media_buy',
          expect: [
            { kind: 'field', path: '/status', equals: 'active', lines: ['3.0', '3.1'] },
            { kind: 'field', path: '/media_buy_status', equals: 'active', lines: ['3.2'] },
          ],
        },
        { kind: 'call', task: 'only_in_32', lines: ['3.2'] },
      ],
    });
    expect((await runCheck(suite, check, atTarget(agent, '3.0'))).outcome).toBe('pass');
    expect(agent.calls.map((c) => c.task)).toEqual(['create_media_buy']);
    const r = await runCheck(suite, check, atTarget(agent, '3.2'));
    expect(r.outcome).toBe('fail');
    expect(r.message).toContain('/media_buy_status');
  });

  it('refuses a line that is not a protocol line at load', () => {
    expect(() => suiteWith({ id: 'demo.v.bad', level: 'MUST', lines: ['4.0' as never], steps: [{ kind: 'call', task: 'x' }] })).toThrow(/lines/);
    expect(() => suiteWith({ id: 'demo.v.bad2', level: 'MUST', steps: [{ kind: 'call', task: 'x', lines: ['3' as never] }] })).toThrow(/lines/);
  });

  it('carries the interpretation note into every result of the check', async () => {
    const agent = new ScriptedAgent('mcp', () => ok({ value: 4 }));
    const interpretation = { spec_text: 'interface spec 7: INVALID_REQUEST: bad input', reading: 'an unknown product is bad input' };
    const { suite, check } = suiteWith({
      id: 'demo.v.reading',
      level: 'SHOULD',
      interpretation,
      steps: [{ kind: 'call', task: 'get_products', expect: [{ kind: 'field', path: '/value', equals: 3 }] }],
    });
    expect(await runCheck(suite, check, env(agent))).toMatchObject({ outcome: 'warn', interpretation });
  });
});

describe('expectations owned by another check (one failure per defect)', () => {
  it("a failed expectation of another check's rule blocks the check by it; its own expectations still fail it", async () => {
    const readBack = (payload: unknown) =>
      suiteWith({
        id: 'demo.o.replay',
        level: 'MUST',
        steps: [
          {
            kind: 'call',
            task: 'get_media_buys',
            expect: [
              { kind: 'success', owner: 'demo.o.read' },
              { kind: 'count_matching', in: '/media_buys', where: { '/media_buy_id': 'mb_1' }, at_least: 1, owner: 'demo.o.read' },
              { kind: 'count_matching', in: '/media_buys', where: { '/media_buy_id': 'mb_1' }, equals: 1 },
            ],
          },
        ],
      });
    const { suite, check } = readBack(undefined);
    const failing = await runCheck(suite, check, env(new ScriptedAgent('mcp', () => err('VALIDATION_ERROR'))));
    expect(failing).toMatchObject({ outcome: 'blocked', blocked_by: 'demo.o.read' });
    expect(failing.message).toMatch(/^blocked by demo\.o\.read: step 1 could not be carried out: get_media_buys: .*\(the rule of demo\.o\.read\)$/);
    const empty = await runCheck(suite, check, env(new ScriptedAgent('mcp', () => ok({ media_buys: [] }))));
    expect(empty).toMatchObject({ outcome: 'blocked', blocked_by: 'demo.o.read' });
    const twice = await runCheck(suite, check, env(new ScriptedAgent('mcp', () => ok({ media_buys: [{ media_buy_id: 'mb_1' }, { media_buy_id: 'mb_1' }] }))));
    expect(twice.outcome).toBe('fail');
    const once = await runCheck(suite, check, env(new ScriptedAgent('mcp', () => ok({ media_buys: [{ media_buy_id: 'mb_1' }] }))));
    expect(once.outcome).toBe('pass');
  });

  it('the owning check itself fails on its own expectation', async () => {
    const { suite, check } = suiteWith({
      id: 'demo.o.read',
      level: 'MUST',
      steps: [{ kind: 'call', task: 'get_media_buys', expect: [{ kind: 'success', owner: 'demo.o.read' }] }],
    });
    expect((await runCheck(suite, check, env(new ScriptedAgent('mcp', () => err('VALIDATION_ERROR'))))).outcome).toBe('fail');
  });

  it('assert with else_not_applicable: a rule of an optional member that is absent does not apply', async () => {
    const { suite, check } = suiteWith({
      id: 'demo.o.optional',
      level: 'MUST',
      steps: [
        { kind: 'call', id: 'create', task: 'create_media_buy' },
        {
          kind: 'assert',
          step: 'create',
          expect: [{ kind: 'field', path: '/revision', type: 'integer' }],
          else_not_applicable: 'revision is optional in 3.0 and absent',
        },
        { kind: 'assert', step: 'create', expect: [{ kind: 'field', path: '/revision', equals: 1 }] },
      ],
    });
    const absent = await runCheck(suite, check, env(new ScriptedAgent('mcp', () => ok({}))));
    expect(absent.outcome).toBe('not_applicable');
    expect(absent.message).toMatch(/^revision is optional in 3\.0 and absent \(/);
    expect((await runCheck(suite, check, env(new ScriptedAgent('mcp', () => ok({ revision: 2 }))))).outcome).toBe('fail');
    expect((await runCheck(suite, check, env(new ScriptedAgent('mcp', () => ok({ revision: 1 }))))).outcome).toBe('pass');
  });

  it('assert with else_gap: a state the check needs to observe its rule, not shown, is a coverage gap', async () => {
    const { suite, check } = suiteWith({
      id: 'demo.o.observable',
      level: 'MUST',
      steps: [
        { kind: 'call', id: 'before', task: 'get_media_buys' },
        {
          kind: 'assert',
          step: 'before',
          expect: [{ kind: 'field', path: '/status', equals: 'pending_start' }],
          else_gap: { gap: 'a pending buy', reason: 'the buy is not pending, so its start cannot be seen' },
        },
        { kind: 'call', task: 'get_media_buys', expect: [{ kind: 'field', path: '/status', equals: 'active' }] },
      ],
    });
    const started = await runCheck(suite, check, env(new ScriptedAgent('mcp', () => ok({ status: 'active' }))));
    expect(started).toMatchObject({ outcome: 'gap', gap: 'a pending buy' });
    expect(started.message).toMatch(/^the buy is not pending, so its start cannot be seen \(/);
    let n = 0;
    const moves = () => ok({ status: n++ === 0 ? 'pending_start' : 'active' });
    expect((await runCheck(suite, check, env(new ScriptedAgent('mcp', moves)))).outcome).toBe('pass');
    const stuck = await runCheck(suite, check, env(new ScriptedAgent('mcp', () => ok({ status: 'pending_start' }))));
    expect(stuck.outcome).toBe('fail');
  });
});

describe('call steps that turn a reply into a coverage gap', () => {
  const gapped = (payload: unknown, step: Record<string, unknown>) => {
    const { suite, check } = suiteWith({
      id: 'demo.gap.reply',
      level: 'MUST',
      steps: [{ kind: 'call', task: 'get_products', expect: [{ kind: 'field', path: '/error', if_present: true, not_equals: 'INVALID_PARAMS' }], ...step }],
    });
    return runCheck(suite, check, env(new ScriptedAgent('mcp', () => ok(payload))));
  };
  const controllerGap = { gap_if_controller_error: { errors: 'UNKNOWN_SCENARIO', gap: 'scenario', because: 'not offered' } };
  const unless = { gap_unless: { expect: [{ kind: 'field', path: '/sandbox', equals: false }], gap: 'live account', because: 'not recorded so' } };

  it('gap_if_controller_error: a matching controller error is a gap, another is judged', async () => {
    expect(await gapped({ success: false, error: 'UNKNOWN_SCENARIO' }, controllerGap)).toMatchObject({ outcome: 'gap', gap: 'scenario' });
    expect((await gapped({ success: false, error: 'INVALID_PARAMS' }, controllerGap)).outcome).toBe('fail');
    expect((await gapped({ success: true }, controllerGap)).outcome).toBe('pass');
  });

  it('gap_unless: a reply that does not show the situation is a gap; one that does is judged', async () => {
    expect(await gapped({ sandbox: true }, unless)).toMatchObject({ outcome: 'gap', gap: 'live account' });
    expect((await gapped({ sandbox: false }, unless)).outcome).toBe('pass');
    expect((await gapped({ sandbox: false, error: 'INVALID_PARAMS' }, unless)).outcome).toBe('fail');
  });
});
