/**
 * The reference mock seller against every suite: it passes every check over MCP and A2A with
 * the same verdicts, reruns agree, and a seller without a test controller gets coverage gaps
 * (never a pass, never a crash) for the checks that need one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { certify } from '../harness/certify/index.js';
import type { RunResult } from '../harness/core/engine/result.js';
import { startMockSeller } from '../mocks/seller/index.js';
import type { RunningMockSeller } from '../mocks/seller/options.js';
import { CONTROLLER_FREE_WEBHOOKS, certifyMock, findings } from './testing/mock-run.js';
import { exitCodeFor } from '../harness/core/engine/summarize.js';
import { toComplianceDetail } from '../reports/compliance-detail.js';
import { renderSummary } from '../reports/console.js';
import { builtinSuites } from './index.js';

/** Checks restricted to one transport (`transports: [...]`): not applicable on the other. */
const SINGLE_TRANSPORT = new Set(
  builtinSuites()
    .suites.flatMap((s) => s.checks)
    .filter((c) => c.transports?.length === 1)
    .map((c) => c.id),
);

function verdicts(run: RunResult): string[] {
  return run.checks.map((c) => `${c.transport} ${c.check_id} ${c.outcome}`);
}

describe('the reference mock seller', () => {
  let seller: RunningMockSeller;
  const authToken = randomBytes(18).toString('base64url');
  let first: RunResult;

  beforeAll(async () => {
    seller = await startMockSeller({ allowPrivateWebhooks: true, authToken });
    first = await certify({ agentUrl: seller.baseUrl, authToken });
  });
  afterAll(() => seller?.close());

  it('passes every applicable check over both transports', () => {
    expect(findings(first).map((c) => `${c.transport} ${c.check_id}: ${c.message}`)).toEqual([]);
    expect(first.overall_status).toBe('passing');
    expect(first.coverage).toMatchObject({ complete: true, reasons: [], blocked: [], gaps: [] });
    expect(first.transports).toEqual(['mcp', 'a2a']);
    const suites = new Set(first.checks.filter((c) => c.outcome === 'pass').map((c) => c.suite_id));
    for (const s of ['capabilities', 'errors', 'schemas', 'idempotency', 'state-machine']) expect(suites).toContain(s);
  });

  it('gives MCP and A2A the same verdict for every check that applies to both', () => {
    const byId = new Map<string, Record<string, string>>();
    for (const c of first.checks) byId.set(c.check_id, { ...byId.get(c.check_id), [c.transport]: c.outcome });
    const differing = [...byId].filter(([id, v]) => !SINGLE_TRANSPORT.has(id) && v.mcp !== v.a2a);
    expect(differing).toEqual([]);
  });

  it('gives identical verdicts on a second run against the same long-running seller', async () => {
    const second = await certify({ agentUrl: seller.baseUrl, authToken });
    expect(second.seed).not.toBe(first.seed);
    expect(verdicts(second)).toEqual(verdicts(first));
  });

  it('serves MCP replies as plain JSON just as well', async () => {
    const run = await certifyMock({ mock: { mcpReplyMode: 'json' }, transports: ['mcp'] });
    expect(findings(run).map((c) => `${c.check_id}: ${c.message}`)).toEqual([]);
  });

  it('works with another protocol token', async () => {
    const run = await certifyMock({ token: 'adcp', mock: { token: 'adcp' }, suites: ['capabilities', 'idempotency'] });
    expect(findings(run).map((c) => `${c.check_id}: ${c.message}`)).toEqual([]);
    expect(run.checks.some((c) => c.check_id === 'idempotency.replay.flagged' && c.outcome === 'pass')).toBe(true);
  });
});

