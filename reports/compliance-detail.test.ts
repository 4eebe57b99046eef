import { describe, expect, it } from 'vitest';
import type { OverallStatus } from '../harness/core/engine/result.js';
import { registryStatus, toComplianceDetail, trackStatus } from './compliance-detail.js';
import { buildRunFixture } from './testing/run-result.js';

describe('toComplianceDetail', () => {
  it('maps the run status onto the registry vocabulary', () => {
    const expected: Record<OverallStatus, string> = {
      passing: 'passing',
      partial: 'degraded',
      failing: 'failing',
      error: 'unknown',
      unreachable: 'unknown',
      auth_required: 'unknown',
    };
    for (const [run, registry] of Object.entries(expected)) {
      expect(registryStatus(run as OverallStatus)).toBe(registry);
      const fixture = buildRunFixture();
      fixture.overall_status = run as OverallStatus;
      expect(toComplianceDetail(fixture).status).toBe(registry);
    }
  });

  it('maps suite statuses to registry track statuses', () => {
    expect(trackStatus('passing')).toBe('pass');
    expect(trackStatus('failing')).toBe('fail');
    expect(trackStatus('partial')).toBe('partial');
    expect(trackStatus('not_applicable')).toBe('skip');
    expect(trackStatus('untested')).toBe('skip');
  });

  it('projects suites to tracks and storyboards with step counts from check × transport results', () => {
    const run = buildRunFixture();
    const detail = toComplianceDetail(run);
    expect(detail.agent_url).toBe(run.agent_url);
    expect(detail.headline).toBe(run.headline);
    expect(detail.last_checked_at).toBe(run.finished_at);
    expect(detail.tracks).toEqual({
      capabilities: 'fail',
      idempotency: 'fail',
      webhooks: 'skip',
      signing: 'partial',
      schemas: 'skip',
    });
    const caps = detail.track_details.find((t) => t.track === 'capabilities')!;
    // 6 results: 3 pass, 1 fail, 2 warn (warn passes when not strict)
    expect(caps).toEqual({ track: 'capabilities', status: 'fail', scenario_count: 6, passed_count: 5, duration_ms: 131 });

    // not-applicable suites are not storyboards of this agent
    expect(detail.storyboard_statuses.map((s) => s.storyboard_id)).toEqual(['capabilities', 'idempotency', 'signing', 'schemas']);
    expect(detail.storyboards_total).toBe(4);
    expect(detail.storyboards_passing).toBe(0);

    const idem = detail.storyboard_statuses.find((s) => s.storyboard_id === 'idempotency')!;
    // 8 results: fail (mcp replay), error (a2a replay), blocked (mcp conflict), not run
    // (a2a conflict), fail baselined (mcp missing), pass, info, info: the two fails fail, the
    // error, the blocked and the not-run results are skipped steps
    expect(idem).toMatchObject({
      track: 'idempotency',
      status: 'failing',
      steps_total: 8,
      failure_count: 2,
      skipped_count: 3,
      steps_passed: 3,
      first_failed_step_id: 'idempotency.replay.same-payload',
      last_tested_at: run.finished_at,
    });
    expect(idem.first_failure_message).toBe(run.checks.find((c) => c.check_id === 'idempotency.replay.same-payload')!.message);

    const signing = detail.storyboard_statuses.find((s) => s.storyboard_id === 'signing')!;
    expect(signing).toMatchObject({ status: 'partial', steps_total: 4, failure_count: 0, skipped_count: 2, steps_passed: 2 });
    expect(signing.first_failed_step_id).toBeUndefined();

    const schemas = detail.storyboard_statuses.find((s) => s.storyboard_id === 'schemas')!;
    expect(schemas).toMatchObject({ status: 'untested', steps_total: 0, steps_passed: 0 });
  });

  it('counts warnings as failures under --strict', () => {
    const run = buildRunFixture({ strict: true });
    const caps = toComplianceDetail(run).storyboard_statuses.find((s) => s.storyboard_id === 'capabilities')!;
    expect(caps.failure_count).toBe(3);
    expect(caps.steps_passed).toBe(3);
  });

  it("storyboard suites report under the storyboard's own id and track; a track of several suites is the worst of them", () => {
    const run = buildRunFixture();
    const named = (id: string, track: string, storyboard_id: string) => {
      const s = run.suites.find((x) => x.suite_id === id)!;
      s.track = track;
      s.storyboard_id = storyboard_id;
    };
    named('capabilities', 'core', 'capability_discovery'); // failing
    named('signing', 'core', 'signed_requests'); // partial
    named('webhooks', 'media_buy', 'media_buy_seller/webhooks'); // not applicable
    named('schemas', 'media_buy', 'schema_validation'); // untested
    const detail = toComplianceDetail(run);
    expect(detail.tracks).toEqual({ core: 'fail', idempotency: 'fail', media_buy: 'skip' });
    const core = detail.track_details.find((t) => t.track === 'core')!;
    expect(core).toMatchObject({ status: 'fail', scenario_count: 10, passed_count: 7 });
    expect(detail.storyboard_statuses.map((s) => [s.storyboard_id, s.track])).toEqual([
      ['capability_discovery', 'core'],
      ['idempotency', 'idempotency'],
      ['signed_requests', 'core'],
      ['schema_validation', 'media_buy'],
    ]);
  });

  it('is pure: the run is not modified and equal runs give equal projections', () => {
    const run = buildRunFixture();
    const before = JSON.stringify(run);
    const a = toComplianceDetail(run);
    expect(JSON.stringify(run)).toBe(before);
    expect(toComplianceDetail(buildRunFixture())).toEqual(a);
  });
});
