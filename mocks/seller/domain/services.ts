/** Everything a task handler may use, built once per running seller. */
import type { ProtocolIds } from '../../../harness/core/token.js';
import type { AgentKind } from '../../../harness/core/protocol/agent-kinds.js';
import type { FaultSet } from '../faults.js';
import type { RecordStore } from '../store/record-store.js';
import type { AsyncTaskService } from './async-tasks.js';
import type { Catalog } from './catalog.js';
import type { SellerClock } from './clock.js';
import type { SellerEvents } from './events.js';
import type { IdempotencyGuard } from './idempotency.js';
import type { MediaBuyService } from './media-buys.js';
import type { WebhookService } from '../webhooks/service.js';
import type { RequestSigningCapability } from '../../../harness/core/signing/verify/precheck.js';
import type { ProtocolLine } from '../../../harness/core/protocol/lines.js';

export interface SellerServices {
  ids: ProtocolIds;
  faults: FaultSet;
  clock: SellerClock;
  events: SellerEvents;
  records: RecordStore;
  catalog: Catalog;
  mediaBuys: MediaBuyService;
  asyncTasks: AsyncTaskService;
  idempotency: IdempotencyGuard;
  /** Webhook emission (task status, delivery reports, impairments) and the webhook activity log. */
  webhooks: WebhookService;
  /** The sandbox test controller is served (false: a production-like seller without it). */
  testController: boolean;
  /** The agent kinds served (MockSellerOptions.kinds), never empty. */
  kinds: readonly AgentKind[];
  /** The request_signing capability whose signatures the seller verifies (digest 1.15); absent: none. */
  requestSigning?: RequestSigningCapability;
  /** The seller serves an OAuth discovery graph and declares `oauth.supported: true` (MockSellerOptions.oauth). */
  oauth?: boolean;
  /** The protocol line the seller speaks (MockSellerOptions.protocolLine). */
  protocolLine: ProtocolLine;
  /**
   * `identity.brand_json_url` declared on 3.1 and later (digest 1.11 step 2): the seller's own
   * brand.json under https, as deployed; on loopback it is served over plain http on the same
   * host and port (harness/core/webhooks/emission/keys.ts reads it there).
   */
  brandJsonUrl?: string;
  /** Simulated latency of the downstream booking call inside create_media_buy (ms). */
  bookingLatencyMs: number;
  log: (line: string) => void;
}
