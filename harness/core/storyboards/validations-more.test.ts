/** The validation kinds judged on the wire (on_401_require_header, a2a_submitted_artifact) and across steps (refs_resolve). */
import { describe, expect, it } from 'vitest';
import type { StoryboardValidation } from './model.js';
import { canonicalUrl } from './refs-resolve.js';
import { judgeValidation, type StepOutcome, type ValidationEnv } from './validations.js';

const v = (check: string, raw: Record<string, unknown> = {}): StoryboardValidation => ({ check, ...raw, raw: { check, ...raw } }) as StoryboardValidation;
const env: ValidationEnv = { context: new Map() };
const judged = (val: StoryboardValidation, o: StepOutcome, e: ValidationEnv = env) => {
  const r = judgeValidation(val, o, e);
  return r.outcome === 'passed' ? 'passed' : `${r.outcome}: ${r.message}`;
};

describe('on_401_require_header', () => {
  const check = v('on_401_require_header', { value: 'www-authenticate' });
  it('requires the header of a 401, whatever its case, and nothing of another status', () => {
    expect(judged(check, { ok: false, payload: {}, httpStatus: 401, headers: { 'www-authenticate': 'Bearer realm="a"' } })).toBe('passed');
    expect(judged(check, { ok: false, payload: {}, httpStatus: 401, headers: { 'content-type': 'application/json' } })).toBe(
      'failed: the 401 carries no www-authenticate header',
    );
    expect(judgeValidation(check, { ok: false, payload: {}, httpStatus: 403, headers: {} }, env)).toMatchObject({ outcome: 'passed', message: /a 401 only/ });
  });
  it('cannot be judged without a status or a header name', () => {
    expect(judged(check, { ok: true, payload: {} })).toBe('not_applicable: no HTTP status was observed for this step');
    expect(judged(v('on_401_require_header'), { ok: false, payload: {}, httpStatus: 401 })).toMatch(/^not_applicable: .*names no header/);
  });
});

describe('a2a_submitted_artifact', () => {
  const check = v('a2a_submitted_artifact');
  const a2a = { transport: 'a2a', taskId: 't1', contextId: 'c1', status: 'completed', payloadSource: 'artifact' };
  it('holds for a completed Task with ids whose artifact data part says submitted', () => {
    expect(judged(check, { ok: true, payload: { status: 'submitted', task_id: 'x' }, reply: a2a })).toBe('passed');
  });
  it('names each broken invariant', () => {
    const r = judgeValidation(check, { ok: true, payload: { status: 'completed' }, reply: { ...a2a, contextId: undefined, status: 'working' } }, env);
    expect(r.outcome).toBe('failed');
    expect(r.message).toBe(
      'not the A2A envelope of a submitted arm: the Task has no contextId; the Task state is working, not completed; the artifact\'s data part has status "completed", not "submitted"',
    );
    expect(judged(check, { ok: true, payload: { status: 'submitted' }, reply: { ...a2a, payloadSource: 'status_message' } })).toMatch(
      /payload came from status_message, not an artifact data part/,
    );
  });
  it('is not applicable over MCP', () => {
    expect(judged(check, { ok: true, payload: { status: 'submitted' }, reply: { transport: 'mcp', status: 'completed' } })).toBe(
      'not_applicable: graded on A2A only; this step came over mcp',
    );
  });
});

describe('refs_resolve', () => {
  const agentUrl = 'https://Seller.example:443/mcp/';
  const formats = {
    formats: [
      { format_id: { agent_url: 'https://seller.example/mcp', id: 'display_300x250' } },
      { format_id: { agent_url: 'https://seller.example/mcp', id: 'video_15s' } },
    ],
  };
  const products = (ids: Array<[string, string]>) => ({ products: [{ format_ids: ids.map(([agent_url, id]) => ({ agent_url, id })) }] });
  const check = (raw: Record<string, unknown> = {}) =>
    v('refs_resolve', {
      source: { from: 'context', path: 'products[*].format_ids[*]' },
      target: { from: 'current_step', path: 'formats[*].format_id' },
      match_keys: ['agent_url', 'id'],
      scope: { key: 'agent_url', equals: '$agent_url' },
      ...raw,
    });
  const withProducts = (p: unknown): ValidationEnv => ({ context: new Map(), priorSteps: new Map([['get_products', p]]), agentUrl });

  it('passes when every in-scope ref is a member of the target, matched on its keys (URLs canonical)', () => {
    const e = withProducts(products([['https://seller.example/mcp', 'video_15s']]));
    expect(judgeValidation(check(), { ok: true, payload: formats }, e)).toMatchObject({
      outcome: 'passed',
      message:
        "1 ref(s) of products[*].format_ids[*], each in formats[*].format_id on agent_url, id (products read from step get_products's response (no step captures it))",
    });
    expect(canonicalUrl('HTTPS://Seller.Example:443/mcp/')).toBe('https://seller.example/mcp');
  });

  it('fails naming each missing ref once, projected to the match keys', () => {
    const e = withProducts(
      products([
        ['https://seller.example/mcp', 'native_1'],
        ['https://seller.example/mcp', 'native_1'],
        ['https://seller.example/mcp', 'video_15s'],
      ]),
    );
    const r = judgeValidation(check(), { ok: true, payload: formats }, e);
    expect(r).toMatchObject({ outcome: 'failed', actual: { missing: [{ agent_url: 'https://seller.example/mcp', id: 'native_1' }] } });
  });

  it('passes refs outside its scope with a note, or counts them missing when on_out_of_scope is fail', () => {
    const e = withProducts(products([['https://creative.example/mcp', 'their_format']]));
    expect(judgeValidation(check(), { ok: true, payload: formats }, e)).toMatchObject({
      outcome: 'passed',
      message: /1 ref\(s\) outside scope agent_url=https:\/\/seller\.example\/mcp not verified/,
    });
    expect(judgeValidation(check({ on_out_of_scope: 'fail' }), { ok: true, payload: formats }, e).outcome).toBe('failed');
  });

  it('never matches a ref missing a key, and reads a captured name before any response', () => {
    const e: ValidationEnv = { context: new Map([['products', [{ format_ids: [{ id: 'video_15s' }] }]]]), agentUrl };
    const r = judgeValidation(check({ scope: undefined }), { ok: true, payload: formats }, e);
    expect(r).toMatchObject({ outcome: 'failed', actual: { missing: [{ agent_url: null, id: 'video_15s' }] } });
  });

  it('is not applicable when a side cannot be read or the storyboard authored it incompletely', () => {
    expect(judged(check(), { ok: true, payload: formats }, { context: new Map(), agentUrl })).toBe(
      'not_applicable: refs_resolve source: no earlier step captured or answered products',
    );
    expect(judged(check(), { ok: false, payload: {} }, withProducts(products([])))).toBe(
      'not_applicable: refs_resolve target: the step answered an error, so its result holds no refs',
    );
    expect(judged(v('refs_resolve', { source: { from: 'context', path: 'x' } }), { ok: true, payload: {} })).toMatch(/needs source and target/);
  });
});

