/**
 * Certify a freshly started mock buyer with the webhook-receiver suite (self-tests; `startMockBuyerFor`
 * is also the built-in receiver of `proto-comply run` without --agent), the
 * harness signing as its own sender identity (started here so the buyer can trust it up front).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certify, type CertifyOptions } from '../../harness/certify/certify.js';
import type { RunResult } from '../../harness/core/engine/result.js';
import { startSenderIdentity, type SenderIdentity } from '../../harness/core/webhooks/receiver-probe/sender.js';
import { startMockBuyer, type MockBuyerOptions, type RunningMockBuyer } from './index.js';
import type { ReceiverTarget } from '../../harness/core/engine/resources.js';

/** The bound the self-tests declare for the harness's flood sender. */
export const FLOOD_BOUND = 20;

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

/**
 * A mock buyer that trusts the harness's sender identity (brand.json + publisher pin on
 * loopback), bounds the identity's flood sender at FLOOD_BOUND and has a second endpoint `alt`
 * and endpoints `hmac` and `bearer` registered for the legacy schemes under fresh credentials;
 * with the receiver target that certifies it (read-back hook, second endpoint, legacy endpoints
 * and their credentials, bound, sender).
 */
export async function startMockBuyerFor(
  identity: SenderIdentity,
  o: { dbPath: string; token?: string; buyer?: Partial<MockBuyerOptions> },
): Promise<{ buyer: RunningMockBuyer; receiver: ReceiverTarget }> {
  const hmacSecret = randomBytes(32).toString('base64url');
  const bearerToken = randomBytes(32).toString('base64url');
  const buyer = await startMockBuyer({
    dbPath: o.dbPath,
    token: o.token,
    trust: { senders: [{ brandJsonUrl: identity.brandJsonUrl, publisherDeclarationUrl: identity.publisherDeclarationUrl }], allowInsecureLoopback: true },
    dedupBounds: { [identity.agentUrls.flood]: FLOOD_BOUND },
    endpoints: [
      { id: 'alt' },
      { id: 'hmac', authentication: { schemes: ['HMAC-SHA256'], credentials: hmacSecret } },
      { id: 'bearer', authentication: { schemes: ['Bearer'], credentials: bearerToken } },
    ],
    ...o.buyer,
  });
  return {
    buyer,
    receiver: {
      url: buyer.url,
      stateUrl: buyer.stateUrl,
      altUrl: `${buyer.baseUrl}/webhooks/alt`,
      dedupBound: FLOOD_BOUND,
      senderBrandUrl: identity.brandJsonUrl,
      hmac: { url: `${buyer.baseUrl}/webhooks/hmac`, secret: hmacSecret },
      bearer: { url: `${buyer.baseUrl}/webhooks/bearer`, secret: bearerToken },
    },
  };
}

export async function certifyMockBuyer(o: BuyerRunOptions = {}): Promise<RunResult> {
  const identity = o.identity ?? (await startSenderIdentity({ token: o.token }));
  const dir = mkdtempSync(join(tmpdir(), 'buyer-suite-'));
  const { buyer: buyerOpts, withState = true, withAlt = true, withHmac = true, identity: _i, ...rest } = o;
  try {
    const { buyer, receiver } = await startMockBuyerFor(identity, { dbPath: join(dir, 'buyer.sqlite'), token: o.token, buyer: buyerOpts });
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
