/**
 * `canonical_format_satisfaction` through the real engine against the mock seller on loopback,
 * over MCP and A2A, with our own bundle in testing/canonical-formats/: the seeded fixed-banner
 * product's selectors pass on the reference seller; the fault that takes an under-specified
 * direct selector as matching (mocks/seller/domain/format-selectors.ts) fails exactly the step
 * judging it; a 3.0 run does not judge the 3.1 storyboard at all.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { certifyMock, findingIds } from '../../../suites/testing/mock-run.js';
import { getFault } from '../../../mocks/seller/faults.js';
import { UNDERSPECIFIED_ACCEPTED } from '../../../mocks/seller/domain/format-selectors.js';
import type { RunResult } from '../engine/result.js';
import type { ProtocolLine } from '../protocol/lines.js';
import { compileStoryboards } from './compile.js';
import { loadStoryboardBundle } from './load.js';

const BUNDLE = join(import.meta.dirname, 'testing', 'canonical-formats');
const catalog = compileStoryboards(loadStoryboardBundle(BUNDLE));
const runWith = (faults: string[], target: ProtocolLine = '3.1'): Promise<RunResult> =>
  certifyMock({ token: 'adcp', catalog, suites: catalog.suites, target, mock: { kinds: ['media-buy'], faults } });

const STEPS = [
  'discover.read',
  'create.legacy_accepted',
  'create.ref_accepted',
  'create.direct_accepted',
  'create.bare_kind_refused',
  'create.unknown_ref_refused',
];
const check = (run: RunResult, step: string, t: string) => run.checks.find((c) => c.check_id === `storyboard.canonical_selectors.${step}` && c.transport === t);
const validation = (run: RunResult, step: string, t: string) =>
  check(run, step, t)?.storyboard_step?.validations?.find((v) => v.check === 'canonical_format_satisfaction');

let clean: RunResult;
beforeAll(async () => {
  clean = await runWith([]);
}, 120_000);

describe('canonical_format_satisfaction on the mock seller', () => {
  it.each(['mcp', 'a2a'])('passes every selector step on the reference seller (%s)', (t) => {
    expect(STEPS.map((s) => [s, check(clean, s, t)?.outcome])).toEqual(STEPS.map((s) => [s, 'pass']));
    expect(validation(clean, 'create.bare_kind_refused', t)).toMatchObject({
      outcome: 'passed',
      message:
        'rejected (UNSUPPORTED_FEATURE) for its format selector; product cf_fixed_banner (as step read returned it): format_options[0] (cf_banner): the selector omits params.width, which the declaration fixes at 320',
      actual: { accepted: false, local_satisfied: false, rejection: { codes: ['UNSUPPORTED_FEATURE'], format_cause: true } },
    });
    expect(validation(clean, 'create.legacy_accepted', t)?.message).toBe(
      'accepted; product cf_fixed_banner (as step read returned it): every legacy format_ids[] entry normalizes to one of its declarations',
    );
  });

  it('fails exactly the under-specified selector step on a seller taking a bare format_kind as a wildcard', async () => {
    const fault = getFault(UNDERSPECIFIED_ACCEPTED)!;
    expect(fault.storyboard).toBe('harness/core/storyboards/testing/canonical-formats');
    const faulty = await runWith([UNDERSPECIFIED_ACCEPTED]);
    for (const t of ['mcp', 'a2a']) {
      expect(findingIds(faulty, t)).toEqual([...fault.targets]);
      expect(check(faulty, 'create.bare_kind_refused', t)?.storyboard_step?.validations).toEqual([
        expect.objectContaining({
          check: 'canonical_format_satisfaction',
          outcome: 'failed',
          message:
            'the agent accepted a request that does not satisfy product cf_fixed_banner (as step read returned it): format_options[0] (cf_banner): the selector omits params.width, which the declaration fixes at 320',
          expected: { accepted: false, local_satisfied: false },
          actual: { accepted: true, local_satisfied: false },
          pointer: '/packages/0/format_kind',
        }),
      ]);
    }
  }, 120_000);

  it('does not judge the 3.1 storyboard in a 3.0 run', async () => {
    const old = await runWith([], '3.0');
    for (const s of STEPS)
      expect(check(old, s, 'mcp'), s).toMatchObject({ outcome: 'not_applicable', message: expect.stringContaining('introduced in 3.1; the run targets 3.0') });
    expect(findingIds(old)).toEqual([]);
  }, 120_000);
});
