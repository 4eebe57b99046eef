/**
 * The reference runner (`adcp storyboard run` of the pinned @adcp/sdk, its own 3.0.6 bundle, with
 * its loopback webhook receiver) assesses our reference mock seller, run in-process on loopback.
 * Every step it fails must be listed in mock-storyboards.yaml with the reason the mock is right,
 * and every listed step must still fail (a fixed one is taken off the list). Our own storyboard run
 * of the same bundle (MCP then A2A) is held to the file's `harness` list the same way. Skipped with
 * a message when the SDK package is not installed.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSeller } from '../../mocks/seller/index.js';
import type { RunningMockSeller } from '../../mocks/seller/options.js';
import { compileStoryboards } from '../../harness/core/storyboards/compile.js';
import { loadStoryboardBundle } from '../../harness/core/storyboards/load.js';
import { certifyMock } from '../testing/mock-run.js';

const SELLERS = join(import.meta.dirname, 'adcp-sdk-sellers');
const RUNNER = join(SELLERS, 'node_modules/@adcp/sdk/bin/adcp.js');
const present = existsSync(RUNNER);
if (!present) console.warn(`mock-storyboards.test.ts: skipped, the pinned @adcp/sdk package is not installed (${RUNNER})`);

interface Recorded {
  step: string;
  kind: 'spec' | 'line' | 'runner' | 'cascade' | 'assumption';
  reason: string;
}
interface Assessment {
  summary: { steps_passed: number; steps_failed: number };
  failures?: { storyboard_id: string; step_id: string }[];
}

interface HarnessRecorded {
  check: string;
  transports: string[];
  as?: string;
  kind?: Recorded['kind'];
  reason?: string;
}
const BUNDLE = join(SELLERS, 'node_modules/@adcp/sdk/compliance/cache/3.0.6');
const file = yaml.load(readFileSync(join(import.meta.dirname, 'mock-storyboards.yaml'), 'utf8')) as { failures: Recorded[]; harness: HarnessRecorded[] };
const recorded = file.failures;
const matches = (entry: string, step: string) => (entry.endsWith('/*') ? step.startsWith(entry.slice(0, -1)) : entry === step);

describe.skipIf(!present)('the reference runner against the reference mock seller', () => {
  let seller: RunningMockSeller;
  let assessment: Assessment;

  beforeAll(async () => {
    seller = await startMockSeller({ token: 'adcp', allowPrivateWebhooks: true });
    const args = [RUNNER, 'storyboard', 'run', seller.mcpUrl, '--auth', 'adcp', '--json', '--allow-http', '--webhook-receiver', '--timeout', '60'];
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: SELLERS, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }).catch(
      // The runner exits non-zero on a partial assessment; its JSON is on stdout all the same.
      (e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }),
    );
    assessment = JSON.parse(stdout) as Assessment;
  }, 150_000);
  afterAll(() => seller?.close());

  it('fails no step that mock-storyboards.yaml does not explain, and every explained step still fails', () => {
    const failing = (assessment.failures ?? []).map((f) => `${f.storyboard_id}/${f.step_id}`);
    expect(failing.filter((step) => !recorded.some((r) => matches(r.step, step)))).toEqual([]);
    expect(recorded.filter((r) => !failing.some((step) => matches(r.step, step))).map((r) => r.step)).toEqual([]);
    expect(assessment.summary.steps_passed).toBeGreaterThan(100);
  });

  it('gives every recorded failure a kind and a reason', () => {
    for (const r of recorded) {
      expect(['spec', 'line', 'runner', 'cascade', 'assumption'], r.step).toContain(r.kind);
      expect(r.reason.length, r.step).toBeGreaterThan(40);
    }
  });
});

describe.skipIf(!present)('our own storyboard run against the reference mock seller', () => {
  it('fails exactly the checks the harness list explains, each the same failure as a reference step or with its own reason', async () => {
    const catalog = compileStoryboards(loadStoryboardBundle(BUNDLE));
    const run = await certifyMock({
      token: 'adcp',
      target: '3.0',
      catalog,
      suites: catalog.suites,
      mock: { protocolLine: '3.1' },
      lifecycleStage: 'development',
    });
    expect(run.checks.filter((c) => c.outcome === 'error').map((c) => `${c.transport} ${c.check_id}: ${c.message}`)).toEqual([]);
    const failing = run.checks.filter((c) => c.outcome === 'fail').map((c) => `${c.transport} ${c.check_id}`);
    const listed = file.harness.flatMap((h) => h.transports.map((t) => `${t} ${h.check}`));
    expect(failing.filter((f) => !listed.includes(f)).sort()).toEqual([]);
    expect(listed.filter((f) => !failing.includes(f)).sort()).toEqual([]);
    for (const h of file.harness) {
      if (h.as)
        expect(
          recorded.map((r) => r.step),
          h.check,
        ).toContain(h.as);
      else expect(h.reason?.length ?? 0, h.check).toBeGreaterThan(40);
    }
  }, 180_000);
});
