/**
 * The reference mock seller at every compliance target (harness/core/protocol/lines.ts): certified at
 * --target 3.0 and 3.2 (3.1, the default, is mock-seller.test.ts), over MCP and A2A, it passes
 * every check of that line, coverage complete, and the report says which line it judged. The
 * checks of other lines are not applicable there with their reason.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../harness/core/engine/result.js';
import { inLines, type ProtocolLine } from '../harness/core/protocol/lines.js';
import { certifyMock, findings } from './testing/mock-run.js';
import { builtinSuites } from './index.js';

const defs = builtinSuites().suites.flatMap((s) => s.checks);

describe.each(['3.0', '3.2'] as const)('the reference mock seller at --target %s', (target: ProtocolLine) => {
  let run: RunResult;

  it('passes every check of the line over both transports, coverage complete, and says the target', async () => {
    run = await certifyMock({ target });
    expect(findings(run).map((c) => `${c.transport} ${c.check_id}: ${c.message}`)).toEqual([]);
    expect(run.overall_status).toBe('passing');
    expect(run.coverage.complete).toBe(true);
    expect(run.target).toMatchObject({ requested_compliance_target: target, explicit: true, agent_declared: { major_versions: [3] } });
    expect(run.target.agent_lacks_target).toBeUndefined();
  }, 120_000);

  it('leaves the checks of other lines not applicable, naming the line', () => {
    const other = defs.filter((c) => !inLines(target, c.lines));
    expect(other.length).toBeGreaterThan(0);
    for (const c of other)
      for (const r of run.checks.filter((x) => x.check_id === c.id))
        expect(r.message, c.id).toMatch(new RegExp(`^not a rule of the ${target.replace('.', '\\.')} line`));
  });
});

describe('the 3.2 request-signing profile on the reference mock seller', () => {
  it('is judged at --target 3.2 only: a base64url token refused, required declared', async () => {
    const run = await certifyMock({ target: '3.2', checkGlob: 'signatures.profile.*' });
    expect(run.checks.filter((c) => c.suite_id === 'signatures').map((c) => `${c.transport} ${c.check_id} ${c.outcome}`)).toEqual([
      'mcp signatures.profile.digest-required-declared pass',
      'a2a signatures.profile.digest-required-declared pass',
      'mcp signatures.profile.base64url-refused pass',
      'a2a signatures.profile.base64url-refused pass',
    ]);
  }, 60_000);
});
