/**
 * `expect_substitution_safe` end to end: our own bundle (testing/substitution-bundle.ts) through the
 * real engine over MCP against the loopback substitution agent (testing/substitution-agent.ts).
 * Substituting safely, the observations pass; substituting raw, with encodeURIComponent, or not at
 * all, exactly the observation steps fail, naming each binding's macro, item, position, expected
 * and observed form. Previews that cannot be used, inputs the run lacks and a value an earlier
 * step failed to capture are failures, gaps, not applicable or blocked as the outcome model says.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../engine/result.js';
import { CUSTOM_VALUE, runSubstitutionBundle } from './testing/substitution-bundle.js';

const OBSERVATIONS = ['storyboard.macros.substitution.inline', 'storyboard.macros.substitution.fetched'];
const runs = new Map<string, RunResult>();

beforeAll(async () => {
  for (const mode of ['safe', 'raw', 'uri-component', 'strip'] as const) runs.set(mode, await runSubstitutionBundle(mode));
  runs.set('no-vectors', await runSubstitutionBundle('raw', ['test-vectors/macro-vectors.json']));
}, 120_000);

const check = (mode: string, id: string) => runs.get(mode)!.checks.find((c) => c.check_id === id)!;
const outcomes = (mode: string) => new Map(runs.get(mode)!.checks.map((c) => [c.check_id, `${c.outcome}${c.blocked_by ? ` by ${c.blocked_by}` : ''}`]));

describe('expect_substitution_safe against a loopback agent', () => {
  it('passes an agent that substitutes NFC, unreserved-only percent-encoded values, inline and fetched', () => {
    for (const id of ['storyboard.macros.substitution.sync', 'storyboard.macros.substitution.build', ...OBSERVATIONS])
      expect([id, check('safe', id).outcome]).toEqual([id, 'pass']);
    expect(check('safe', OBSERVATIONS[0]!).message).toMatch(/14 tracker URLs in the preview of step build, 7 of the template's shape; 7 of 7 bindings/);
    expect(check('safe', OBSERVATIONS[1]!).message).toMatch(/^fetched the preview http:\/\/127\.0\.0\.1:\d+\/preview\/cr_1 without credentials/);
  });

  it.each(['raw', 'uri-component', 'strip'])('fails exactly the observation steps of an agent substituting %s', (mode) => {
    const safe = outcomes('safe');
    const changed = [...outcomes(mode)].filter(([id, o]) => safe.get(id) !== o).map(([id, o]) => [id, o]);
    expect(changed).toEqual(OBSERVATIONS.map((id) => [id, 'fail']));
  });

  it('names the macro, the item and vector, the position, the URL, expected and observed, with the error code first', () => {
    const raw = check('raw', OBSERVATIONS[0]!).message;
    expect(raw).toContain(
      'substitution_encoding_violation: {SKU} (item i0, vector query-breakout) at query sku of "https://track.example/imp?sku=A1&admin=1" (img src, line 2): expected "A1%26admin%3D1", observed "A1", differing at offset 2',
    );
    expect(raw).toContain('nested_macro_re_expansion: {SKU} (item i1, vector literal-token)');
    expect(raw).toContain('expected "a%0D%0Ab", observed "a\\nb"');
    const uri = check('uri-component', OBSERVATIONS[0]!).message.split('; ');
    expect(uri.map((m) => /vector ([\w-]+)/.exec(m)?.[1])).toEqual(['decomposed', 'quote-paren']);
    expect(uri[1]).toContain(`expected "it%27s%20%28new%29", observed "it's%20(new)"`);
    expect(check('strip', OBSERVATIONS[1]!).message).toMatch(/^substitution_binding_missing: \{SKU\} \(item i0, vector query-breakout\): no URL/);
    const validations = check('uri-component', OBSERVATIONS[0]!).storyboard_step?.validations ?? [];
    expect(validations.map((v) => [v.check, v.outcome])).toEqual([
      ['substitution_encoded', 'passed'],
      ['substitution_encoded', 'passed'],
      ['substitution_encoded', 'passed'],
      ['substitution_encoded', 'failed'],
      ['substitution_encoded', 'failed'],
      ['substitution_encoded', 'passed'],
      ['substitution_encoded', 'passed'],
    ]);
  });

  it('shows an inline (custom) value only as a digest', () => {
    const custom = check('raw', OBSERVATIONS[0]!).storyboard_step?.validations?.at(-1);
    expect(custom?.message).toMatch(/\{SKU\} \(item custom\) at query sku of sha256:[0-9a-f]{64} .*expected sha256:[0-9a-f]{64}, observed sha256:[0-9a-f]{64}/);
    expect([custom?.expected, custom?.actual]).toEqual([expect.stringMatching(/^sha256:/), expect.stringMatching(/^sha256:/)]);
    // The observation's own report (another step's response evidence is the agent's own words).
    for (const mode of runs.keys()) for (const id of OBSERVATIONS) expect(JSON.stringify(check(mode, id))).not.toContain(CUSTOM_VALUE);
  });

  it('fails a preview URL that redirects or is not HTML, and leaves a host the address policy refuses a gap', () => {
    expect(check('safe', 'storyboard.edges.p.redirected')).toMatchObject({
      outcome: 'fail',
      message: 'preview_url_unusable: redirect_returned: redirect (302) refused',
    });
    expect(check('safe', 'storyboard.edges.p.not_html')).toMatchObject({
      outcome: 'fail',
      message: expect.stringMatching(/^preview_url_unusable: content_type: .* answered application\/json$/),
    });
    expect(check('safe', 'storyboard.edges.p.metadata_host')).toMatchObject({
      outcome: 'gap',
      message: expect.stringMatching(/^preview_url_unusable: ssrf_blocked: .*169\.254\.169\.254/),
    });
  });

  it('is not applicable without the preview member or under another contract, a gap without the vector or the fixture, blocked by a step that failed to capture its input', () => {
    expect(check('safe', 'storyboard.edges.p.no_member')).toMatchObject({
      outcome: 'not_applicable',
      message: expect.stringMatching(/^preview_source_unavailable: the response of step build has no \/creative_manifest\/preview_html/),
    });
    expect(check('safe', 'storyboard.edges.p.other_contract').outcome).toBe('not_applicable');
    expect(check('safe', 'storyboard.edges.p.no_position')).toMatchObject({
      outcome: 'not_applicable',
      message: 'macro_template https://track.example/imp?sku=fixed has no position of {SKU}: the storyboard authored it wrongly',
    });
    // Without the kit's vector fixture, even an agent substituting raw is not judged: never a pass, never a failure.
    for (const id of OBSERVATIONS)
      expect(check('no-vectors', id)).toMatchObject({
        outcome: 'gap',
        message: 'expect_substitution_safe: the bundle has no test-vectors/macro-vectors.json (the vector fixture the kit names); supply it in the bundle',
      });
    expect(check('safe', 'storyboard.edges.p.unknown_vector')).toMatchObject({
      outcome: 'gap',
      message: 'expect_substitution_safe: the vector fixture has no vector no-such-vector; supply a fixture that has it',
    });
    expect(check('safe', 'storyboard.uncaptured.p.observe')).toMatchObject({
      outcome: 'blocked',
      blocked_by: 'storyboard.uncaptured.p.build',
      message: expect.stringContaining('unresolved_substitution: $context.tracker_template'),
    });
  });
});
