/**
 * The idempotency guard against a real embedded database, with executions held open by gates so
 * the in-flight paths of digest 3.4 are exercised deterministically.
 */
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaultSet } from '../faults.js';
import { openDatabase } from '../store/db.js';
import { IdempotencyStore } from '../store/idempotency-store.js';
import { MetaStore } from '../store/meta-store.js';
import { SellerClock } from './clock.js';
import { type GuardRequest, IdempotencyGuard } from './idempotency.js';
import type { TaskOutcome } from './task-def.js';

let db: Database.Database;
let guard: IdempotencyGuard;
let clock: SellerClock;

function gate<T>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const request = (args: Record<string, unknown>, task = 'create_media_buy'): GuardRequest => ({
  task,
  idempotency: 'mutating',
  createsResource: true,
  principal: 'p',
  accountKey: 'id:acc',
  args,
});
const KEY = 'key-0123456789abcdef';
const done = (id: string): TaskOutcome => ({ kind: 'completed', payload: { media_buy_id: id } });

beforeEach(() => {
  db = openDatabase(':memory:');
  clock = new SellerClock(new MetaStore(db));
  guard = new IdempotencyGuard(new IdempotencyStore(db), clock, new FaultSet());
});
afterEach(() => db.close());

describe('IdempotencyGuard', () => {
  it('lets a same-payload request wait for the in-flight one and replay its result', async () => {
    const first = gate<TaskOutcome>();
    let executions = 0;
    const a = guard.run(request({ x: 1 }), KEY, () => {
      executions += 1;
      return first.promise;
    });
    const b = guard.run(request({ x: 1 }), KEY, async () => {
      executions += 1;
      return done('second');
    });
    await new Promise((r) => setImmediate(r));
    first.open(done('first'));
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra).toEqual({ kind: 'fresh', outcome: done('first') });
    expect(rb).toEqual({ kind: 'replay', stored: done('first') });
    expect(executions).toBe(1);
  });

  it('answers a different payload with IDEMPOTENCY_CONFLICT while the first is still in flight', async () => {
    const first = gate<TaskOutcome>();
    const a = guard.run(request({ x: 1 }), KEY, () => first.promise);
    const b = await guard.run(request({ x: 2 }), KEY, async () => done('never'));
    expect(b).toMatchObject({ kind: 'error', error: { code: 'IDEMPOTENCY_CONFLICT' } });
    first.open(done('first'));
    await a;
  });

  it('releases the key when the first execution fails, so a waiting request executes', async () => {
    const first = gate<TaskOutcome>();
    const a = guard.run(request({ x: 1 }), KEY, () => first.promise);
    const b = guard.run(request({ x: 1 }), KEY, async () => done('retry'));
    await new Promise((r) => setImmediate(r));
    first.open({ kind: 'error', error: { code: 'INVALID_REQUEST', message: 'nope' } });
    expect((await a).kind).toBe('fresh');
    expect(await b).toEqual({ kind: 'fresh', outcome: done('retry') });
  });

  it('expires entries older than the replay window on the request account clock', async () => {
    await guard.run(request({ x: 1 }), KEY, async () => done('one'));
    clock.advance(86_400 - 1, { principal: 'p', account: 'id:acc' });
    expect((await guard.run(request({ x: 1 }), KEY, async () => done('two'))).kind).toBe('replay');
    clock.advance(2, { principal: 'p', account: 'id:acc' });
    expect(await guard.run(request({ x: 1 }), KEY, async () => done('three'))).toMatchObject({
      kind: 'error',
      error: { code: 'IDEMPOTENCY_EXPIRED' },
    });
  });

  it('validates keys per idempotency class', () => {
    expect(() => guard.checkKey('mutating', undefined)).toThrow(/idempotency_key/);
    expect(() => guard.checkKey('mutating', 'bad key')).toThrow(/idempotency_key/);
    expect(guard.checkKey('read', undefined)).toBeUndefined();
    expect(guard.checkKey('exempt', 'bad key')).toBeUndefined();
    expect(guard.checkKey('read', KEY)).toBe(KEY);
  });
});
