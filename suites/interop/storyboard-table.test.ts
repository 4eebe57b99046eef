/** The storyboard side-by-side table: verdict classes of both runners, agreement, reasons, collapsed rows. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Storyboard, StoryboardBundle } from '../../harness/core/storyboards/model.js';
import { loadReasons, renderStoryboardTable, tableRowsOf, unexplained, type Reasons, type SideBySide } from './testing/storyboard-table.js';
import { ourVerdicts, referenceVerdicts, type ReferenceResult } from './testing/storyboard-verdicts.js';

const step = (id: string, title = id) => ({ id, title, task: 't', stateful: true, expectError: false, contextOutputs: [], validations: [], raw: {} });
const storyboard = (id: string, phases: Record<string, string[]>) =>
  ({
    id,
    title: id,
    phases: Object.entries(phases).map(([p, steps]) => ({ id: p, steps: steps.map((s) => step(s)), dependsOn: [], optional: false, raw: {} })),
    raw: {},
  }) as unknown as Storyboard;
const bundle: StoryboardBundle = {
  root: '/',
  entries: [],
  otherFiles: [],
  testKits: [],
  storyboards: new Map([
    ['a', storyboard('a', { p1: ['s1', 's2'], p2: ['s3'] })],
    ['a/scenario', storyboard('a/scenario', { p: ['x'] })],
    ['sec', storyboard('sec', { p: ['y', 'z'] })],
    ['off', storyboard('off', { p: ['w'] })],
  ]),
};

const reference: ReferenceResult = {
  tracks: [
    {
      track: 'core',
      scenarios: [
        {
          scenario: 'a/p1',
          steps: [
            { step: 's1', passed: true },
            { step: 's2', passed: false },
          ],
        },
        {
          scenario: 'a/p2',
          steps: [{ step: 's3', passed: false, skipped: true, skip_reason: 'prerequisite_failed', error: 'Skipped: prior stateful step failed.' }],
        },
        {
          scenario: 'a/scenario/p',
          steps: [
            {
              step: 'x',
              passed: false,
              skipped: true,
              skip_reason: 'prerequisite_failed',
              error: 'Skipped: prior stateful step "q" skipped (missing_tool); state never materialized.',
            },
          ],
        },
      ],
    },
  ],
  failures: [{ storyboard_id: 'sec', step_id: 'z' }],
  storyboards_executed: ['a', 'a/scenario', 'sec'],
};

const ours = (outcomes: Record<string, string>, transport = 'mcp') => ({
  checks: Object.entries(outcomes).map(([check_id, outcome]) => ({ check_id, outcome, transport })),
});

describe('storyboard verdicts', () => {
  it('maps the reference runner: steps found by phase and title, skips by reason, a skip after a skip, unreported tracks, storyboards not run', () => {
    const v = referenceVerdicts(reference, bundle);
    expect(Object.fromEntries([...v].map(([k, x]) => [k, x.cls]))).toEqual({
      'a/s1': 'passed',
      'a/s2': 'failed',
      'a/s3': 'blocked',
      'a/scenario/x': 'not_applicable',
      'sec/y': 'unreported',
      'sec/z': 'failed',
      'off/w': 'not_applicable',
    });
    expect(v.get('a/scenario/x')?.shown).toBe('skipped: prerequisite_failed (after missing_tool)');
  });

  it('names an unknown skip reason instead of guessing its class', () => {
    const odd: ReferenceResult = {
      tracks: [{ track: 'core', scenarios: [{ scenario: 'off/p', steps: [{ step: 'w', passed: true, skipped: true, skip_reason: 'new_reason' }] }] }],
      storyboards_executed: ['off'],
    };
    expect(() => referenceVerdicts(odd, bundle)).toThrow(/unknown skip reason new_reason/);
  });

  it('maps ours from the step checks of one transport (scenario ids keep their slash as a dot)', () => {
    const v = ourVerdicts(
      ours({ 'storyboard.a.p1.s1': 'pass', 'storyboard.a.scenario.p.x': 'gap', 'storyboard.off.p.w': 'not_applicable' }) as never,
      bundle,
      'mcp',
    );
    expect(v.get('a/s1')).toEqual({ shown: 'pass', cls: 'passed' });
    expect(v.get('a/scenario/x')).toEqual({ shown: 'gap', cls: 'not_verified' });
    expect(v.has('a/s2')).toBe(false);
  });
});

describe('storyboard table', () => {
  const side = (reasons: Reasons = new Map()): SideBySide => ({
    agent: 'seller',
    bundle,
    reference: referenceVerdicts(reference, bundle),
    ours: [
      {
        transport: 'mcp',
        verdicts: ourVerdicts(
          ours({
            'storyboard.a.p1.s1': 'pass',
            'storyboard.a.p1.s2': 'fail',
            'storyboard.a.p2.s3': 'blocked',
            'storyboard.a.scenario.p.x': 'not_applicable',
            'storyboard.sec.p.z': 'gap',
          }) as never,
          bundle,
          'mcp',
        ),
      },
      {
        transport: 'a2a',
        verdicts: ourVerdicts(ours({ 'storyboard.a.p1.s1': 'not_applicable', 'storyboard.a.p1.s2': 'fail' }, 'a2a') as never, bundle, 'a2a'),
      },
    ],
    reasons,
  });

  it('agrees per transport, does not compare an unreported step, and collapses a storyboard no column applies', () => {
    const rows = Object.fromEntries(tableRowsOf(side()).map((r) => [r.key, r.agree]));
    expect(rows).toEqual({
      'a/s1': 'no (a2a)',
      'a/s2': 'yes',
      'a/s3': 'no (a2a)',
      'a/scenario/*': 'yes',
      'sec/y': '—',
      'sec/z': 'no',
      'off/*': 'yes',
    });
  });

  it('takes a reason by key, per agent, or for the step in any storyboard, and marks a disagreement without one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'reasons-'));
    try {
      const file = join(dir, 'r.yaml');
      writeFileSync(
        file,
        [
          '_shared: &shared { class: ours-not-yet, why: Not yet. }',
          '"*/s1": { class: ours-wrong, why: Any storyboard. }',
          'sec/z:',
          '  - { agents: [other], class: theirs-wrong, why: Not this agent. }',
          '  - { agents: [seller], <<: *shared }',
        ].join('\n'),
      );
      const reasons = loadReasons(file);
      expect([...reasons.keys()]).toEqual(['*/s1', 'sec/z']);
      const rows = tableRowsOf(side(reasons));
      expect(rows.find((r) => r.key === 'a/s1')?.reason?.class).toBe('ours-wrong');
      expect(rows.find((r) => r.key === 'sec/z')?.reason).toEqual({ agents: ['seller'], class: 'ours-not-yet', why: 'Not yet.' });
      expect(unexplained(rows).map((r) => r.key)).toEqual(['a/s3']);
      const text = renderStoryboardTable(side(reasons));
      expect(text.split('\n')[0]).toBe('7 rows: 3 agree, 3 disagree (ours-wrong 1, ours-not-yet 1, no reason yet 1), 1 not compared.');
      expect(text).toContain('| a | s3 | skipped: prerequisite_failed | blocked | — | no (a2a) | **no reason recorded** |');
      writeFileSync(file, 'a/s1: { class: unsure, why: x }');
      expect(() => loadReasons(file)).toThrow(/a\/s1: each reason needs a class/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
