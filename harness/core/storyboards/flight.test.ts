/** Stale authored flights are sent whole years later; live ones and deliberate past starts as written. */
import { describe, expect, it } from 'vitest';
import { rebaseStaleFlight } from './flight.js';

const NOW = Date.parse('2026-11-29T00:00:00Z');

describe('rebaseStaleFlight', () => {
  it('moves a flight that has ended by whole years, keeping its shape, and says so', () => {
    const r = rebaseStaleFlight({ start_time: '2026-05-01T00:00:00Z', end_time: '2026-05-31T23:59:59Z', x: 1 }, NOW);
    expect(r.args).toEqual({ start_time: '2027-05-01T00:00:00.000Z', end_time: '2027-05-31T23:59:59.000Z', x: 1 });
    expect(r.note).toMatch(/had ended before the run; sent 1 year later/);
    expect(rebaseStaleFlight({ start_time: '2020-01-01T00:00:00Z', end_time: '2020-02-01T00:00:00Z' }, NOW).args.start_time).toBe('2027-01-01T00:00:00.000Z');
  });

  it('keeps a reversed flight reversed, and a past start with a future end as authored', () => {
    const reversed = rebaseStaleFlight({ start_time: '2026-12-31T00:00:00Z', end_time: '2026-01-01T00:00:00Z' }, NOW).args;
    expect(Date.parse(String(reversed.end_time))).toBeLessThan(Date.parse(String(reversed.start_time)));
    const pastStart = { start_time: '2020-01-01T00:00:00Z', end_time: '2026-12-31T23:59:59Z' };
    expect(rebaseStaleFlight(pastStart, NOW)).toEqual({ args: pastStart });
  });

  it('leaves arguments without a dated end alone', () => {
    for (const args of [{}, { start_time: 'asap', end_time: 'soon' }, { end_time: 42 }]) expect(rebaseStaleFlight(args, NOW)).toEqual({ args });
  });
});
