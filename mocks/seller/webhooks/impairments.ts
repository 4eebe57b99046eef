/**
 * Impairment coalescing (interface spec 6.5 rule 9, digest 5.7): near-simultaneous impairments
 * of one buy are merged into one push. General impairments wait for the coalescing window
 * (at most 5 minutes by default; the sandbox uses a short real-time window); latency-sensitive
 * ones (fraud, brand safety) go out at once, together with anything already waiting.
 */

export const LATENCY_SENSITIVE = new Set(['fraud', 'brand_safety']);
/** The default upper bound of the window (interface spec 8). */
export const MAX_COALESCE_WINDOW_MS = 5 * 60_000;

type Flush = (principal: string, mediaBuyId: string, impairments: Record<string, unknown>[]) => void;

interface Batch {
  items: Record<string, unknown>[];
  timer: NodeJS.Timeout;
}

export class ImpairmentCoalescer {
  private readonly batches = new Map<string, Batch>();

  constructor(
    private readonly windowMs: number,
    private readonly onFlush: Flush,
  ) {
    if (!(windowMs >= 0 && windowMs <= MAX_COALESCE_WINDOW_MS)) throw new RangeError(`impairment window must be 0..${MAX_COALESCE_WINDOW_MS} ms`);
  }

  add(principal: string, mediaBuyId: string, impairment: Record<string, unknown>): void {
    const key = `${principal}\u0000${mediaBuyId}`;
    let batch = this.batches.get(key);
    if (!batch) {
      const timer = setTimeout(() => this.flush(principal, mediaBuyId), this.windowMs);
      timer.unref();
      batch = { items: [], timer };
      this.batches.set(key, batch);
    }
    batch.items.push(impairment);
    if (this.windowMs === 0 || LATENCY_SENSITIVE.has(String(impairment.category))) this.flush(principal, mediaBuyId);
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
