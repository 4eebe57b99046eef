import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { serializeDictionary, Token } from 'structured-headers';
import { parseStrictDictionary, parseStrictDictionaryWithText, singleFieldValue, StructuredFieldError } from './structured-fields.js';

const INPUT = 'sig1=("@method" "@target-uri");created=1776520800;expires=1776521100;nonce="KXYnfEfJ0PBRZXQyVXfVQA";keyid="k";alg="ed25519";tag="t/x:y"';

describe('parseStrictDictionary', () => {
  it('parses a Signature-Input dictionary', () => {
    const d = parseStrictDictionary(INPUT, 'legacy');
    const [items, params] = d.get('sig1') as [Array<[string, Map<string, unknown>]>, Map<string, unknown>];
    expect(items.map((i) => i[0])).toEqual(['@method', '@target-uri']);
    expect(params.get('created')).toBe(1776520800);
    expect(params.get('tag')).toBe('t/x:y');
  });

  it('decodes byte sequences with the profile decoder', () => {
    expect(parseStrictDictionary('sig1=:-_8:', 'legacy').get('sig1')![0]).toEqual(Buffer.from([0xfb, 0xff]));
    expect(parseStrictDictionary('sig1=:+/8=:', 'strict').get('sig1')![0]).toEqual(Buffer.from([0xfb, 0xff]));
    expect(() => parseStrictDictionary('sig1=:-_8:', 'strict')).toThrow(StructuredFieldError);
    expect(() => parseStrictDictionary('sig1=:-/8:', 'legacy')).toThrow(/mixed/);
  });

  it.each([
    ['duplicate dictionary key', 'a=1, a=2'],
    ['duplicate key across members with spaces', 'sig1=(), b=?1,   sig1=:AAAA:'],
    ['duplicate parameter on the inner list', 'sig1=("@method");keyid="a";keyid="b"'],
    ['duplicate parameter on an item', 'a=1;x=1;x=2'],
    ['garbage', 'this is not a dictionary'],
    ['trailing comma', 'a=1,'],
    ['unterminated byte sequence', 'sig1=:AAAA'],
  ])('rejects %s', (_label, input) => {
    expect(() => parseStrictDictionary(input, 'legacy')).toThrow(StructuredFieldError);
  });

  it('does not confuse colons inside strings or tokens with byte sequences', () => {
    const d = parseStrictDictionary('a="x:y:z";p=tok:en, b=:AAAA:', 'legacy');
    expect(d.get('a')![0]).toBe('x:y:z');
    expect(d.get('b')![0]).toEqual(Buffer.alloc(3));
  });

  it('keeps unquoted tokens distinguishable (profile rejects them later)', () => {
    const d = parseStrictDictionary('sig1=();keyid=foo', 'legacy');
    expect((d.get('sig1')![1] as Map<string, unknown>).get('keyid')).toBeInstanceOf(Token);
  });

  it('agrees with structured-headers on any serialized dictionary', () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9_.*-]{0,6}$/);
    const bare = fc.oneof(
      fc.integer({ min: -1e6, max: 1e6 }),
      fc.stringMatching(/^[ -!#-[\]-~]{0,8}$/),
      fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b)),
    );
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, bare), { selector: (t) => t[0], minLength: 1, maxLength: 5 }), (members) => {
        const text = serializeDictionary(new Map(members.map(([k, v]) => [k, [v, new Map()]])));
        const parsed = parseStrictDictionary(text, 'strict');
        expect([...parsed.keys()]).toEqual(members.map((m) => m[0]));
        for (const [k, v] of members) expect(parsed.get(k)![0]).toEqual(v);
      }),
    );
  });
});

describe('parseStrictDictionaryWithText', () => {
  it('serializes a member canonically, whatever its spelling', () => {
    const parsed = parseStrictDictionaryWithText('sig1=( "@method"  "@authority" );created=01;keyid=k;x=?1, b=:-_8:', 'legacy');
    expect(parsed.memberText('sig1')).toBe('("@method" "@authority");created=1;keyid=k;x');
    expect(parsed.memberText('b')).toBe(':+/8=:');
    expect(parsed.memberText('absent')).toBeUndefined();
  });
});

describe('singleFieldValue', () => {
  it('rejects multi-valued covered fields', () => {
    expect(singleFieldValue('content-type', ' application/json ')).toBe('application/json');
    expect(singleFieldValue('content-type', 'multipart/form-data; boundary="a,b"')).toBe('multipart/form-data; boundary="a,b"');
    expect(() => singleFieldValue('content-type', 'application/json, text/plain')).toThrow();
    expect(() => singleFieldValue('authorization', ['Bearer a', 'Bearer b'])).toThrow();
    expect(singleFieldValue('authorization', ['Bearer a'])).toBe('Bearer a');
  });
});
