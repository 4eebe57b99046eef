/**
 * Bounded concurrency: at most `max` tasks hold a slot, the rest queued in order. A task may lend
 * its slot while it only waits (a webhook quiet period, a poll pause: nothing sent to the agent);
 * a queued task runs meanwhile, and the lender takes a slot back ahead of the queue when its wait
 * ends. So `max` bounds the checks calling the agent at once, not the checks alive.
 */
export type Lend = <T>(wait: () => Promise<T>) => Promise<T>;

export class Limiter {
  private active = 0;
  /** Waiters, lowest priority value first, then in arrival order. */
  private readonly queue: { priority: number; resolve: () => void }[] = [];

  constructor(private readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a positive integer, got ${max}`);
  }

  /** Tasks holding a slot now (tests and diagnostics). */
  get inFlight(): number {
    return this.active;
  }

  /** Run `fn` in a slot; queued tasks get slots by `priority` (lower first, default 0), then in order. */
  async run<T>(fn: (lend: Lend) => Promise<T>, priority = 0): Promise<T> {
    await this.acquire(priority);
    let lent = false;
    const lend: Lend = async (wait) => {
      if (lent) return wait(); // a wait inside a wait: the slot is already out
      lent = true;
      this.release();
      try {
        return await wait();
      } finally {
        await this.acquire(Number.NEGATIVE_INFINITY);
        lent = false;
      }
    };
    try {
      return await fn(lend);
    } finally {
      this.release();
    }
  }

  /** Take a free slot, or wait to be handed one (a returning lender goes ahead of every queued task). */
  private async acquire(priority: number): Promise<void> {
    if (this.active < this.max) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => {
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1]!.priority > priority) at--;
      this.queue.splice(at, 0, { priority, resolve });
    });
  }

  /** Hand the slot to the next waiter, or free it. */
  private release(): void {
    const next = this.queue.shift();
    if (next) next.resolve();
    else this.active--;
  }
}
