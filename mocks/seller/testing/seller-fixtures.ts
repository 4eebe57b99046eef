/** Shared helpers for the mock seller's tests: a quiet seller, fresh keys and accounts, create args. */
import { randomUUID } from 'node:crypto';
import { startMockSeller } from '../index.js';
import type { MockSellerOptions, RunningMockSeller } from '../options.js';

export function startTestSeller(opts: MockSellerOptions = {}): Promise<RunningMockSeller> {
  return startMockSeller({ bookingLatencyMs: 0, allowPrivateWebhooks: true, ...opts });
}

export const key = (): string => randomUUID();

/** A fresh account per test, so tests never see each other's buys or keys. */
export function freshAccount(): { brand: { domain: string }; operator: string } {
  return { brand: { domain: 'example.com' }, operator: `op-${randomUUID().slice(0, 8)}.example` };
}

export const PRODUCT = { product_id: 'ctv_sports_premium', pricing_option_id: 'ctv_sports_cpm_usd' };

export function isoIn(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString();
}

export function createArgs(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    idempotency_key: key(),
    account: freshAccount(),
    brand: { domain: 'example.com' },
    start_time: 'asap',
    end_time: isoIn(30),
    packages: [{ ...PRODUCT, budget: 5000 }],
    ...overrides,
  };
}
