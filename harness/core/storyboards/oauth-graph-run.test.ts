/**
 * `oauth_metadata_graph` through the real engine: the harness's own OAuth-graph storyboard
 * (testing/oauth-graph-bundle.ts) against the mock seller on loopback, over MCP and A2A. It passes
 * on the seller's conformant graph, fails with `oauth_issuer_mismatch` (pointer, expected and
 * actual in the runner output) on the seller whose issuer is off by a trailing slash, and is not
 * applicable, fetching nothing, for a seller that does not declare `oauth.supported: true`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CheckContext } from '../engine/kinds/types.js';
import type { RunResult } from '../engine/result.js';
import { toRunnerOutput } from '../../../reports/runner-output.js';
import type { StoryboardStep } from './model.js';
import type { GraphFetch } from './oauth-graph-fetch.js';
import { graphStep } from './oauth-graph-step.js';
import { GRAPH_EXPECTED } from './oauth-metadata-graph.js';
import type { StoryboardState } from './state.js';
import { runOAuthGraphBundle } from './testing/oauth-graph-bundle.js';

const runs: Record<'conformant' | 'broken' | 'undeclared', RunResult> = {} as never;
beforeAll(async () => {
  [runs.conformant, runs.broken, runs.undeclared] = await Promise.all([
    runOAuthGraphBundle({ oauth: true }),
    runOAuthGraphBundle({ oauth: 'issuer-mismatch' }),
    runOAuthGraphBundle({}),
  ]);
}, 120_000);

const GRAPH_STEP = 'storyboard.oauth_graph.graph.metadata';
const check = (run: RunResult, id: string, transport: string) => run.checks.find((c) => c.check_id === id && c.transport === transport)!;

describe('oauth_metadata_graph run by the engine against the mock seller', () => {
  it.each(['mcp', 'a2a'])('passes on a conformant graph, following it without credentials (%s)', (t) => {
    expect(runs.conformant.harness_error).toBeUndefined();
    const c = check(runs.conformant, GRAPH_STEP, t);
    expect(c.outcome).toBe('pass');
    expect(c.storyboard_step?.validations?.map((v) => [v.check, v.outcome])).toEqual([
      ['http_status', 'passed'],
      ['field_present', 'passed'],
      ['oauth_metadata_graph', 'passed'],
    ]);
    // The check's notes (its message) name each fetch of the graph.
    expect(c.message).toMatch(
      new RegExp(
        `^OAuth metadata graph followed without credentials: .*oauth-protected-resource/${t} → 200; .*oauth-authorization-server/oauth → 200; .*/oauth/token → 405; .*/oauth/jwks → 200`,
      ),
    );
  });

  it.each(['mcp', 'a2a'])('fails a graph whose issuer is not exactly the one named, with its code, pointer, expected and actual (%s)', (t) => {
    const c = check(runs.broken, GRAPH_STEP, t);
    expect(c.outcome).toBe('fail');
    expect(c.message).toMatch(
      /^oauth_metadata_graph \(every server and endpoint it leads to holds\): oauth_issuer_mismatch: issuer http:\/\/127\.0\.0\.1:\d+\/oauth\/ is not exactly/,
    );
    const step = toRunnerOutput(runs.broken).step_results.find((s) => s.check_id === GRAPH_STEP && s.transport === t)!;
    expect(step.passed).toBe(false);
    expect(step.validations.find((v) => v.check === 'oauth_metadata_graph')).toMatchObject({
      passed: false,
      json_pointer: '/authorization_servers/0',
      expected: GRAPH_EXPECTED,
      actual: {
        code: 'oauth_issuer_mismatch',
        field: 'issuer',
        issuer: expect.stringMatching(/\/oauth$/),
        url: expect.stringMatching(/oauth-authorization-server\/oauth$/),
      },
    });
  });

  it('is not applicable for an agent that does not declare oauth.supported: true', () => {
    for (const t of ['mcp', 'a2a']) {
      const c = check(runs.undeclared, GRAPH_STEP, t);
      expect([c.outcome, c.message]).toEqual(['not_applicable', 'not_applicable: the capability oauth.supported is absent, not true']);
      expect(c.message).not.toMatch(/OAuth metadata graph followed/);
    }
  });
});

describe('the graph step itself', () => {
  const step = {
    id: 'metadata',
    task: 'protected_resource_metadata',
    validations: [{ check: 'oauth_metadata_graph', raw: {} }],
    raw: {},
  } as unknown as StoryboardStep;
  const state = () => ({ outcomes: new Map(), priorSteps: new Map(), context: new Map() }) as unknown as StoryboardState;
  const ctxWith = (capabilities: Record<string, unknown>) =>
    ({ profile: { capabilities, tasks: [] }, transport: { endpoint: 'https://agent.example/mcp' }, run: {}, notes: [] }) as unknown as CheckContext;

  it('fetches nothing unless the capabilities say oauth.supported is exactly true', async () => {
    const asked: string[] = [];
    const spy: GraphFetch = async (url) => {
      asked.push(url);
      return { kind: 'failed', why: 'offline' };
    };
    for (const caps of [{}, { oauth: {} }, { oauth: { supported: false } }, { oauth: { supported: 'true' } }, { oauth: { supported: 1 } }, { oauth: true }]) {
      const out = await graphStep(ctxWith(caps), step, state(), spy);
      expect(out.verdict.status, JSON.stringify(caps)).toBe('not_applicable');
      expect(out.storyboard?.skip?.reason).toBe('not_applicable');
    }
    expect(asked).toEqual([]);
    const declared = await graphStep(ctxWith({ oauth: { supported: true } }), step, state(), spy);
    expect(asked).toEqual(['https://agent.example/.well-known/oauth-protected-resource/mcp']);
    expect(declared.storyboard?.validations?.[0]).toMatchObject({ outcome: 'failed', actual: { code: 'oauth_protected_resource_metadata_unavailable' } });
  });

  it('is a gap, not a failure, when the agent is local and its own metadata host is refused by the run', async () => {
    const refused: GraphFetch = async () => ({ kind: 'refused', why: 'refused: 10.0.0.5 is a reserved address (private)', local: true });
    const ctx = { ...ctxWith({ oauth: { supported: true } }), transport: { endpoint: 'https://10.0.0.5/mcp' } } as unknown as CheckContext;
    const out = await graphStep(ctx, step, state(), refused);
    expect(out.verdict).toMatchObject({ status: 'gap', gap: 'an OAuth metadata host the run may fetch' });
    expect(out.storyboard?.skip).toMatchObject({ reason: 'unsatisfied_contract', detail: expect.stringMatching(/allow-list the host to judge it$/) });
  });
});