describe('a2a_context_continuity', () => {
  const check = v('a2a_context_continuity');
  it('fails when the Task answers in another context than the one the message was sent with', () => {
    const reply = { transport: 'a2a', contextId: 'ctx-new', sentContextId: 'ctx-1' };
    expect(judged(check, { ok: true, payload: {}, reply })).toBe('failed: the message was sent with contextId ctx-1; the Task answered with ctx-new');
    expect(judged(check, { ok: true, payload: {}, reply: { ...reply, contextId: 'ctx-1' } })).toBe('passed');
  });
});

describe('upstream_traffic', () => {
  const since = '2026-11-29T00:00:00.000Z';
  const calls = [
    {
      method: 'POST',
      endpoint: 'POST https://api.example/v1/audience/upload',
      content_type: 'application/json',
      payload: { users: [{ hashed_email: 'h1' }, { hashed_email: 'h2' }], mode: 'add' },
    },
    { method: 'POST', endpoint: 'POST https://api.example/v1/events', content_type: 'text/csv', payload: 'h3,click' },
  ];
  const env = (answer: { calls: unknown[] } | { error: string }, sent: unknown = {}, advertised = true): ValidationEnv => ({
    context: new Map(),
    upstream: { advertised, thisStepSince: since, sinceOf: new Map([['earlier', since]]), answers: new Map([[since, answer]]), sent },
  });
  const up = (raw: Record<string, unknown>) => v('upstream_traffic', raw);
  const ok = { ok: true, payload: {} };

  it('matches payload paths in JSON calls by presence, equality or membership', () => {
    const e = env({ calls });
    expect(judged(up({ endpoint_pattern: 'POST */audience/*', payload_must_contain: [{ path: 'users[*].hashed_email', match: 'present' }] }), ok, e)).toBe(
      'passed',
    );
    expect(judged(up({ payload_must_contain: [{ path: 'mode', match: 'equals', value: 'add' }] }), ok, e)).toBe('passed');
    expect(judged(up({ payload_must_contain: [{ path: 'mode', match: 'contains_any', allowed_values: ['remove'] }] }), ok, e)).toBe(
      "failed: no matched call's payload holds mode",
    );
    expect(judged(up({ endpoint_pattern: 'POST */events', payload_must_contain: [{ path: 'users', match: 'present' }] }), ok, e)).toMatch(
      /^not_applicable: payload_must_contain paths could be read on no JSON call/,
    );
  });

  it('finds every value the request sent at its identifier paths, in JSON at any depth or in text', () => {
    const sent = { audiences: [{ add: [{ hashed_email: 'h1' }, { hashed_email: 'h3' }] }] };
    expect(judged(up({ identifier_paths: ['audiences[*].add[*].hashed_email'] }), ok, env({ calls }, sent))).toBe('passed');
    const missing = { audiences: [{ add: [{ hashed_email: 'h9' }] }] };
    expect(judged(up({ identifier_paths: ['audiences[*].add[*].hashed_email'] }), ok, env({ calls }, missing))).toBe(
      'failed: values the request sent reached no upstream call: "h9"',
    );
  });

  it('counts matching calls, and is not applicable where the controller does not offer the query', () => {
    expect(judged(up({ min_count: 3 }), ok, env({ calls }))).toBe('failed: expected at least 3 matching upstream call(s), observed 2 of 2');
    expect(judged(up({}), ok, env({ calls }, {}, false))).toMatch(/^not_applicable: the agent's test controller does not offer query_upstream_traffic/);
    expect(judged(up({}), ok, env({ error: 'FORBIDDEN: sandbox only' }))).toBe('failed: query_upstream_traffic failed: FORBIDDEN: sandbox only');
    expect(judged(up({ since: 'earlier' }), ok, env({ calls }))).toBe('passed');
  });
});
