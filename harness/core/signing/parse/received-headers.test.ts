import { describe, expect, it } from 'vitest';
import { combined, header, lowerHeaders } from './received-headers.js';

describe('lowerHeaders', () => {
  it('uses an all-lower-case record as it is, however often the same names come by', () => {
    const a = { host: 'h', 'content-type': 'application/json', signature: 's' };
    expect(lowerHeaders(a)).toBe(a);
    const b = { host: 'h2', 'content-type': 'text/plain', signature: 's2' };
    expect(lowerHeaders(b)).toBe(b);
    const fewer = { host: 'h' };
    expect(lowerHeaders(fewer)).toBe(fewer);
  });

  it('merges names of any case, after a run of lower-case records with the same prefix', () => {
    lowerHeaders({ host: 'h', 'content-type': 'x' });
    const mixed = lowerHeaders({ host: 'h', 'content-type': 'a', 'Content-Type': ['b', 'c'], Signature: 's', skipped: undefined });
    expect(mixed).not.toBeUndefined();
    expect(header(mixed, 'content-type')).toEqual(['a', 'b', 'c']);
    expect(header(mixed, 'signature')).toBe('s');
    expect(header(mixed, 'skipped')).toBeUndefined();
    expect(header(mixed, 'Content-Type')).toBeUndefined();
  });

  it('reads only strings and string arrays, and combines field lines', () => {
    const h = lowerHeaders({ constructor: 'c' } as Record<string, string>);
    expect(header(h, 'constructor')).toBe('c');
    expect(header(lowerHeaders({}), 'constructor')).toBeUndefined();
    expect(header(lowerHeaders({}), 'toString')).toBeUndefined();
    expect(combined(['a=1', 'b=2'])).toBe('a=1, b=2');
    expect(combined('a=1')).toBe('a=1');
  });
});
