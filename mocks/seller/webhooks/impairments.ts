/**
 * Impairment coalescing (interface spec 6.5 rule 9, 8; digest 5.7): near-simultaneous
 * impairments of one buy are merged into one push. Each impairment gives its batch a deadline on
 * the seller's clock: the general window (at most 5 minutes by default; the sandbox uses a short
 * one) or, for latency-sensitive ones (fraud, brand safety), the latency-sensitive window (none
 * by default: they go out at once, together with anything already waiting). A batch is pushed
 * when its earliest deadline passes: by a real-time timer, or at once when the test controller
 * moves the seller's clock past it (`tick`), so a window can be checked without waiting it out.
 */

export const LATENCY_SENSITIVE = new Set(['fraud', 'brand_safety']);
/** The default upper bound of the window for general impairments (interface spec 8). */
export const MAX_COALESCE_WINDOW_MS = 5 * 60_000;
/** Latency-sensitive impairments: sub-minute or none (interface spec 6.5 rule 9). */
export const MAX_LATENCY_SENSITIVE_WINDOW_MS = 60_000;

type Flush = (principal: string, mediaBuyId: string, impairments: Record<string, unknown>[]) => void;

export interface CoalescingWindows {
  /** General impairments, milliseconds of seller time. */
  generalMs: number;
  /** Latency-sensitive impairments (fraud, brand safety), milliseconds of seller time. */
  latencySensitiveMs: number;
}

/** The seller's clock for one buy (its account's time), milliseconds since the epoch. */
export type BuyClock = (principal: string, mediaBuyId: string) => number;

interface Batch {
  principal: string;
  mediaBuyId: string;
  items: Record<string, unknown>[];
  /** Seller time at which the batch is due. */
  deadline: number;
  timer: NodeJS.Timeout | undefined;
}

/** Refuses a configured window beyond the defaults (a seller must not exceed them without opt-in). */
export function checkCoalescingWindows(w: CoalescingWindows): void {
  if (!(w.generalMs >= 0 && w.generalMs <= MAX_COALESCE_WINDOW_MS)) throw new RangeError(`impairment window must be 0..${MAX_COALESCE_WINDOW_MS} ms`);
  if (!(w.latencySensitiveMs >= 0 && w.latencySensitiveMs < MAX_LATENCY_SENSITIVE_WINDOW_MS)) {
    throw new RangeError(`latency-sensitive impairment window must be 0..${MAX_LATENCY_SENSITIVE_WINDOW_MS - 1} ms`);
  }
}

export class ImpairmentCoalescer {
  private readonly batches = new Map<string, Batch>();

  constructor(
    private readonly windows: CoalescingWindows,
    private readonly now: BuyClock,
    private readonly onFlush: Flush,
  ) {}

  add(principal: string, mediaBuyId: string, impairment: Record<string, unknown>): void {
    const key = `${principal}\u0000${mediaBuyId}`;
    let batch = this.batches.get(key);
    if (!batch) {
      batch = { principal, mediaBuyId, items: [], deadline: Number.POSITIVE_INFINITY, timer: undefined };
      this.batches.set(key, batch);
    }
    batch.items.push(impairment);
    const now = this.now(principal, mediaBuyId);
    const window = LATENCY_SENSITIVE.has(String(impairment.category)) ? this.windows.latencySensitiveMs : this.windows.generalMs;
    if (now + window < batch.deadline) {
      batch.deadline = now + window;
      if (window === 0) {
        this.flush(principal, mediaBuyId);
        return;
      }
      clearTimeout(batch.timer);
      // The seller's clock never runs slower than real time, so the deadline has passed when this fires.
      batch.timer = setTimeout(() => this.flush(principal, mediaBuyId), window);
      batch.timer.unref();
    }
  }

  /** Pushes every batch whose deadline the seller's clock has passed (after the clock was moved). */
  tick(): void {
    for (const b of [...this.batches.values()]) {
      if (this.now(b.principal, b.mediaBuyId) >= b.deadline) this.flush(b.principal, b.mediaBuyId);
    }
  }

  /** Sends whatever waits for this buy now (e.g. before its final report). */
  flush(principal: string, mediaBuyId: string): void {
    const key = `${principal}\u0000${mediaBuyId}`;
    const batch = this.batches.get(key);
    if (!batch) return;
    clearTimeout(batch.timer);
    this.batches.delete(key);
    if (batch.items.length > 0) this.onFlush(principal, mediaBuyId, batch.items);
  }

  pending(): number {
    return this.batches.size;
  }

  close(): void {
    for (const b of this.batches.values()) clearTimeout(b.timer);
    this.batches.clear();
  }
}
