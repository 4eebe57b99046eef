/**
 * Certify a freshly started mock buyer with the webhook-receiver suite (self-tests), the harness
 * signing as its own sender identity (started here so the buyer can trust it up front).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certify, type CertifyOptions } from '../../../harness/certify/index.js';
import type { RunResult } from '../../../harness/core/engine/result.js';
import { startSenderIdentity, type SenderIdentity } from '../../../harness/core/webhooks/receiver-probe/sender.js';
import type { MockBuyerOptions } from '../index.js';
import { startMockBuyerFor } from '../trusting-buyer.js';

export interface BuyerRunOptions extends Omit<CertifyOptions, 'agentUrl' | 'receiverUrl' | 'receiver'> {
  buyer?: Partial<MockBuyerOptions>;
  /** Give the harness the read-back hook (default true). */
  withState?: boolean;
  /** Give the harness a second endpoint (default true). */
  withAlt?: boolean;
  /** Give the harness the legacy endpoints (HMAC and Bearer) and their credentials (default true). */
  withHmac?: boolean;
  /** Certify this agent too (otherwise a receiver-only run). */
  agentUrl?: string;
  /** Reuse a running sender identity (default: one per call). */
  identity?: SenderIdentity;
}

export async function certifyMockBuyer(o: BuyerRunOptions = {}): Promise<RunResult> {
  const identity = o.identity ?? (await startSenderIdentity({ token: o.token }));
  const dir = mkdtempSync(join(tmpdir(), 'buyer-suite-'));
  const { buyer: buyerOpts, withState = true, withAlt = true, withHmac = true, identity: _i, ...rest } = o;
  try {
    const { buyer, receiver } = await startMockBuyerFor(identity, {
      dbPath: join(dir, 'buyer.sqlite'),
      token: o.token,
      buyer: buyerOpts,
      bootstrapCaDir: join(dir, 'bootstrap-ca'),
    });
    const { url, stateUrl, altUrl, hmac, bearer, ...options } = receiver;
    try {
      return await certify({
        seed: '20261122',
        ...rest,
        receiverUrl: url,
        receiver: {
          ...options,
          stateUrl: withState ? stateUrl : undefined,
          altUrl: withAlt ? altUrl : undefined,
          hmac: withHmac ? hmac : undefined,
          bearer: withHmac ? bearer : undefined,
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
