/** The interop tables' comparison: whole, except rows of checks whose verdict depends on timing. */
import { describe, expect, it } from 'vitest';
import { stableReason, TABLE_HEAD, tableDifferences } from './testing/tables.js';

const table = (...rows: string[]) => [...TABLE_HEAD, ...rows].join('\n');
const row = (check: string, outcome: string, reason = 'why') => `| mcp | \`${check}\` | ${outcome} |  | ${reason} | spec |`;
const timed = 'idempotency.concurrent.in-flight-answer';

describe('interop table comparison', () => {
  it('finds a row missing, one extra and one changed', () => {
    const committed = table(row('a.b.c', 'fail'), row('a.b.d', 'fail'));
    const actual = table(row('a.b.c', 'warn'), row('a.b.e', 'fail'));
    expect(tableDifferences(actual, committed)).toEqual({
      missing: [row('a.b.c', 'fail'), row('a.b.d', 'fail')],
      extra: [row('a.b.c', 'warn'), row('a.b.e', 'fail')],
    });
    expect(tableDifferences(committed, committed)).toEqual({ missing: [], extra: [] });
  });

  it('lets a timing-dependent row be missing from either side, and compares it when both have it', () => {
    const base = row('a.b.c', 'fail');
    expect(tableDifferences(table(base), table(base, row(timed, 'fail')))).toEqual({ missing: [], extra: [] });
    expect(tableDifferences(table(base, row(timed, 'fail')), table(base))).toEqual({ missing: [], extra: [] });
    expect(tableDifferences(table(base, row(timed, 'fail', 'another reason')), table(base, row(timed, 'fail')))).toEqual({
      missing: [row(timed, 'fail')],
      extra: [row(timed, 'fail', 'another reason')],
    });
  });

  it('masks what the agent makes up in a reason, and keeps the rest', () => {
    expect(stableReason('buy mb_9517216ad2c3475593de at 2026-11-27T21:49:24.994Z took 12 ms')).toBe('buy <id> at <time> took <n> ms');
    expect(stableReason('expected INVALID_REQUEST, got (no code)')).toBe('expected INVALID_REQUEST, got (no code)');
    expect(stableReason('5 concurrent create_media_buy calls: 5 replies carry 4 distinct /media_buy_id values, expected 1')).toBe(
      '5 concurrent create_media_buy calls: 5 replies carry <n> distinct /media_buy_id values, expected 1',
    );
  });
});
