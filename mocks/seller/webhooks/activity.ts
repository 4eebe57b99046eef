/**
 * `webhook_activity[]` of a media buy (interface spec 4.3; digest 5.8): one entry per delivery
 * attempt of an event about the buy, for the principal that owns the buy. Kept in the seller's
 * database, bounded per buy (the newest entries win).
 */
import type { RecordStore } from '../store/record-store.js';
import type { AttemptStatus } from './post.js';

const KIND = 'webhook_activity';
export const MAX_ENTRIES_PER_BUY = 100;

export interface ActivityEntry {
  idempotency_key: string;
  status: AttemptStatus | 'pending';
  http_status_code?: number;
  attempt: number;
  error_message?: string;
  /** Which channel fired: task status, delivery report or impairment. */
  task_type: string;
  at: string;
}

export class WebhookActivity {
  constructor(private readonly records: RecordStore) {}

  record(principal: string, mediaBuyId: string, entry: ActivityEntry): void {
    const list = this.list(principal, mediaBuyId);
    list.push(entry);
    const kept = list.slice(-MAX_ENTRIES_PER_BUY);
    this.records.put(KIND, principal, mediaBuyId, '', kept, Date.now());
  }

  list(principal: string, mediaBuyId: string): ActivityEntry[] {
    return this.records.get<ActivityEntry[]>(KIND, principal, mediaBuyId) ?? [];
  }
}
