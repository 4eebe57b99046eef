/** Everything a task handler may use, built once per running seller. */
import type { ProtocolIds } from '../../../harness/token.js';
import type { FaultSet } from '../faults.js';
import type { RecordStore } from '../store/record-store.js';
import type { AsyncTaskService } from './async-tasks.js';
import type { Catalog } from './catalog.js';
import type { SellerClock } from './clock.js';
import type { SellerEvents } from './events.js';
import type { IdempotencyGuard } from './idempotency.js';
import type { MediaBuyService } from './media-buys.js';

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
  /** The sandbox test controller is served (false: a production-like seller without it). */
  testController: boolean;
  /** Simulated latency of the downstream booking call inside create_media_buy (ms). */
  bookingLatencyMs: number;
  log: (line: string) => void;
}
