/**
 * The rate_limit_trip_runner contract end to end: our own fixture storyboard (testing/rate-limit-bundle.ts)
 * run by the real engine over MCP and A2A against the mock seller on loopback. With the mock's insert rate
 * limit on, the burst trips it, the key is replayed after retry_after and `replay_not_cached_rate_limit`
 * passes; under the `rate-limited-cached` fault exactly that check fails; without a rate limit the
 * step is not applicable (`rate_limit_not_triggered`) after the bounded burst; against an agent taken
 * for production it is a gap, with nothing sent.
 */
import { describe, expect, it } from 'vitest';
import { buildAgentCompliance, validateAgentCompliance } from '../../../reports/json.js';
import { toRunnerOutput } from '../../../reports/runner-output.js';
import { getFault } from '../../../mocks/seller/faults.js';
import type { RunResult } from '../engine/result.js';
import { FIXTURE_MAX_ATTEMPTS, runRateLimitBundle, TRIP_CHECK, WARM_UP_CHECK } from './testing/rate-limit-bundle.js';

const RATE_LIMIT = { inserts: 5, windowMs: 1000 };
const TRANSPORTS = ['mcp', 'a2a'] as const;

const check = (run: RunResult, id: string, t: string) => run.checks.find((c) => c.check_id === id && c.transport === t)!;
const failing = (run: RunResult) => run.checks.filter((c) => c.outcome !== 'pass' && c.outcome !== 'not_applicable').map((c) => `${c.check_id} ${c.transport}`);
/** The mock's log lines of create_media_buy calls (`<transport> create_media_buy principal=… key=… -> <answer>`). */
function creates() {
  const lines: string[] = [];
  return {
    line: (l: string) => {
      if (/^(mcp|a2a) create_media_buy /.test(l)) lines.push(l);
    },
    count: (answer: string) => lines.filter((l) => l.includes(answer)).length,
  };
}
const stepResult = (run: RunResult, t: string) =>
  toRunnerOutput(run).step_results.find((s) => s.step_id === 'expect_rate_limit_not_replayed' && s.transport === t)!;

describe('rate_limit_trip_runner against the mock seller', () => {
  it('passes on the reference mock with its insert rate limit on: tripped, waited retry_after, replayed afresh', async () => {
    const log = creates();
    const run = await runRateLimitBundle({ rateLimit: RATE_LIMIT, log: log.line });
    expect(run.harness_error).toBeUndefined();
    // Per transport: the warm-up, the burst up to its sixth call (the limit is five), the replay.
    expect(log.count('-> ok')).toBeGreaterThanOrEqual(2 * 2);
    expect(log.count('-> error RATE_LIMITED')).toBe(2);
    expect(log.count('')).toBeLessThanOrEqual(2 * (1 + 6 + 1));
    expect(failing(run)).toEqual([]);
    for (const t of TRANSPORTS) {
      const c = check(run, TRIP_CHECK, t);
      expect(c.outcome, `${t}: ${c.message}`).toBe('pass');
      expect(check(run, WARM_UP_CHECK, t).outcome).toBe('pass');
      expect(c.storyboard_step?.validations).toEqual([
        expect.objectContaining({ check: 'replay_not_cached_rate_limit', outcome: 'passed', message: expect.stringMatching(/without an error/) }),
      ]);
      const s = stepResult(run, t);
      expect(s).toMatchObject({ passed: true, validations: [expect.objectContaining({ check: 'replay_not_cached_rate_limit', passed: true })] });
    }
  }, 60_000);

  it('fails exactly replay_not_cached_rate_limit under the rate-limited-cached fault, with expected, actual and pointer', async () => {
    const run = await runRateLimitBundle({ rateLimit: RATE_LIMIT, faults: ['rate-limited-cached'] });
    expect(run.harness_error).toBeUndefined();
    expect(getFault('rate-limited-cached')?.targets).toEqual([TRIP_CHECK]);
    expect(failing(run).sort()).toEqual(TRANSPORTS.map((t) => `${TRIP_CHECK} ${t}`).sort());
    for (const t of TRANSPORTS) {
      const c = check(run, TRIP_CHECK, t);
      expect(c.outcome).toBe('fail');
      expect(c.message).toMatch(/^replay_not_cached_rate_limit \(.*\): rate_limit_response_cached_as_replay: /);
      expect(c.storyboard_step?.validations).toEqual([
        expect.objectContaining({
          check: 'replay_not_cached_rate_limit',
          outcome: 'failed',
          expected: 'an answer other than RATE_LIMITED (the request run afresh)',
          actual: 'RATE_LIMITED',
          pointer: '/replay_response/error/code',
        }),
      ]);
      const v = stepResult(run, t).validations[0];
      expect(v).toMatchObject({ check: 'replay_not_cached_rate_limit', passed: false, json_pointer: '/replay_response/error/code', actual: 'RATE_LIMITED' });
      // The step's request and response are the replay's: the target task's last call.
      expect(v.request).toMatchObject({ operation: 'create_media_buy', payload: { context: { correlation_id: 'rate-limit-fixture--trip#replay' } } });
      expect(v.response).toBeDefined();
    }
    expect(validateAgentCompliance(buildAgentCompliance(run)).errors).toEqual([]);
  }, 60_000);

  it('is not applicable (rate_limit_not_triggered) after exactly max_attempts calls when the mock has no rate limit; never a failure', async () => {
    const log = creates();
    const run = await runRateLimitBundle({ log: log.line });
    expect(failing(run)).toEqual([]);
    // The warm-up and exactly max_attempts trip calls, per transport: the burst is bounded.
    expect(log.count('')).toBe(2 * (1 + FIXTURE_MAX_ATTEMPTS));
    for (const t of TRANSPORTS) {
      const c = check(run, TRIP_CHECK, t);
      expect(c.outcome).toBe('not_applicable');
      expect(c.message).toMatch(new RegExp(`^rate_limit_not_triggered: no RATE_LIMITED within ${FIXTURE_MAX_ATTEMPTS} calls`));
      expect(c.storyboard_step?.skip).toEqual({ reason: 'not_applicable', detail: 'rate_limit_not_triggered' });
      const s = stepResult(run, t);
      expect(s).toMatchObject({ passed: false, skip: { reason: 'not_applicable', detail: 'rate_limit_not_triggered' } });
      expect(s.validations).toEqual([]);
    }
  }, 60_000);

  it('is a gap naming the sandbox it needs against an agent taken for production, and sends nothing', async () => {
    const log = creates();
    const run = await runRateLimitBundle({ rateLimit: RATE_LIMIT, log: log.line }, 'production');
    expect(log.count('')).toBe(2); // the warm-up buys only
    for (const t of TRANSPORTS) {
      const c = check(run, TRIP_CHECK, t);
      expect(c.outcome).toBe('gap');
      expect(c.message).toMatch(/targets sandbox endpoints only .*production deployment/);
      expect(c.storyboard_step?.skip).toMatchObject({
        reason: 'unsatisfied_contract',
        detail: expect.stringMatching(/--lifecycle-stage development or testing/),
      });
    }
  }, 60_000);
});
