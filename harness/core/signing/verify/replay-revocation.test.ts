import { describe, expect, it } from 'vitest';
import { InMemoryReplayCache, replayTtlSeconds } from './replay-cache.js';
import { InMemoryRevocation, listRefreshedAgo, pollIntervalSeconds } from './revocation.js';

describe('InMemoryReplayCache', () => {
  it('detects replays within the TTL and forgets after it', () => {
    const c = new InMemoryReplayCache({ perKeyidCap: 10 });
    expect(c.insert('k', 'n1', 60, 1000)).toBe('inserted');
    expect(c.has('k', 'n1', 1059)).toBe(true);
    expect(c.insert('k', 'n1', 60, 1059)).toBe('replayed');
    expect(c.has('k', 'n1', 1060)).toBe(false);
    expect(c.insert('k', 'n1', 60, 1060)).toBe('inserted');
    expect(c.has('other', 'n1', 1060)).toBe(false);
  });

  it('rejects at the per-keyid cap instead of evicting, and frees expired entries', () => {
    const c = new InMemoryReplayCache({ perKeyidCap: 3 });
    for (let i = 0; i < 3; i++) expect(c.insert('k', `n${i}`, 100 + i, 0)).toBe('inserted');
    expect(c.capReached('k', 1)).toBe(true);
    expect(c.insert('k', 'n9', 100, 1)).toBe('cap_reached');
    expect(c.has('k', 'n0', 1)).toBe(true);
    expect(c.capReached('other', 1)).toBe(false);
    // n1 expires at 101 although n0 (expires 100) was inserted first: a full sweep frees it.
    expect(c.capReached('k', 100)).toBe(false);
    expect(c.insert('k', 'n9', 100, 100)).toBe('inserted');
    expect(c.size('k', 100)).toBe(3);
  });

  it('honours an aggregate cap', () => {
    const c = new InMemoryReplayCache({ perKeyidCap: 10, aggregateCap: 2 });
    c.insert('a', 'x', 100, 0);
    c.insert('b', 'x', 100, 0);
    expect(c.capReached('c', 0)).toBe(true);
    expect(c.insert('c', 'x', 100, 0)).toBe('cap_reached');
  });

  it('sweeps lazily in insertion order, across keyids and after a keyid empties', () => {
    const c = new InMemoryReplayCache({ perKeyidCap: 100 });
    expect(c.insert('a', 'n1', 10, 0)).toBe('inserted'); // expires 10
    expect(c.insert('a', 'n2', 50, 0)).toBe('inserted'); // expires 50
    expect(c.insert('b', 'n1', 10, 0)).toBe('inserted');
    expect(c.size()).toBe(3);
    // At 10 the head of 'a' is due: the next insert drops it, n2 stays live.
    expect(c.insert('a', 'n3', 10, 10)).toBe('inserted');
    expect(c.size('a')).toBe(2);
    expect(c.has('a', 'n1', 10)).toBe(false);
    expect(c.insert('a', 'n2', 10, 10)).toBe('replayed');
    expect(c.insert('a', 'n1', 10, 10)).toBe('inserted');
    // 'b' empties on a full sweep and is dropped; inserting again starts afresh.
    expect(c.size('b', 10)).toBe(0);
    expect(c.capReached('b', 10)).toBe(false);
    expect(c.insert('b', 'n1', 10, 10)).toBe('inserted');
    expect(c.insert('b', 'n1', 10, 11)).toBe('replayed');
    expect(c.size()).toBe(4);
    // Everything expired: entries are dropped as the keyids are touched.
    expect(c.insert('a', 'n9', 10, 1000)).toBe('inserted');
    expect(c.size('a', 1000)).toBe(1);
    expect(c.size('b', 1000)).toBe(0);
    expect(c.size()).toBe(1);
  });

  it('uses TTL = (expires - now) + 60', () => {
    expect(replayTtlSeconds(1300, 1000)).toBe(360);
    expect(replayTtlSeconds(900, 1000)).toBe(60);
  });
});

describe('InMemoryRevocation', () => {
  const list = { updated: '2026-04-18T14:00:00Z', next_update: '2026-04-18T14:15:00Z', revoked_kids: ['bad'] };
  const t = Date.parse('2026-04-18T14:00:00Z') / 1000;
  it('reports revoked kids and staleness after next_update + 4 x interval', () => {
    const r = new InMemoryRevocation(list);
    expect(pollIntervalSeconds(list)).toBe(900);
    expect(r.check('bad', t)).toBe('revoked');
    expect(r.check('good', t)).toBe('ok');
    expect(r.check('good', t + 900 + 3600)).toBe('ok');
    expect(r.check('good', t + 900 + 3601)).toBe('stale');
  });
  it('clamps the interval to [60 s, 30 min]', () => {
    expect(pollIntervalSeconds({ ...list, next_update: '2026-04-18T14:00:10Z' })).toBe(60);
    expect(pollIntervalSeconds({ ...list, next_update: '2026-04-19T14:00:00Z' })).toBe(1800);
  });
  it('a list last refreshed 3 h ago is stale for any allowed interval', () => {
    expect(new InMemoryRevocation(listRefreshedAgo(10800, t)).check('x', t)).toBe('stale');
    expect(new InMemoryRevocation(listRefreshedAgo(60, t)).check('x', t)).toBe('ok');
  });
  it('answers from a newly installed list', () => {
    const r = new InMemoryRevocation(list);
    expect(r.check('good', t)).toBe('ok');
    r.update({ ...list, revoked_kids: ['good'] });
    expect(r.check('good', t)).toBe('revoked');
    expect(r.check('bad', t)).toBe('ok');
  });
  it('refuses malformed lists', () => {
    expect(() => new InMemoryRevocation({ ...list, next_update: 'soon' })).toThrow();
    expect(() => new InMemoryRevocation({ ...list, revoked_kids: 'bad' as never })).toThrow();
  });
});
