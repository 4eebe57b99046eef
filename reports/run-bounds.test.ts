/** Bounds on what an agent can make a result hold (harness/core/engine/bound.ts), down to a valid agent-compliance document. */
import { describe, expect, it } from 'vitest';
import { buildRunFixture } from './testing/run-result.js';
import { renderAgentComplianceJson } from './json.js';
import { boundCheckResult, boundRun, boundValue, LIMITS } from '../harness/core/engine/bound.js';
import type { CheckResult } from '../harness/core/engine/result.js';

function check(over: Partial<CheckResult> = {}): CheckResult {
  return {
    check_id: 'x.y',
    suite_id: 'x',
    title: 't',
    level: 'MUST',
    spec_ref: { doc: 'interface-spec', section: '1' },
    transport: 'mcp',
    outcome: 'fail',
    duration_ms: 1,
    message: 'm',
    evidence: { exchanges: [] },
    ...over,
  };
}

describe('bounds', () => {
  it('cuts the message, the notes and their number, and big evidence values', () => {
    const r = boundCheckResult(
      check({
        message: 'M'.repeat(1 << 20),
        evidence: { exchanges: [], notes: Array.from({ length: 500 }, () => 'n'.repeat(5000)), actual: { big: 'A'.repeat(1 << 20) } },
      }),
    );
    expect(r.message.length).toBeLessThan(LIMITS.message + 100);
    expect(r.evidence?.notes?.length).toBe(LIMITS.notes + 1);
    expect(r.evidence?.notes?.every((n) => n.length < LIMITS.note + 100)).toBe(true);
    expect(typeof r.evidence?.actual).toBe('string');
    expect(String(r.evidence?.actual).length).toBeLessThan(LIMITS.value + 100);
  });

  it('replaces a value nested too deep and keeps small values as they are', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(boundValue(deep)).toMatch(/nested deeper than/);
    expect(boundValue({ a: [1, 'b'] })).toEqual({ a: [1, 'b'] });
  });

  it('keeps a whole run under its cap, however much evidence it holds, and still valid', () => {
    const run = buildRunFixture();
    const body = 'B'.repeat(60 * 1024);
    const fat = run.checks.map((c) => ({
      ...c,
      evidence: {
        ...(c.evidence ?? {}),
        exchanges: Array.from({ length: 100 }, (_, i) => ({
          seq: i + 1,
          transport: c.transport,
          purpose: 'p',
          started_at: '2026-01-01T00:00:00.000Z',
          duration_ms: 1,
          request: { method: 'POST', url: 'http://x/', headers: {}, body },
          response: { status: 200, headers: {}, body },
        })),
      },
    }));
    const cap = 2 * 1024 * 1024;
    const bounded = boundRun({ ...run, checks: fat }, cap);
    expect(JSON.stringify(bounded).length).toBeLessThanOrEqual(cap);
    expect(() => renderAgentComplianceJson(bounded)).not.toThrow();
  });
});
