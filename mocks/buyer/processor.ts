/**
 * Processing after acknowledgement (interface spec 6.5 rule 8): a worker drains the durable
 * queue (inbox) in arrival order. A delivery is processed in the same transaction that records
 * the processed event (keyed by the inbox seq), applies the task status and deletes the inbox
 * row, so a crash at any point either keeps the delivery queued or has it fully processed:
 * exactly once across restarts.
 *
 * Ordering (interface spec 3.2 rule 4): a status is applied only when its `timestamp` is newer
 * than the one already applied for (sender, task_id); duplicates and older statuses are
 * recorded but change nothing.
 */
import { bumpCounter, type Db } from './store/db.js';
import { parseEnvelope, type Envelope } from './envelope.js';
import type { BuyerFaultSet } from './faults.js';

interface InboxRow {
  seq: number;
  sender: string;
  endpoint: string;
  mode: string;
  idem_key: string;
  delivery_kind: string;
  received_at: number;
  body: Buffer;
}

interface TaskRow {
  status: string;
  timestamp_ms: number | null;
}

const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);

/** Deliveries per processing transaction, at most; and body bytes per batch, at most (bodies are up to 1 MB each). */
export const PROCESS_BATCH = 128;
export const PROCESS_BATCH_BYTES = 4 * 1024 * 1024;

export class Processor {
  private running = false;
  private paused: boolean;
  private closed = false;
  private waiters: Array<() => void> = [];
  private readonly s;
  private readonly processBatch: (rows: InboxRow[]) => void;
  private readonly processPlain: (rows: InboxRow[]) => void;
  private readonly bump;

  constructor(
    db: Db,
    private readonly o: { now: () => number; faults: BuyerFaultSet; paused?: boolean; log: (line: string) => void },
  ) {
    this.paused = o.paused === true;
    this.bump = bumpCounter(db);
    this.s = {
      // The oldest rows, stopping before the one whose body would pass the byte bound (always at least one).
      batch: db.prepare<[number, number], InboxRow>(
        `SELECT seq, sender, endpoint, mode, idem_key, delivery_kind, received_at, body FROM (
           SELECT *, SUM(length(body)) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) - length(body) AS before FROM inbox ORDER BY seq LIMIT ?
         ) WHERE before < ?`,
      ),
      count: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM inbox'),
      task: db.prepare<[string, string], TaskRow>('SELECT status, timestamp_ms FROM task_state WHERE sender = ? AND task_id = ?'),
      setTask: db.prepare(
        `INSERT INTO task_state (sender, task_id, status, timestamp, timestamp_ms, idem_key, format, seq, updated_at)
         VALUES (@sender, @task_id, @status, @timestamp, @timestamp_ms, @idem_key, @format, @seq, @updated_at)
         ON CONFLICT(sender, task_id) DO UPDATE SET status = excluded.status, timestamp = excluded.timestamp, timestamp_ms = excluded.timestamp_ms,
           idem_key = excluded.idem_key, format = excluded.format, seq = excluded.seq, updated_at = excluded.updated_at`,
      ),
      event: db.prepare(
        `INSERT INTO events (seq, sender, endpoint, mode, idem_key, notification_id, delivery_kind, format, task_id, status, timestamp, applied, note, received_at, processed_at)
         VALUES (@seq, @sender, @endpoint, @mode, @idem_key, @notification_id, @delivery_kind, @format, @task_id, @status, @timestamp, @applied, @note, @received_at, @processed_at)`,
      ),
      done: db.prepare('DELETE FROM inbox WHERE seq = ?'),
    };
    // One transaction per batch. Without savepoints first (nothing throws, the common case); when
    // a delivery's processing throws, the batch is rolled back and runs again with one savepoint
    // per delivery: the one that throws is recorded as processed with the error and never
    // retried forever.
    this.processPlain = db.transaction((rows: InboxRow[]) => {
      for (const row of rows) this.apply(row);
    });
    const one = db.transaction((row: InboxRow) => this.apply(row));
    this.processBatch = db.transaction((rows: InboxRow[]) => {
      for (const row of rows) {
        try {
          one(row);
        } catch (err) {
          this.o.log(`mock buyer: delivery ${row.seq} could not be processed: ${(err as Error).message}`);
          this.s.event.run({ ...this.eventBase(row, undefined), applied: 0, note: `processing error: ${(err as Error).message.slice(0, 200)}` });
          this.s.done.run(row.seq);
        }
      }
    });
  }

