import { describe, expect, it } from 'vitest';
import { Limiter } from './limiter.js';

/** A promise with its resolver, to drive tasks step by step. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

const ticks = () => new Promise((r) => setImmediate(r));

describe('Limiter', () => {
  it('never lets more than max tasks hold a slot', async () => {
    const limiter = new Limiter(2);
    let holding = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        limiter.run(async () => {
          most = Math.max(most, ++holding);
          await ticks();
          holding--;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(limiter.inFlight).toBe(0);
  });

  it('a lending task lets a queued task run, and takes a slot back ahead of the queue', async () => {
    const limiter = new Limiter(1);
    const order: string[] = [];
    const wait = gate();
    const b = gate();
    const lender = limiter.run(async (lend) => {
      order.push('a starts');
      await lend(() => wait.promise);
      order.push('a resumes');
    });
    const second = limiter.run(async () => {
      order.push('b runs');
      await b.promise;
      order.push('b ends');
    });
    const third = limiter.run(async () => {
      order.push('c runs');
    });
    await ticks();
    expect(order).toEqual(['a starts', 'b runs']);
    wait.open(); // a's wait is over, but b holds the only slot
    await ticks();
    expect(order).toEqual(['a starts', 'b runs']);
    b.open();
    await Promise.all([lender, second, third]);
    expect(order).toEqual(['a starts', 'b runs', 'b ends', 'a resumes', 'c runs']);
    expect(limiter.inFlight).toBe(0);
  });

  it('the slot is never over-counted: a released slot goes to the queued task, not to a newcomer', async () => {
    const limiter = new Limiter(1);
    let holding = 0;
    let most = 0;
    const task = async () => {
      most = Math.max(most, ++holding);
      await ticks();
      holding--;
    };
    const first = limiter.run(task);
    const queued = limiter.run(task);
    await ticks();
    // The first has released synchronously into the queued task; a newcomer arriving now must queue.
    const newcomer = limiter.run(task);
    await Promise.all([first, queued, newcomer]);
    expect(most).toBe(1);
  });

  it('a wait inside a wait lends the slot once', async () => {
    const limiter = new Limiter(1);
    const done = await limiter.run(async (lend) => lend(() => lend(async () => 'inner')));
    expect(done).toBe('inner');
    expect(limiter.inFlight).toBe(0);
  });

  it('waiters of a task that lends do not starve it (every slot held by checks waiting for a shared flow)', async () => {
    // Four checks await one shared result; the one computing it lends its slot while it waits.
    // The waiters must lend too (RunResources.get with idle), or the computing check never gets
    // its slot back.
    const limiter = new Limiter(2);
    let shared: Promise<string> | undefined;
    const compute = (lend: Parameters<Parameters<Limiter['run']>[0]>[0]) =>
      (shared ??= (async () => {
        await lend(() => ticks());
        return 'flow';
      })());
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        limiter.run(async (lend) => {
          if (shared) return lend(() => shared!);
          return compute(lend);
        }),
      ),
    );
    expect(results).toEqual(['flow', 'flow', 'flow', 'flow', 'flow']);
  });
});
