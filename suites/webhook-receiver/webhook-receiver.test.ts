/**
 * The webhook-receiver suite against the reference mock buyer: every check passes on both
 * envelopes (receiver-only run, and alongside an agent); without --receiver every check is
 * not_applicable; without the read-back hook the read-back checks are coverage gaps.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/core/engine/result.js';
import { certifyMockBuyer } from '../../mocks/buyer/testing/certify-buyer.js';
import { certifyMock } from '../testing/mock-run.js';
import { builtinSuites } from '../index.js';
import { startMockSeller } from '../../mocks/seller/index.js';

const SUITE = 'webhook-receiver';
/** A whole-suite certification of the mock buyer (about 40 s alone, more beside other runs on shared cores). */
const CERTIFY_TIMEOUT_MS = 180_000;
const suiteChecks = () => builtinSuites().suites.find((s) => s.id === SUITE)!.checks;

function outcomes(run: RunResult): string[] {
  return run.checks.map((c) => `${c.transport} ${c.check_id}: ${c.outcome}${c.outcome === 'pass' ? '' : ` (${c.message})`}`);
}

describe('webhook-receiver suite', () => {
  it(
    'passes every check against the mock buyer on both envelopes (receiver-only run)',
    async () => {
      const run = await certifyMockBuyer();
      const ids = suiteChecks().map((c) => c.id);
      expect(run.checks).toHaveLength(ids.length * 2);
      expect(run.checks.filter((c) => c.outcome !== 'pass').map((c) => `${c.transport} ${c.check_id}: ${c.outcome} ${c.message}`)).toEqual([]);
      expect(run.overall_status).toBe('passing');
      expect(run.agent_url).toMatch(/\/webhooks\/default$/);
      expect(run.selection.suites).toEqual([SUITE]);
    },
    CERTIFY_TIMEOUT_MS,
  );

  it(
    'runs alongside an agent: the envelope follows the agent transport',
    async () => {
      const seller = await startMockSeller({ allowPrivateWebhooks: true });
      try {
        const run = await certifyMockBuyer({ agentUrl: seller.baseUrl, suites: [SUITE] });
        expect(outcomes(run).filter((l) => !l.endsWith(': pass'))).toEqual([]);
        expect(new Set(run.checks.map((c) => c.transport))).toEqual(new Set(['mcp', 'a2a']));
      } finally {
        await seller.close();
      }
    },
    CERTIFY_TIMEOUT_MS,
  );

  it(
    'derives every token-bearing identifier from the run token',
    async () => {
      const run = await certifyMockBuyer({ token: 'adcp', transports: ['mcp'], transportExplicit: true });
      expect(outcomes(run).filter((l) => !l.endsWith(': pass'))).toEqual([]);
      const wrongTag = run.checks.find((c) => c.check_id === 'webhook-receiver.signature.wrong-tag-rejected')!;
      expect(wrongTag.outcome).toBe('pass');
    },
    CERTIFY_TIMEOUT_MS,
  );

  it('is not applicable without --receiver', async () => {
    const run = await certifyMock({ suites: [SUITE] });
    expect(run.checks.length).toBeGreaterThan(0);
    for (const c of run.checks) {
      expect(c.outcome, c.check_id).toBe('not_applicable');
      expect(c.message).toContain('--receiver');
    }
  });

  it(
    'grades read-back and second-endpoint checks as coverage gaps without their hooks',
    async () => {
      const run = await certifyMockBuyer({ withState: false, withAlt: false, withHmac: false, transports: ['mcp'], transportExplicit: true });
      const byOutcome = (o: string) =>
        run.checks
          .filter((c) => c.outcome === o)
          .map((c) => c.check_id)
          .sort();
      expect(byOutcome('gap')).toEqual([
        'webhook-receiver.bearer.valid-accepted',
        'webhook-receiver.bearer.wrong-credential-rejected',
        'webhook-receiver.correlation.url-values-ignored',
        'webhook-receiver.dedup.first-copy-wins',
        'webhook-receiver.dedup.per-sender-keyspace',
        'webhook-receiver.dedup.re-emission-processed',
        'webhook-receiver.dedup.shared-across-endpoints',
        'webhook-receiver.delivery.duplicate-processed-once',
        'webhook-receiver.envelope.processed',
        'webhook-receiver.hmac.raw-body-verified',
        'webhook-receiver.hmac.signature-format-rejected',
        'webhook-receiver.hmac.timestamp-non-numeric-rejected',
        'webhook-receiver.hmac.timestamp-skew-rejected',
        'webhook-receiver.hmac.valid-accepted',
        'webhook-receiver.mode.signature-on-hmac-endpoint-rejected',
        'webhook-receiver.ordering.older-status-not-applied',
      ]);
      expect(byOutcome('fail')).toEqual([]);
      expect(run.checks.find((c) => c.check_id === 'webhook-receiver.envelope.processed')!.message).toContain('--receiver-state');
      // a MUST that could not be verified is never green: the run is partial (exit 4), not passing
      expect(run.overall_status).toBe('partial');
      expect(run.coverage.gaps.map((g) => g.gap).sort()).toEqual([
        'receiver options (--receiver-bearer)',
        'receiver options (--receiver-hmac)',
        'receiver options (--receiver-state)',
        'receiver options (--receiver-state, --receiver-alt)',
      ]);
      expect(run.checks.find((c) => c.check_id === 'webhook-receiver.hmac.valid-accepted')!.message).toContain('$PROTO_COMPLY_RECEIVER_HMAC_SECRET');
    },
    CERTIFY_TIMEOUT_MS,
  );

  it(
    'tells the user to trust the harness sender when the receiver refuses its key',
    async () => {
      const run = await certifyMockBuyer({
        buyer: { trust: { senders: [] } },
        transports: ['mcp'],
        transportExplicit: true,
        checkGlob: 'webhook-receiver.delivery.valid-accepted',
      });
      const c = run.checks[0]!;
      expect(c.outcome).toBe('fail');
      expect(c.message).toMatch(/webhook_signature_key_unknown.*trust the harness sender http:\/\/127\.0\.0\.1:\d+\/\.well-known\/brand\.json/);
      expect(c.evidence?.exchanges.length).toBeGreaterThan(0);
    },
    CERTIFY_TIMEOUT_MS,
  );
});
