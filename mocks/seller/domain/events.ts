/**
 * The seller's internal event stream. Every task-status change and media-buy lifecycle change
 * flows through here, so a webhook sender (a later issue) subscribes in one place and finds the
 * registered `push_notification_config` / `reporting_webhook` on the record it receives.
 */
import { EventEmitter } from 'node:events';
import type { AsyncTaskRecord } from './async-task-record.js';
import type { MediaBuyRecord } from './media-buy-record.js';

export interface TaskStatusChanged {
  task: AsyncTaskRecord;
  previous_status: string;
  status: string;
  at: string;
}

export interface MediaBuyStatusChanged {
  media_buy: MediaBuyRecord;
  previous_status: string;
  status: string;
  /** Who moved it: the buyer (update_media_buy), the seller (flight dates), or the test controller. */
  cause: 'buyer' | 'seller' | 'controller';
  at: string;
}

export interface DeliverySimulated {
  media_buy: MediaBuyRecord;
  simulated: { impressions: number; clicks: number; spend: number };
  at: string;
}

/** A creative's review state moved by seller or system initiative (here: the test controller). */
export interface CreativeStatusChanged {
  principal: string;
  /** The account's scope key (`id:<account_id>` or `brand:<domain>|<operator>`). */
  account_key: string;
  creative_id: string;
  previous_status: string;
  status: string;
  at: string;
}

export interface SellerEventMap {
  'creative.status_changed': CreativeStatusChanged;
  'task.status_changed': TaskStatusChanged;
  'media_buy.status_changed': MediaBuyStatusChanged;
  'delivery.simulated': DeliverySimulated;
}

export type SellerEventName = keyof SellerEventMap;

export class SellerEvents {
  private readonly emitter = new EventEmitter();

  constructor(private readonly log: (line: string) => void = () => {}) {
    this.emitter.setMaxListeners(50);
  }

  on<K extends SellerEventName>(name: K, listener: (event: SellerEventMap[K]) => void): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }

  /** Delivers synchronously; a throwing listener is logged and never breaks the task that emitted. */
  emit<K extends SellerEventName>(name: K, event: SellerEventMap[K]): void {
    for (const listener of this.emitter.listeners(name)) {
      try {
        (listener as (e: SellerEventMap[K]) => void)(structuredClone(event));
      } catch (err) {
        this.log(`event listener for ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  removeAll(): void {
    this.emitter.removeAllListeners();
  }
}
