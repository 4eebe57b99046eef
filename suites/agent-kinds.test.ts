/**
 * Agent kinds by declaration: a mock agent serving one kind (the mock seller started with
 * `kinds`) passes that kind's suite over MCP and A2A, and a media-buy-only agent gets the other
 * kinds' checks as not applicable, never as failures. A brand agent that does not know the run's
 * brand is a coverage gap, not a failure.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { certify } from '../harness/certify/index.js';
import type { AgentKind } from '../harness/core/protocol/agent-kinds.js';
import { type RunningMockSeller, startMockSeller } from '../mocks/seller/index.js';
import { runBuiltinCheck, ScriptedAgent, taskError } from './testing/scripted-agent.js';

const KIND_SUITES = ['creative', 'signals', 'governance', 'brand'] as const;
const started: RunningMockSeller[] = [];
afterAll(() => Promise.all(started.map((s) => s.close())));

async function runKindSuites(kinds: AgentKind[]) {
  const seller = await startMockSeller({ dbPath: ':memory:', kinds });
  started.push(seller);
  return certify({ agentUrl: seller.baseUrl, suites: [...KIND_SUITES], seed: `kinds-${kinds.join('-')}` });
}

describe('agent kinds', () => {
  it.each([['creative'], ['signals'], ['governance'], ['brand']] as const)('a %s-only agent passes its suite over MCP and A2A', async (kind) => {
    const run = await runKindSuites([kind]);
    const own = run.checks.filter((c) => c.suite_id === kind);
    expect(own.length).toBeGreaterThan(0);
    expect(new Set(own.map((c) => c.transport))).toEqual(new Set(['mcp', 'a2a']));
    for (const c of own) expect(`${c.transport} ${c.check_id} ${c.outcome}`, c.message).toBe(`${c.transport} ${c.check_id} pass`);
    for (const c of run.checks.filter((x) => x.suite_id !== kind)) expect(`${c.check_id} ${c.outcome}`).toBe(`${c.check_id} not_applicable`);
  });

  it("gives a media-buy-only agent the other kinds' checks as not applicable, naming the kind", async () => {
    const run = await runKindSuites(['media-buy']);
    expect(run.checks.length).toBeGreaterThan(0);
    for (const c of run.checks) {
      expect(`${c.check_id} ${c.outcome}`).toBe(`${c.check_id} not_applicable`);
      expect(c.message).toMatch(/does not claim the (creative|signals|governance|brand) kind/);
    }
  });

  it.each([
    ['BRAND_NOT_FOUND', 'gap'],
    ['UNKNOWN_BRAND', 'gap'],
    ['INVALID_REQUEST', 'fail'],
  ])('a brand agent refusing the run brand with %s: %s', async (code, outcome) => {
    const agent = new ScriptedAgent('mcp', () => taskError(code, 'no such brand here'), ['get_brand_identity']);
    const r = await runBuiltinCheck('brand.identity.answers', agent);
    expect(r.outcome, r.message).toBe(outcome);
    expect(agent.calls.find((c) => c.task === 'get_brand_identity')?.args).toEqual({ brand: { domain: 'example.com' } });
    if (outcome === 'gap') expect(r.message).toMatch(/does not know the run's brand: get_brand_identity answered .*no such brand here/);
  });
});
