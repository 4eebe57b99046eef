/**
 * The `webhooks` suite against the reference mock seller: every check passes over MCP and A2A,
 * and without a test controller the checks that need one are coverage gaps with the reason.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../harness/certify/index.js';
import { builtinSuites } from '../index.js';
import { startMockSeller } from '../../mocks/seller/index.js';
import { CONTROLLER_FREE_WEBHOOKS, certifyMock, findings } from '../testing/mock-run.js';
import { DEFAULT_TARGET, inLines } from '../../harness/core/protocol/lines.js';

/** Judged on sellers presenting as production only (no test controller declared). */
const PRODUCTION_ONLY = 'webhooks.registration.http-url-refused';

const suite = builtinSuites().suites.find((s) => s.id === 'webhooks')!;
/** Checks of A2A-native push registration: not applicable over MCP. */
const A2A_ONLY = suite.checks.filter((c) => c.transports?.length === 1 && c.transports[0] === 'a2a').map((c) => c.id);

describe('the webhooks suite', () => {
  it('loads, with stable ids, spec references and a check for every area', () => {
    expect(suite).toBeDefined();
    const areas = new Set(suite.checks.map((c) => c.id.split('.')[1]));
    for (const a of ['task', 'envelope', 'a2a', 'signature', 'auth', 'registration', 'retry', 'report', 'state', 'impairment']) expect(areas).toContain(a);
    expect(A2A_ONLY.sort()).toEqual(['webhooks.a2a.both-channels', 'webhooks.a2a.native-delivered', 'webhooks.a2a.native-envelope']);
    for (const c of suite.checks) expect(c.spec.section, c.id).toMatch(/^\d/);
  });

  it('passes every check against the reference mock over MCP and A2A', async () => {
    const run = await certifyMock({ suites: ['webhooks'] });
    expect(findings(run).map((c) => `${c.transport} ${c.check_id}: ${c.message}`)).toEqual([]);
    for (const t of ['mcp', 'a2a']) {
      const passed = run.checks
        .filter((c) => c.transport === t && c.outcome === 'pass' && c.suite_id === 'webhooks')
        .map((c) => c.check_id)
        .sort();
      // Every check of the default target's line, but the production-only one (the mock declares a test controller).
      const expected = suite.checks
        .filter((c) => inLines(DEFAULT_TARGET, c.lines) && c.id !== PRODUCTION_ONLY)
        .map((c) => c.id)
        .filter((id) => t === 'a2a' || !A2A_ONLY.includes(id));
      expect(passed).toEqual(expected.sort());
    }
    for (const id of A2A_ONLY) expect(run.checks.find((c) => c.transport === 'mcp' && c.check_id === id)?.outcome).toBe('not_applicable');
    for (const c of suite.checks.filter((x) => !inLines(DEFAULT_TARGET, x.lines)))
      expect(run.checks.find((r) => r.check_id === c.id)?.message, c.id).toMatch(/^not a rule of the 3\.1 line/);
  });

  it('judges the production-only rule by the lifecycle stage the user gives, or the declaration shows', async () => {
    const outcome = (run: Awaited<ReturnType<typeof certifyMock>>) => run.checks.find((c) => c.check_id === PRODUCTION_ONLY && c.transport === 'mcp');
    const checkGlob = `setup.*,${PRODUCTION_ONLY}`;
    // a test controller declared: a test deployment, unless the user says it is production
    const declared = await certifyMock({ suites: ['setup', 'webhooks'], checkGlob, transports: ['mcp'] });
    expect(outcome(declared)).toMatchObject({ outcome: 'not_applicable' });
    expect(declared.lifecycle_stage).toBe('testing');
    const named = await certifyMock({ suites: ['setup', 'webhooks'], checkGlob, transports: ['mcp'], lifecycleStage: 'production' });
    expect(outcome(named)?.outcome).toBe('pass');
    expect(named.lifecycle_stage).toBe('production');
    // no test controller: production, unless the user says it is a development deployment
    const bare = await certifyMock({ suites: ['setup', 'webhooks'], checkGlob, transports: ['mcp'], mock: { testController: false } });
    expect(outcome(bare)?.outcome).toBe('pass');
    const dev = await certifyMock({
      suites: ['setup', 'webhooks'],
      checkGlob,
      transports: ['mcp'],
      mock: { testController: false },
      lifecycleStage: 'development',
    });
    expect(outcome(dev)?.outcome).toBe('not_applicable');
    expect(outcome(dev)?.message).toMatch(/not a production deployment/);
    expect(dev.lifecycle_stage).toBe('development');
  });

  it('runs a shared flow once per transport for every check that uses it', async () => {
    const lines: string[] = [];
    const seller = await startMockSeller({ allowPrivateWebhooks: true, log: (l) => lines.push(l) });
    try {
      const run = await certify({
        agentUrl: seller.baseUrl,
        suites: ['webhooks'],
        checkGlob: 'webhooks.envelope.*,webhooks.signature.verifies',
        transports: ['mcp'],
        seed: '7',
      });
      // the eleven selected checks pass, and the setup checks they read facts from (account, product) ran first
      expect(run.checks.filter((c) => c.suite_id === 'webhooks' && c.outcome === 'pass').length).toBe(11);
      expect(run.checks.filter((c) => c.suite_id === 'setup').map((c) => `${c.check_id} ${c.outcome}`)).toEqual([
        'setup.account.usable pass',
        'setup.products.offered pass',
      ]);
      // task-completed serves nine of the checks, two-reports the tenth, and envelope.token
      // registers its own token: three creates in all.
      expect(lines.filter((l) => /^mcp create_media_buy /.test(l))).toHaveLength(3);
    } finally {
      await seller.close();
    }
  });

  it('makes controller-driven checks coverage gaps, with the reason, on a seller without a test controller', async () => {
    const run = await certifyMock({ suites: ['webhooks'], mock: { testController: false } });
    const lineOf = new Map(suite.checks.map((c) => [c.id, c.lines] as const));
    for (const c of run.checks.filter((x) => x.suite_id === 'webhooks')) {
      if (!inLines(DEFAULT_TARGET, lineOf.get(c.check_id))) expect(c.outcome, c.check_id).toBe('not_applicable');
      else if (CONTROLLER_FREE_WEBHOOKS.includes(c.check_id)) expect(c.outcome, `${c.transport} ${c.check_id}: ${c.message}`).toBe('pass');
      else if (c.transport === 'mcp' && A2A_ONLY.includes(c.check_id)) expect(c.outcome).toBe('not_applicable');
      else {
        expect(c.outcome, `${c.transport} ${c.check_id}`).toBe('gap');
        expect(c.gap).toMatch(/^test controller/);
        expect(c.message).toMatch(/test controller/);
      }
    }
    expect(run.checks.filter((x) => x.suite_id === 'setup').every((c) => c.outcome === 'pass')).toBe(true);
  });
});
