/**
 * A mock buyer set up to be certified by the harness: it trusts the harness's sender identity and
 * has the endpoints the webhook-receiver suite uses (the built-in receiver of `proto-comply run`
 * without --agent, and of the self-tests through mocks/buyer/testing/certify-buyer.ts).
 */
import { randomBytes } from 'node:crypto';
import type { SenderIdentity } from '../../harness/core/webhooks/receiver-probe/sender.js';
import { startMockBuyer, type MockBuyerOptions, type RunningMockBuyer } from './index.js';
import type { ReceiverTarget } from '../../harness/core/engine/resources.js';

/** The bound the self-tests declare for the harness's flood sender. */
export const FLOOD_BOUND = 20;

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
