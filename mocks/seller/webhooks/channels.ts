/**
 * Per-buy state of the persistent webhook channels (interface spec 6.3-6.5): the last delivery
 * report's sequence number and period end, the buy's open impairments, and whether the final
 * report has fired (after which nothing more fires; spec 6.5 rule 13). Stored in the seller's
 * database so a restarted seller keeps counting where it stopped.
 */
import type { RecordStore } from '../store/record-store.js';

const KIND = 'webhook_channel';
const MAX_IMPAIRMENTS = 50;

export interface ChannelState {
  sequence: number;
  /** End of the last reported period (ISO 8601). */
  reported_until?: string;
  final_sent: boolean;
  /** The reporting_webhook of the buy's first report (what a seller that ignores updates keeps using). */
  first_report_webhook?: unknown;
  impairments: Record<string, unknown>[];
}

export class ChannelStore {
  constructor(private readonly records: RecordStore) {}

  get(principal: string, mediaBuyId: string): ChannelState {
    return this.records.get<ChannelState>(KIND, principal, mediaBuyId) ?? { sequence: 0, final_sent: false, impairments: [] };
  }

  put(principal: string, mediaBuyId: string, state: ChannelState): void {
    const bounded = { ...state, impairments: state.impairments.slice(-MAX_IMPAIRMENTS) };
    this.records.put(KIND, principal, mediaBuyId, '', bounded, Date.now());
  }

  update(principal: string, mediaBuyId: string, change: (s: ChannelState) => void): ChannelState {
    const state = this.get(principal, mediaBuyId);
    change(state);
    this.put(principal, mediaBuyId, state);
    return state;
  }
}
