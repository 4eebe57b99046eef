/**
 * Bounded concurrency: at most `max` tasks hold a slot, the rest queued in order. A task may lend
 * its slot while it only waits (a webhook quiet period, a poll pause: nothing sent to the agent);
 * a queued task runs meanwhile, and the lender takes a slot back ahead of the queue when its wait
 * ends. So `max` bounds the checks calling the agent at once, not the checks alive.
 */
export type Lend = <T>(wait: () => Promise<T>) => Promise<T>;

export class Limiter {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a positive integer, got ${max}`);
  }

  /** Tasks holding a slot now (tests and diagnostics). */
  get inFlight(): number {
    return this.active;
  }

  async run<T>(fn: (lend: Lend) => Promise<T>): Promise<T> {
    await this.acquire(false);
    let lent = false;
    const lend: Lend = async (wait) => {
      if (lent) return wait(); // a wait inside a wait: the slot is already out
      lent = true;
      this.release();
      try {
        return await wait();
      } finally {
        await this.acquire(true);
        lent = false;
      }
    };
    try {
      return await fn(lend);
    } finally {
      this.release();
    }
  }

  /** Take a free slot, or wait to be handed one (a returning lender goes ahead of the queue). */
  private async acquire(ahead: boolean): Promise<void> {
    if (this.active < this.max) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => (ahead ? this.queue.unshift(resolve) : this.queue.push(resolve)));
  }

  /** Hand the slot to the next waiter, or free it. */
  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.active--;
  }
}
