/**
 * A small storyboard bundle of our own for the rate_limit_trip_runner contract, written to a
 * temporary directory: a warm-up buy, then the trip step judging `replay_not_cached_rate_limit`. Its
 * storyboard, phase and step ids are the idempotency storyboard's, so its check is the one the mock's
 * `rate-limited-cached` fault targets. `runRateLimitBundle` runs it against the real mock seller on
 * loopback (rate-limit-run.test.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LifecycleStage } from '../../engine/lifecycle.js';
import type { RunResult } from '../../engine/result.js';
import type { MockSellerOptions } from '../../../../mocks/seller/options.js';
import { certifyMock } from '../../../../suites/testing/mock-run.js';
import { compileStoryboards } from '../compile.js';
import { loadStoryboardBundle } from '../load.js';

/** The check the trip step becomes. */
export const TRIP_CHECK = 'storyboard.idempotency.rate_limit_replay_invariant.expect_rate_limit_not_replayed';
export const WARM_UP_CHECK = 'storyboard.idempotency.warm_up.create_once';
/** The burst the fixture allows: the contract's least. */
export const FIXTURE_MAX_ATTEMPTS = 50;

const ACCOUNT = '{ brand: { domain: "ratelimit.example" }, operator: "trip-operator.example" }';
const BUY = `
          account: ${ACCOUNT}
          brand: { domain: "ratelimit.example" }
          start_time: "asap"
          end_time: "2099-06-30T23:59:59Z"
          packages:
            - { product_id: "ctv_sports_premium", pricing_option_id: "ctv_sports_cpm_usd", budget: 2500 }`;

const FILES: Record<string, string> = {
  'index.json': JSON.stringify({ adcp_version: '3.1.19', universal: ['idempotency'], protocols: [], specialisms: [] }),
  'universal/idempotency.yaml': `
id: idempotency
title: A rate-limited create is not cached under its key
track: core
required_tools: [create_media_buy]
phases:
  - id: warm_up
    steps:
      - id: create_once
        task: create_media_buy
        sample_request:
          idempotency_key: "$generate:uuid_v4#warm_up"${BUY}
          context: { correlation_id: "rate-limit-fixture--warm-up" }
        validations:
          - check: field_present
            path: media_buy_id
            description: the buy is created
  - id: rate_limit_replay_invariant
    steps:
      - id: expect_rate_limit_not_replayed
        task: expect_rate_limit_not_replayed
        requires_contract: rate_limit_trip_runner
        rate_limit_trip:
          trip_target_task: create_media_buy
          max_attempts: ${FIXTURE_MAX_ATTEMPTS}
          replay_max_wait_seconds: 5
          trip_target_sample_request:${BUY.replaceAll('\n          ', '\n            ')}
            context: { correlation_id: "rate-limit-fixture--trip" }
        validations:
          - check: replay_not_cached_rate_limit
            description: the key refused with RATE_LIMITED runs afresh after retry_after
`,
};

/** Writes the bundle; the caller removes the directory. */
export function writeRateLimitBundle(): string {
  const root = mkdtempSync(join(tmpdir(), 'storyboard-rate-limit-'));
  for (const [p, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}

/** Runs the bundle over MCP and A2A against a mock seller started with `mock` (media-buy only, no booking latency). */
export async function runRateLimitBundle(mock: MockSellerOptions, lifecycleStage?: LifecycleStage): Promise<RunResult> {
  const root = writeRateLimitBundle();
  try {
    const catalog = compileStoryboards(loadStoryboardBundle(root));
    return await certifyMock({
      token: 'adcp',
      catalog,
      suites: catalog.suites,
      ...(lifecycleStage ? { lifecycleStage } : {}),
      mock: { kinds: ['media-buy'], bookingLatencyMs: 0, ...mock },
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
