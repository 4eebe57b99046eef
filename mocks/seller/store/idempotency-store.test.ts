/** The idempotency store on a real embedded database: first claim wins, completion is bound to its claim. */
import { describe, expect, it } from 'vitest';
import { openDatabase } from './db.js';
import { IdempotencyStore } from './idempotency-store.js';

const scope = { principal: 'p', account: 'id:a', keyHash: 'h' };

describe('IdempotencyStore', () => {
  it('lets only the first claim insert, and binds completion and release to the claim id', () => {
    const db = openDatabase(':memory:');
    try {
      const store = new IdempotencyStore(db);
      expect(store.claim(scope, 'task', 'hash-1', 1, 'claim-a')).toBe(true);
      expect(store.claim(scope, 'task', 'hash-2', 2, 'claim-b')).toBe(false);
      expect(store.get(scope)).toMatchObject({ hash: 'hash-1', state: 'in_flight' });

      store.release(scope); // a waiter takes over a claim that outlived its limit
      expect(store.claim(scope, 'task', 'hash-1', 3, 'claim-b')).toBe(true);
      store.complete(scope, 'claim-a', '"late answer of the first claim"', 4);
      store.release(scope, 'claim-a');
      expect(store.get(scope)).toMatchObject({ state: 'in_flight', claimed_at: 3 });

      store.complete(scope, 'claim-b', '"stored"', 5);
      expect(store.get(scope)).toMatchObject({ state: 'done', response: '"stored"', created_at: 5 });
      store.release(scope, 'claim-b'); // completed rows are never released
      expect(store.get(scope)?.state).toBe('done');
    } finally {
      db.close();
    }
  });

  it('keeps scopes apart by principal and account', () => {
    const db = openDatabase(':memory:');
    try {
      const store = new IdempotencyStore(db);
      expect(store.claim(scope, 't', 'x', 1, 'c1')).toBe(true);
      expect(store.claim({ ...scope, account: 'id:b' }, 't', 'x', 1, 'c2')).toBe(true);
      expect(store.claim({ ...scope, principal: 'q' }, 't', 'x', 1, 'c3')).toBe(true);
    } finally {
      db.close();
    }
  });
});
