/**
 * A mock buyer set up to be certified by the harness: it trusts the harness's sender identity and
 * has the endpoints the webhook-receiver suite uses (the built-in receiver of `proto-comply run`
 * without --agent, and of the self-tests through mocks/buyer/testing/certify-buyer.ts).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freeLoopbackPort } from '../../harness/core/net/listen.js';
import { BOOTSTRAP_HOSTS, slotUrls, VARIANTS } from '../../harness/core/webhooks/receiver-probe/bootstrap/variants.js';
import type { SenderIdentity } from '../../harness/core/webhooks/receiver-probe/sender.js';
import { startMockBuyer, type EndpointSpec, type MockBuyerOptions, type RunningMockBuyer } from './index.js';
import type { ReceiverTarget } from '../../harness/core/engine/resources.js';

/**
 * One endpoint per bootstrap sender agent of the harness (served on `port`): `/webhooks/bootstrap/<slot>`
 * bound to `https://agent.proto-comply.test:<port>/bootstrap/<slot>` (run --receiver-bootstrap).
 */
export function bootstrapEndpoints(port: number): EndpointSpec[] {
  const slots = ['mcp', 'a2a'].flatMap((c) => VARIANTS.map((v) => `${c}-${v}`));
  return slots.map((slot) => ({ id: `bootstrap-${slot}`, path: `/webhooks/bootstrap/${slot}`, senderAgent: slotUrls(port, slot).agentUrl }));
}

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
  o: { dbPath: string; token?: string; buyer?: Partial<MockBuyerOptions>; bootstrapCaDir?: string },
): Promise<{ buyer: RunningMockBuyer; receiver: ReceiverTarget }> {
  const hmacSecret = randomBytes(32).toString('base64url');
  const bearerToken = randomBytes(32).toString('base64url');
  // The harness's bootstrap sender agents (started by the run on this port, its CA kept in the
  // directory): an endpoint per agent, their test host names answered with loopback.
  const bootstrapPort = o.bootstrapCaDir !== undefined ? await freeLoopbackPort() : undefined;
  const caFile = o.bootstrapCaDir !== undefined ? join(o.bootstrapCaDir, 'certs', 'ca.pem') : undefined;
  const buyer = await startMockBuyer({
    dbPath: o.dbPath,
    token: o.token,
    trust: {
      senders: [{ brandJsonUrl: identity.brandJsonUrl, publisherDeclarationUrl: identity.publisherDeclarationUrl }],
      allowInsecureLoopback: true,
      ...(caFile
        ? {
            bootstrap: {
              caPem: () => (existsSync(caFile) ? readFileSync(caFile, 'utf8') : undefined),
              hosts: Object.fromEntries(BOOTSTRAP_HOSTS.map((h) => [h, '127.0.0.1'])),
            },
          }
        : {}),
    },
    dedupBounds: { [identity.agentUrls.flood]: FLOOD_BOUND },
    endpoints: [
      { id: 'alt' },
      { id: 'hmac', authentication: { schemes: ['HMAC-SHA256'], credentials: hmacSecret } },
      { id: 'bearer', authentication: { schemes: ['Bearer'], credentials: bearerToken } },
      ...(bootstrapPort !== undefined ? bootstrapEndpoints(bootstrapPort) : []),
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
      ...(bootstrapPort !== undefined
        ? { bootstrap: { url: `${buyer.baseUrl}/webhooks/bootstrap/{slot}`, port: bootstrapPort, caDir: o.bootstrapCaDir! } }
        : {}),
    },
  };
}
