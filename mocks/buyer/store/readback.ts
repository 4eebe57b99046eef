/**
 * Read-back of what the receiver did, for the admin routes and tests: processed events, current
 * task states and tallies. The `task` shape is the read-back convention the webhook-receiver
 * suite grades (suites/webhook-receiver/README.md).
 */
import type { Db } from './db.js';

export interface ProcessedEvent {
  seq: number;
  sender: string;
  endpoint: string;
  mode: string;
  idempotency_key: string;
  notification_id: string | null;
  /** `first`, `re-emission` (same notification_id, new key) or `retry` (fault no-dedup only). */
  delivery_kind: string;
  format: string;
  task_id: string | null;
  status: string | null;
  timestamp: string | null;
  /** 1 when the status became the task's current status. */
  applied: number;
  note: string | null;
  received_at: number;
  processed_at: number;
}

export interface TaskState {
  sender: string;
  task_id: string;
  status: string;
  timestamp: string | null;
  format: string;
  idempotency_key: string;
}

export interface TaskReadBack {
  /** Deliveries acknowledged but not processed yet (all tasks). */
  pending: number;
  task: TaskState | null;
  /** Every processing of a delivery for this task, oldest first. */
  events: ProcessedEvent[];
}

export interface ReceiverSnapshot {
  pending: number;
  processed: number;
  tasks: number;
  dedup_entries: number;
  counters: Record<string, number>;
}

const EVENT_COLUMNS = `seq, sender, endpoint, mode, idem_key AS idempotency_key, notification_id, delivery_kind, format, task_id, status, timestamp, applied, note, received_at, processed_at`;
export const MAX_EVENTS_PAGE = 1000;

export class ReadBack {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      pending: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM inbox'),
      processed: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM events'),
      tasks: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM task_state'),
      dedup: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM dedup'),
      counters: db.prepare<[], { name: string; n: number }>('SELECT name, n FROM counters ORDER BY name'),
      task: db.prepare<[string], TaskState>(
        'SELECT sender, task_id, status, timestamp, format, idem_key AS idempotency_key FROM task_state WHERE task_id = ? ORDER BY updated_at DESC LIMIT 1',
      ),
      taskEvents: db.prepare<[string, number], ProcessedEvent>(`SELECT ${EVENT_COLUMNS} FROM events WHERE task_id = ? ORDER BY seq LIMIT ?`),
      keyEvents: db.prepare<[string, number], ProcessedEvent>(`SELECT ${EVENT_COLUMNS} FROM events WHERE idem_key = ? ORDER BY seq LIMIT ?`),
      page: db.prepare<[number, number], ProcessedEvent>(`SELECT ${EVENT_COLUMNS} FROM events WHERE seq > ? ORDER BY seq LIMIT ?`),
    };
  }

  pending(): number {
    return this.s.pending.get()!.n;
  }

  snapshot(): ReceiverSnapshot {
    const counters: Record<string, number> = {};
    for (const c of this.s.counters.all()) counters[c.name] = c.n;
    return {
      pending: this.pending(),
      processed: this.s.processed.get()!.n,
      tasks: this.s.tasks.get()!.n,
      dedup_entries: this.s.dedup.get()!.n,
      counters,
    };
  }

  task(taskId: string): TaskReadBack {
    return { pending: this.pending(), task: this.s.task.get(taskId) ?? null, events: this.s.taskEvents.all(taskId, MAX_EVENTS_PAGE) };
  }

  eventsForKey(key: string): ProcessedEvent[] {
    return this.s.keyEvents.all(key, MAX_EVENTS_PAGE);
  }

  /** Processed events after `after` (seq), oldest first, at most `limit` (≤ 1000). */
  events(after = 0, limit = MAX_EVENTS_PAGE): ProcessedEvent[] {
    return this.s.page.all(after, Math.max(1, Math.min(limit, MAX_EVENTS_PAGE)));
  }
}
