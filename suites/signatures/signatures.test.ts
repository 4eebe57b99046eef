/**
 * The signatures suite end to end against the reference mock seller: every check passes over MCP
 * and A2A, the digest-policy cases follow the declared policy (not applicable otherwise), other
 * tokens work, and a seller without request signing gets not_applicable throughout.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/core/engine/result.js';
import { builtinSuites } from '../index.js';
import { certifyMock, findings } from '../testing/mock-run.js';

const suite = builtinSuites().suites.find((s) => s.id === 'signatures')!;
const ids = suite.checks.map((c) => c.id);

function outcomes(run: RunResult, transport: string): Record<string, string> {
  return Object.fromEntries(run.checks.filter((c) => c.transport === transport).map((c) => [c.check_id, c.outcome]));
}

function problems(run: RunResult): string[] {
  return findings(run).map((c) => `${c.transport} ${c.check_id}: ${c.message}`);
}

describe.concurrent('signatures suite against the mock seller', () => {
  it('passes every check over MCP and A2A, with the same verdicts', async () => {
    const run = await certifyMock({ suites: ['signatures'] });
    expect(problems(run)).toEqual([]);
    const mcp = outcomes(run, 'mcp');
    expect(outcomes(run, 'a2a')).toEqual(mcp);
    const notApplicable = ids.filter((id) => mcp[id] === 'not_applicable');
    // The mock declares covers_content_digest required: the other policies' cases are n/a, and so
    // are the 3.2 checks at the default target (mock-seller-lines.test.ts runs them at 3.2), and
    // the check for agents without request signing.
    expect(notApplicable.sort()).toEqual([
      'signatures.digest.body-version-ignored',
      'signatures.digest.forbidden-enforced',
      'signatures.digest.uncovered-accepted',
      'signatures.profile.base64url-refused',
      'signatures.profile.digest-required-declared',
      'signatures.target.default-port',
      'signatures.unsupported.signature-ignored',
      'signatures.warn.unauthenticated-refused',
    ]);
    expect(ids.filter((id) => mcp[id] === 'pass')).toHaveLength(ids.length - 8);
    expect(ids.length).toBeGreaterThanOrEqual(40);
  });

  it('at a port-less agent URL reached through --connect-to, passes every check, signatures.target.default-port included', async () => {
    const run = await certifyMock({ suites: ['signatures'], portless: true, transports: ['mcp'] });
    expect(problems(run)).toEqual([]);
    expect(run.agent_url).toBe('http://seller.test');
    expect(outcomes(run, 'mcp')['signatures.target.default-port']).toBe('pass');
  });

  it('follows covers_content_digest either and forbidden', async () => {
    const checkGlob = 'signatures.digest.*,signatures.accept.*';
    const either = await certifyMock({ suites: ['signatures'], checkGlob, transports: ['mcp'], mock: { requestSigning: { covers_content_digest: 'either' } } });
    expect(problems(either)).toEqual([]);
    expect(outcomes(either, 'mcp')).toMatchObject({
      'signatures.digest.uncovered-accepted': 'pass',
      'signatures.digest.mismatch': 'pass',
      'signatures.digest.required-enforced': 'not_applicable',
      'signatures.digest.forbidden-enforced': 'not_applicable',
    });
    const forbidden = await certifyMock({
      suites: ['signatures'],
      checkGlob,
      transports: ['a2a'],
      mock: { requestSigning: { covers_content_digest: 'forbidden' } },
    });
    expect(problems(forbidden)).toEqual([]);
    expect(outcomes(forbidden, 'a2a')).toMatchObject({
      'signatures.accept.ed25519': 'pass',
      'signatures.accept.es256': 'pass',
      'signatures.digest.uncovered-accepted': 'pass',
      'signatures.digest.forbidden-enforced': 'pass',
      'signatures.digest.mismatch': 'not_applicable',
      'signatures.digest.required-enforced': 'not_applicable',
    });
  });

  it('works with another protocol token', async () => {
    const run = await certifyMock({ suites: ['signatures'], token: 'adcp', mock: { token: 'adcp' }, transports: ['mcp'] });
    expect(problems(run)).toEqual([]);
    expect(outcomes(run, 'mcp')['signatures.tag.wrong-tag']).toBe('pass');
  });

  it('without a bearer token the mock requires nothing, so the unsigned pre-check is not applicable', async () => {
    const run = await certifyMock({ suites: ['signatures'], withAuth: false, transports: ['a2a'], checkGlob: 'signatures.precheck.*,signatures.accept.*' });
    expect(problems(run)).toEqual([]);
    expect(outcomes(run, 'a2a')['signatures.precheck.unsigned-required']).toBe('not_applicable');
    expect(outcomes(run, 'a2a')['signatures.precheck.unsigned-webhook-auth']).toBe('pass');
  });

  it('judges shadow mode (warn_for) at 3.2 both ways, and is a coverage gap without warn_for', async () => {
    const run = await certifyMock({ suites: ['signatures'], target: '3.2', transports: ['mcp'], checkGlob: 'signatures.warn.*' });
    expect(problems(run)).toEqual([]);
    expect(outcomes(run, 'mcp')).toMatchObject({ 'signatures.warn.failed-signature-proceeds': 'pass', 'signatures.warn.unauthenticated-refused': 'pass' });
    const none = await certifyMock({
      suites: ['signatures'],
      target: '3.2',
      transports: ['a2a'],
      checkGlob: 'signatures.warn.*',
      mock: { requestSigning: { warn_for: [] } },
    });
    expect(outcomes(none, 'a2a')).toMatchObject({ 'signatures.warn.failed-signature-proceeds': 'gap', 'signatures.warn.unauthenticated-refused': 'gap' });
  });

  it('is not applicable to a seller that does not support request signing, which ignores signatures', async () => {
    const run = await certifyMock({ suites: ['signatures'], mock: { requestSigning: false } });
    const checks = run.checks.filter((c) => c.suite_id === 'signatures');
    expect(problems(run)).toEqual([]);
    expect(new Set(checks.filter((c) => c.check_id !== 'signatures.unsupported.signature-ignored').map((c) => c.outcome))).toEqual(new Set(['not_applicable']));
    expect(new Set(checks.filter((c) => c.check_id === 'signatures.unsupported.signature-ignored').map((c) => c.outcome))).toEqual(new Set(['pass']));
  });
});