describe('a seller without a test controller (production-like)', () => {
  it('ends partial with zero failures: every controller check is a coverage gap with its reason, nothing is blocked', async () => {
    const run = await certifyMock({ mock: { testController: false } });
    // Webhook checks make events happen through the controller, except these (suites/webhooks/webhooks.yaml).
    const controllerFreeWebhooks = CONTROLLER_FREE_WEBHOOKS;
    const needing = run.checks.filter(
      (c) => /\.controller\.|\.expiry\./.test(c.check_id) || (c.suite_id === 'webhooks' && !controllerFreeWebhooks.includes(c.check_id)),
    );
    expect(needing.length).toBeGreaterThan(0);
    for (const c of needing) {
      // the controller's own setup check does not apply; every check that needs it is a gap
      if (c.check_id === 'setup.controller.scenarios') {
        expect(c.outcome).toBe('not_applicable');
        continue;
      }
      // a check of the other transport only does not apply here, controller or not
      if (SINGLE_TRANSPORT.has(c.check_id) && c.outcome === 'not_applicable' && /only$/.test(c.message ?? '')) continue;
      // and neither does a rule of another protocol line than the run's target
      if (c.outcome === 'not_applicable' && /^not a rule of the 3\.1 line/.test(c.message ?? '')) continue;
      expect(c.outcome, `${c.transport} ${c.check_id}`).toBe('gap');
      expect(c.gap).toMatch(/^test controller/);
      expect(c.message).toMatch(/test controller/);
    }
    expect(findings(run).filter((c) => c.outcome !== 'gap')).toEqual([]);
    expect(run.overall_status).toBe('partial');
    expect(run.coverage.complete).toBe(false);
    expect(run.coverage.blocked).toEqual([]);
    // each gap listed once per reason, with the checks it covers
    expect(run.coverage.gaps.length).toBeGreaterThanOrEqual(3);
    for (const g of run.coverage.gaps) {
      expect(g.reason).toMatch(/test controller/);
      expect(g.check_ids.length).toBeGreaterThan(0);
    }
    expect(exitCodeFor(run)).toBe(4);
    expect(exitCodeFor(run, { requireFullCoverage: true })).toBe(1);
    expect(exitCodeFor(run, { allowGaps: true })).toBe(0);
    expect(toComplianceDetail(run)).toMatchObject({ status: 'degraded', lifecycle_stage: 'production' });
  });
});

describe('a seller whose get_products errors (SERVICE_UNAVAILABLE "Account resolution failed")', () => {
  it('shows one failing check and one grouped blocked line per transport, not dozens of independent failures', async () => {
    const run = await certifyMock({ mock: { faults: ['get-products-unavailable'] } });
    const failing = run.checks.filter((c) => c.outcome === 'fail');
    expect([...new Set(failing.map((c) => c.check_id))]).toEqual(['setup.account.usable']);
    expect(failing[0].evidence?.exchanges.length).toBeGreaterThan(0);
    expect(run.checks.filter((c) => c.outcome === 'error')).toEqual([]);
    expect(run.coverage.blocked.map((g) => [g.blocked_by, g.transport])).toEqual([
      ['setup.account.usable', 'mcp'],
      ['setup.account.usable', 'a2a'],
    ]);
    expect(run.coverage.blocked[0].check_ids.length).toBeGreaterThan(40);
    const summary = renderSummary(run);
    const lines = summary.split('\n').filter((l) => /blocked by setup\.account\.usable failing/.test(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^ {2}⊘ \d+ checks blocked by setup\.account\.usable failing \(mcp\): no account the seller accepts could be found or created: get_products with a new natural-key account: error SERVICE_UNAVAILABLE: Account resolution failed/,
    );
    expect(run.overall_status).toBe('failing');
    expect(exitCodeFor(run)).toBe(1);
  });

  it('a defect of the read-back alone is one failing check; the checks that read a buy back are blocked by it, root cause set', async () => {
    // The seller echoes start_time "asap" on the read, which its response validation then refuses.
    const run = await certifyMock({ mock: { faults: ['asap-buy-unreadable'] }, suites: ['setup', 'capabilities', 'state-machine', 'idempotency', 'webhooks'] });
    const failing = run.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'warn');
    expect([...new Set(failing.map((c) => c.check_id))]).toEqual(['state-machine.create.asap']);
    for (const c of failing) expect(c.root_cause).toBe('state-machine.create.asap');
    const blocked = run.checks.filter((c) => c.outcome === 'blocked');
    expect(new Set(blocked.map((c) => c.check_id)).size).toBeGreaterThan(5);
    for (const c of blocked) expect(`${c.check_id} ${c.root_cause}`).toBe(`${c.check_id} state-machine.create.asap`);
    // A buy created with explicit date-times still reads back: those checks are judged, and pass.
    for (const id of ['state-machine.read.listed', 'state-machine.read.account', 'idempotency.replay.no-second-resource'])
      expect(run.checks.filter((c) => c.check_id === id).map((c) => c.outcome)).toEqual(['pass', 'pass']);
  });
});
