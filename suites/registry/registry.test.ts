/**
 * The `registry` suite against the reference mock registry: every check passes on the rest
 * column; each REST fault of the mock makes exactly its targeted check fail (a check that needs
 * what the fault broke is blocked by the target, never failed); without an API key the checks that
 * need one are coverage gaps; with an agent the registry is a third column beside MCP and A2A.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certify } from '../../harness/certify/index.js';
import type { RunResult } from '../../harness/core/engine/result.js';
import { renderAgentComplianceJson, validateAgentCompliance } from '../../reports/json.js';
import { REGISTRY_API_FAULTS } from '../../mocks/registry/faults.js';
import { type RunningMockRegistry, startMockRegistry } from '../../mocks/registry/index.js';
import { startMockSeller, type RunningMockSeller } from '../../mocks/seller/index.js';

const SEED = [
  { domain: 'seller.example', agent_url: 'https://seller.example/mcp', capabilities: ['get_products', 'create_media_buy'], channels: ['display', 'olv'] },
  { domain: 'signals.example', agent_url: 'https://signals.example/mcp', capabilities: ['get_signals'], channels: ['ctv'] },
];

/** The registry face suites: the REST face and the Agent Compliance operations. */
const SUITES = ['registry', 'registry-compliance'];

const registryRun = async (faults: string[] = [], withKey = true): Promise<RunResult> => {
  const r = await startMockRegistry({ seed: SEED, faults });
  try {
    return await certify({ registry: { url: r.baseUrl, ...(withKey ? { apiKey: r.apiKeys[0] } : {}) }, suites: SUITES, seed: 'registry-suite' });
  } finally {
    await r.close();
  }
};

const notPassing = (run: RunResult) => run.checks.filter((c) => c.outcome !== 'pass').map((c) => `${c.check_id} ${c.outcome}`);

describe('the registry suite', () => {
  it('passes every check against the mock registry, on the rest column, without leaking the key', async () => {
    const r = await startMockRegistry({ seed: SEED });
    try {
      const run = await certify({ registry: { url: r.baseUrl, apiKey: r.apiKeys[0] }, suites: SUITES });
      expect(notPassing(run)).toEqual([]);
      expect(run.transports).toEqual(['rest']);
      expect(run.checks.length).toBe(29);
      expect(run.overall_status).toBe('passing');
      expect(JSON.stringify(run)).not.toContain(r.apiKeys[0]);
    } finally {
      await r.close();
    }
  });

  it('makes the checks that need an API key (the owner writes and bulk status with them) coverage gaps without one', async () => {
    const run = await registryRun([], false);
    expect(notPassing(run).sort()).toEqual([
      'registry-compliance.applicable-storyboards.shape gap',
      'registry-compliance.bulk-status.cap gap',
      'registry-compliance.bulk-status.shape gap',
      'registry-compliance.owner.lifecycle gap',
      'registry-compliance.owner.monitoring-controls gap',
      'registry-compliance.owner.opt-out gap',
      'registry.input.malformed-url gap',
      'registry.input.oversized-body gap',
      'registry.register.findable gap',
    ]);
  });

  it('makes the Agent Compliance checks about a listed agent coverage gaps when the registry lists none', async () => {
    const r = await startMockRegistry();
    try {
      const run = await certify({ registry: { url: r.baseUrl, apiKey: r.apiKeys[0] }, suites: ['registry-compliance'] });
      const gaps = run.checks.filter((c) => c.outcome === 'gap').map((c) => c.check_id);
      // The owner checks' own throwaway agents, listed meanwhile, are never the agent asked about.
      expect(gaps.sort()).toEqual([
        'registry-compliance.badge.embed',
        'registry-compliance.badge.invalid-role',
        'registry-compliance.badge.svg',
        'registry-compliance.detail.shape',
        'registry-compliance.history.limit-capped',
        'registry-compliance.history.shape',
        'registry-compliance.owner.refused-without-key',
        'registry-compliance.storyboard-status.members-only',
        'registry-compliance.verification.shape',
      ]);
      expect(notPassing(run).filter((c) => !c.endsWith(' gap'))).toEqual([]);
    } finally {
      await r.close();
    }
  });

  it('catches each REST fault of the mock by exactly its targeted check', async () => {
    const caught: string[] = [];
    for (const fault of REGISTRY_API_FAULTS) {
      const run = await registryRun([fault.name]);
      const failing = run.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'warn').map((c) => c.check_id);
      const others = run.checks.filter((c) => c.outcome !== 'pass' && !failing.includes(c.check_id));
      expect(failing, fault.name).toEqual([...fault.targets]);
      // The report of a failing registry (its rest exchanges in the evidence) is a valid agent-compliance document.
      expect(validateAgentCompliance(JSON.parse(renderAgentComplianceJson(run))), fault.name).toEqual({ valid: true, errors: [] });
      for (const o of others)
        expect(`${o.check_id} ${o.outcome} by ${o.blocked_by}`, fault.name).toMatch(new RegExp(` blocked by (${fault.targets.join('|')})$`));
      caught.push(fault.name);
    }
    console.log(`mutation score (mock registry, REST face): ${caught.length}/${REGISTRY_API_FAULTS.length} faults caught by exactly their check`);
  });
});

describe('the registry beside an agent', () => {
  let seller: RunningMockSeller;
  let registry: RunningMockRegistry;
  beforeAll(async () => {
    [seller, registry] = await Promise.all([startMockSeller({ dbPath: ':memory:' }), startMockRegistry({ seed: SEED })]);
  });
  afterAll(async () => {
    await Promise.all([seller.close(), registry.close()]);
  });

  it('adds a rest column for the registry suite, and runs no agent check on it', async () => {
    const run = await certify({
      agentUrl: seller.baseUrl,
      suites: ['capabilities', 'registry'],
      registry: { url: registry.baseUrl, apiKey: registry.apiKeys[0] },
    });
    expect(run.transports).toEqual(['mcp', 'a2a', 'rest']);
    expect(new Set(run.checks.filter((c) => c.transport === 'rest').map((c) => c.suite_id))).toEqual(new Set(['registry']));
    expect(new Set(run.checks.filter((c) => c.transport !== 'rest').map((c) => c.suite_id))).toEqual(new Set(['capabilities']));
    // capabilities.mcp.session-reused is an MCP rule, and tasks.listed judges MCP's tools/list: not applicable on A2A;
    // the mock declares no governance key origin, so identity.governance-origin-distinct has nothing to judge on either.
    expect(notPassing(run).sort()).toEqual(
      [
        'capabilities.identity.governance-origin-distinct not_applicable',
        'capabilities.identity.governance-origin-distinct not_applicable',
        'capabilities.tasks.listed not_applicable',
        'capabilities.mcp.session-reused not_applicable',
      ].sort(),
    );
  });

  it('leaves the registry suite out of an agent run that names no registry, and refuses it by name', async () => {
    const run = await certify({ agentUrl: seller.baseUrl, suites: ['capabilities'] });
    expect(run.transports).toEqual(['mcp', 'a2a']);
    await expect(certify({ agentUrl: seller.baseUrl, suites: ['registry'] })).rejects.toThrow(/--registry/);
  });
});