  pending(): number {
    return this.s.count.get()!.n;
  }

  kick(): void {
    if (this.running || this.paused || this.closed) return;
    this.running = true;
    setImmediate(() => this.loop());
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.kick();
  }

  /** Resolves when the queue is empty (or rejects after `timeoutMs`). */
  whenIdle(timeoutMs = 10_000): Promise<void> {
    if (!this.running && this.pending() === 0) return Promise.resolve();
    this.kick();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(new Error(`the queue did not drain within ${timeoutMs} ms (${this.pending()} pending${this.paused ? ', processing paused' : ''})`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
    });
  }

  close(): void {
    this.closed = true;
    this.running = false;
  }

  private loop(): void {
    if (this.closed || this.paused) {
      this.running = false;
      return;
    }
    const rows = this.s.batch.all(PROCESS_BATCH, PROCESS_BATCH_BYTES);
    if (rows.length === 0) {
      this.running = false;
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
      return;
    }
    try {
      // The processing commit does not wait for the disk (synchronous=NORMAL; only
      // acknowledgements do, store/commit.ts): it deletes the inbox rows in the same transaction
      // that records them processed, so if a power loss took it back, both come back together
      // and the deliveries are processed then, once. The next acknowledged commit's fsync makes
      // it durable with everything before it in the WAL.
      try {
        this.processPlain(rows);
      } catch {
        this.processBatch(rows);
      }
    } catch (err) {
      // The database itself failed: stop, the deliveries stay queued for the next start.
      this.o.log(`mock buyer: processing stopped: ${(err as Error).message}`);
      this.running = false;
      return;
    }
    setImmediate(() => this.loop());
  }

  private eventBase(row: InboxRow, env: Envelope | undefined) {
    return {
      seq: row.seq,
      sender: row.sender,
      endpoint: row.endpoint,
      mode: row.mode,
      idem_key: row.idem_key,
      notification_id: env?.notificationId ?? null,
      delivery_kind: row.delivery_kind,
      format: env?.format ?? 'other',
      task_id: env?.taskId ?? null,
      status: env?.status ?? null,
      timestamp: env?.timestamp ?? null,
      received_at: row.received_at,
      processed_at: this.o.now(),
    };
  }

  private apply(row: InboxRow): void {
    const parsed = parseEnvelope(JSON.parse(row.body.toString('utf8')));
    if (!parsed.ok) throw new Error(parsed.problem);
    const env = parsed.envelope;
    let applied = 0;
    let note: string | null = null;
    if (env.taskId !== undefined && env.status !== undefined) {
      const incoming = env.timestamp !== undefined ? Date.parse(env.timestamp) : Number.NaN;
      const current = this.s.task.get(row.sender, env.taskId);
      const newer =
        current === undefined ||
        this.o.faults.has('older-status-applied') ||
        (Number.isFinite(incoming) && (current.timestamp_ms === null || incoming > current.timestamp_ms));
      if (newer) {
        this.s.setTask.run({
          sender: row.sender,
          task_id: env.taskId,
          // The buggy receiver's status map lacks the terminal states: it stores them as working.
          status: TERMINAL.has(env.status) && this.o.faults.has('terminal-status-unmapped') ? 'working' : env.status,
          timestamp: env.timestamp ?? null,
          timestamp_ms: Number.isFinite(incoming) ? incoming : null,
          idem_key: row.idem_key,
          format: env.format,
          seq: row.seq,
          updated_at: this.o.now(),
        });
        applied = 1;
      } else {
        note = `not applied: ${current.status} is newer than ${env.status}`;
        this.bump('stale_statuses');
      }
    }
    this.s.event.run({ ...this.eventBase(row, env), applied, note });
    this.s.done.run(row.seq);
  }
}
