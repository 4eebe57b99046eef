/**
 * Run-scoped resources shared by the checks of one run (a webhook receiver on loopback, a JWKS
 * server...): opened on first use, shared by every later user, closed when the run ends.
 */
export interface OpenedResource<T> {
  value: T;
  close(): Promise<void>;
}

export class RunResources {
  private readonly opened = new Map<string, Promise<OpenedResource<unknown>>>();

  /** The resource named `key`, opening it once with `open`. Concurrent callers share one opening. */
  async get<T>(key: string, open: () => Promise<OpenedResource<T>>): Promise<T> {
    let p = this.opened.get(key) as Promise<OpenedResource<T>> | undefined;
    if (!p) {
      p = open();
      this.opened.set(key, p as Promise<OpenedResource<unknown>>);
      // A failed opening is not cached: the next user tries again.
      p.catch(() => this.opened.delete(key));
    }
    return (await p).value;
  }

  async closeAll(): Promise<void> {
    const all = [...this.opened.values()];
    this.opened.clear();
    await Promise.allSettled(all.map(async (p) => (await p).close()));
  }
}

/** Facts about the run that checks may read (beyond the agent profile). */
export interface RunFacts {
  /** A buyer's webhook receiver to certify (`run --receiver URL`). */
  receiverUrl?: string;
  /** The seed of the run. */
  seed: string;
}
