/**
 * Self-test support: certify a freshly started mock buyer with the webhook-receiver suite, the
 * harness signing as its own sender identity (started here so the buyer can trust it up front).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certify, type CertifyOptions } from '../../harness/certify.js';
import type { RunResult } from '../../harness/engine/result.js';
import { startSenderIdentity, type SenderIdentity } from '../../harness/webhooks/receiver-probe-sender.js';
import { startMockBuyer, type MockBuyerOptions } from './index.js';

/** The bound the self-tests declare for the harness's flood sender. */
export const FLOOD_BOUND = 20;

export interface BuyerRunOptions extends Omit<CertifyOptions, 'agentUrl' | 'receiverUrl' | 'receiver'> {
  buyer?: Partial<MockBuyerOptions>;
  /** Give the harness the read-back hook (default true). */
  withState?: boolean;
  /** Give the harness a second endpoint (default true). */
  withAlt?: boolean;
  /** Certify this agent too (otherwise a receiver-only run). */
  agentUrl?: string;
  /** Reuse a running sender identity (default: one per call). */
  identity?: SenderIdentity;
}

export async function certifyMockBuyer(o: BuyerRunOptions = {}): Promise<RunResult> {
  const identity = o.identity ?? (await startSenderIdentity({ token: o.token }));
  const dir = mkdtempSync(join(tmpdir(), 'buyer-suite-'));
  const { buyer: buyerOpts, withState = true, withAlt = true, identity: _i, ...rest } = o;
  try {
    const buyer = await startMockBuyer({
      dbPath: join(dir, 'buyer.sqlite'),
      token: o.token,
      trust: { senders: [{ brandJsonUrl: identity.brandJsonUrl, publisherDeclarationUrl: identity.publisherDeclarationUrl }], allowInsecureLoopback: true },
      dedupBounds: { [identity.agentUrls.flood]: FLOOD_BOUND },
      endpoints: [{ id: 'alt' }],
      ...buyerOpts,
    });
    try {
      return await certify({
        seed: '20261122',
        ...rest,
        receiverUrl: buyer.url,
        receiver: {
          stateUrl: withState ? buyer.stateUrl : undefined,
          altUrl: withAlt ? `${buyer.baseUrl}/webhooks/alt` : undefined,
          dedupBound: FLOOD_BOUND,
          senderBrandUrl: identity.brandJsonUrl,
        },
      });
    } finally {
      await buyer.close();
    }
  } finally {
    if (!o.identity) await identity.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
