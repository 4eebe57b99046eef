import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { scanDuplicateKeys } from '../parse/duplicate-keys.js';
import { MAX_QUICK_KEYS, quickJsonNoDuplicates } from './json-quick-scan.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The reference scanner's verdict on raw bytes (strict UTF-8, then the text scanner). */
function reference(bytes: Uint8Array): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return 'invalid';
  }
  return scanDuplicateKeys(text).kind;
}

const bytes = (s: string) => new TextEncoder().encode(s);

describe('quickJsonNoDuplicates', () => {
  it.each([
    ['{}', true],
    ['{"a":1,"b":{"a":2},"c":[{"a":1},{"a":1}]}', true],
    [' {"a" : [1, -2.5e+3, true, false, null, "x\\"y\\u00e9"] } ', true],
    ['{"é":"ü","e":"ü"}', true],
    ['"just a string"', true],
    ['{"a":1,"a":2}', false],
    ['{"a":1,"\\u0061":2}', false], // escaped key: left to the reference scanner
    ['{"a":1,}', false],
    ['{"a":01}', false],
    ['{"a":"\u0001"}', false],
    ['[1,2', false],
    ['', false],
  ])('%s → %s', (text, expected) => {
    expect(quickJsonNoDuplicates(bytes(text))).toBe(expected);
  });

  it('leaves invalid UTF-8, deep nesting and very wide objects to the reference scanner', () => {
    expect(quickJsonNoDuplicates(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]))).toBe(false);
    expect(quickJsonNoDuplicates(bytes('['.repeat(100) + ']'.repeat(100)))).toBe(false);
    const wide = Object.fromEntries(Array.from({ length: MAX_QUICK_KEYS + 1 }, (_, i) => [`k${i}`, i]));
    expect(quickJsonNoDuplicates(bytes(JSON.stringify(wide)))).toBe(false);
    expect(reference(bytes(JSON.stringify(wide)))).toBe('ok');
  });

  it('says "fine" only when the reference scanner says ok', () => {
    const pieces = fc.constantFrom(
      '"',
      ',',
      ':',
      '{',
      '}',
      '[',
      ']',
      '\\',
      '\\u00',
      ' ',
      '0',
      '-',
      'e',
      'x',
      '\u00e9',
      '\u0001',
      '\u001f',
      '\t',
      '\n',
      '\u007f',
    );
    const mutated = fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.nat(), fc.nat({ max: 2 }), pieces).map(([v, at, cut, piece]) => {
      const t = JSON.stringify(v) ?? 'null';
      const i = at % (t.length + 1);
      return bytes(t.slice(0, i) + piece + t.slice(i + cut));
    });
    const withDuplicate = fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1 }).map((o) => {
      const t = JSON.stringify(o);
      return bytes(`{${JSON.stringify(Object.keys(o)[0])}:0,${t.slice(1)}`);
    });
    const rawBytes = fc.uint8Array({ maxLength: 24 }).map((b) => Uint8Array.from([0x5b, 0x22, ...b, 0x22, 0x5d]));
    fc.assert(
      fc.property(fc.oneof(mutated, withDuplicate, rawBytes), (b) => {
        if (quickJsonNoDuplicates(b)) expect(reference(b)).toBe('ok');
      }),
      { numRuns: 3000 },
    );
  });

  it('settles serialized JSON itself (no escaped keys, bounded width and depth)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        const text = JSON.stringify(v) ?? 'null';
        const escapedKey = [...text.matchAll(/"((?:[^"\\]|\\.)*)"(\s*:)?/g)].some((m) => m[2] !== undefined && m[1]!.includes('\\'));
        if (!escapedKey) expect(quickJsonNoDuplicates(bytes(text))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
