import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { duplicateKeyLog, sanitizeKeyName } from '../verify/body-log.js';
import { MAX_JSON_DEPTH, scanDuplicateKeys } from './duplicate-keys.js';

describe('scanDuplicateKeys', () => {
  it.each([
    ['{}', 'ok'],
    ['{"a":1,"b":{"a":2}}', 'ok'],
    ['[{"a":1},{"a":1}]', 'ok'],
    [' {"a" : [1, -2.5e+3, true, false, null, "x\\"y"] } ', 'ok'],
    ['"just a string"', 'ok'],
    ['{"a":1,"a":2}', 'duplicate'],
    ['{"a":{"b":1,"b":2}}', 'duplicate'],
    ['{"a":1,"\\u0061":2}', 'duplicate'],
    ['{"a\\/b":1,"a/b":2}', 'duplicate'],
    ['{"a":1,}', 'invalid'],
    ['{"a":01}', 'invalid'],
    ['{"a":1} x', 'invalid'],
    ['{"a":"\u0001"}', 'invalid'],
    ['{"a":"\\x"}', 'invalid'],
    ['{a:1}', 'invalid'],
    ['', 'invalid'],
    ['[1,2', 'invalid'],
    ['{"a":tru}', 'invalid'],
  ])('%s → %s', (text, kind) => {
    expect(scanDuplicateKeys(text).kind).toBe(kind);
  });

  it('reports every duplicate name', () => {
    expect(scanDuplicateKeys('{"a":1,"b":2,"a":3,"b":4,"a":5}')).toEqual({ kind: 'duplicate', keys: ['a', 'b', 'a'] });
  });

  it('rejects invalid UTF-8 and over-deep nesting without throwing', () => {
    expect(scanDuplicateKeys(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])).kind).toBe('invalid');
    expect(scanDuplicateKeys('['.repeat(MAX_JSON_DEPTH + 2) + ']'.repeat(MAX_JSON_DEPTH + 2)).kind).toBe('invalid');
    expect(scanDuplicateKeys('['.repeat(100) + ']'.repeat(100)).kind).toBe('ok');
  });

  it('agrees with JSON.parse on validity, and finds no duplicates in serialized JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(scanDuplicateKeys(JSON.stringify(v)).kind).toBe('ok');
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (s) => {
        let valid = true;
        try {
          JSON.parse(s);
        } catch {
          valid = false;
        }
        const r = scanDuplicateKeys(s);
        if (!valid) expect(r.kind).toBe('invalid');
        else expect(r.kind).not.toBe('invalid');
      }),
    );
  });

  it('finds an injected duplicate in any object', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1 }), (obj) => {
        const text = JSON.stringify(obj);
        const first = JSON.stringify(Object.keys(obj)[0]);
        const r = scanDuplicateKeys(`{${first}:0,${text.slice(1)}`);
        expect(r.kind).toBe('duplicate');
      }),
    );
  });
});

describe('14b logging', () => {
  it('sanitizes names: non-printable cut, 32-byte cap at a UTF-8 boundary', () => {
    expect(sanitizeKeyName('amount')).toBe('amount');
    expect(sanitizeKeyName('ab\u0000cd')).toBe('ab<sanitized:3>');
    expect(sanitizeKeyName('x\u202eevil')).toBe('x<sanitized:7>');
    expect(sanitizeKeyName('a'.repeat(40))).toBe(`${'a'.repeat(32)}<sanitized:8>`);
    const s = sanitizeKeyName(`${'a'.repeat(31)}é`);
    expect(s).toBe(`${'a'.repeat(31)}<sanitized:2>`);
  });

  it('logs at most 4 names and counts the rest', () => {
    const log = duplicateKeyLog('kid', 'nonce', 42, ['a', 'b', 'c', 'd', 'e', 'f']);
    expect(log).toEqual({ event: 'body_duplicate_keys', keyid: 'kid', nonce: 'nonce', body_bytes: 42, keys: ['a', 'b', 'c', 'd', '<...2 more>'] });
  });
});
