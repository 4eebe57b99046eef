/**
 * upstream_traffic judged on a real implementation: the SDK's signal-marketplace agent, whose test
 * controller offers query_upstream_traffic with what its adapter sent to the SDK's mock upstream.
 * Its reads and activations hold; a method it never uses, a value it never forwards and a `since`
 * naming no step fail, each saying why. Skipped when @adcp/sdk is not installed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { certify } from '../../harness/certify/index.js';
import type { RunResult } from '../../harness/core/engine/result.js';
import { compileStoryboards } from '../../harness/core/storyboards/compile.js';
import { loadStoryboardBundle } from '../../harness/core/storyboards/load.js';
import { INTEROP_AGENTS, launch, stop, type Launched } from './testing/agents.js';
import { sdkInstalled } from './testing/storyboard-runs.js';

const installed = sdkInstalled();
if (!installed) console.warn('upstream-traffic.test.ts skipped: @adcp/sdk is not installed (npm ci in suites/interop/adcp-sdk-sellers)');

describe.skipIf(!installed)('upstream_traffic on the SDK signal-marketplace agent', () => {
  let agent: Launched | undefined;
  let run: RunResult;
  beforeAll(async () => {
    agent = await launch(INTEROP_AGENTS.find((a) => a.id === 'signals')!);
    const catalog = compileStoryboards(loadStoryboardBundle(join(import.meta.dirname, 'testing', 'upstream', 'upstream-traffic.yaml')));
    run = await certify({
      agentUrl: agent.facts.mcp,
      transports: ['mcp'],
      transportExplicit: true,
      token: 'adcp',
      target: '3.0',
      lifecycleStage: 'development',
      authToken: agent.facts.token,
      catalog,
      suites: catalog.suites,
      seed: '20261129',
    });
  }, 120_000);
  afterAll(() => stop(agent));

  const validations = (step: string) =>
    run.checks.find((c) => c.check_id === `storyboard.upstream_probe.p.${step}`)?.storyboard_step?.validations?.map((v) => [v.outcome, v.message]);

  it('holds for the calls the adapter made: its reads, an activation carrying the segment, a window from an earlier step', () => {
    expect(validations('signals')).toEqual([['passed', expect.stringMatching(/^\d+ of \d+ upstream call\(s\) matched$/)]]);
    expect(validations('activate')).toEqual([
      ['passed', expect.stringMatching(/upstream call\(s\) matched$/)],
      ['passed', expect.stringMatching(/upstream call\(s\) matched$/)],
    ]);
  });

  it('fails a call that never happens, a value never forwarded, and a since naming no step', () => {
    expect(validations('never')).toEqual([
      ['failed', expect.stringMatching(/^expected at least 1 matching upstream call\(s\), observed 0 of \d+$/)],
      // The value as sent: the storyboard's literal key with the pass's suffix (pass-keys.ts).
      ['failed', expect.stringMatching(/^values the request sent reached no upstream call: "upstream-probe-never-sent-0001\.pc-mcp-[0-9a-f]{8}"$/)],
      ['failed', 'since: "nowhere" names no earlier step of the storyboard that sent a request'],
    ]);
  });
});
