import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { serializeDictionary, serializeInnerList, serializeItem, Token } from 'structured-headers';
import { isInnerList, parseStrictDictionaryWithText, type StrictDictionary } from '../parse/structured-fields.js';
import { parseStrictDictionaryFast } from './sf-fast.js';

/** A parse result with every member's text, for comparison. */
function parsed(d: StrictDictionary) {
  return { dict: d.dict, text: [...d.dict.keys()].map((k) => d.memberText(k)) };
}

describe('parseStrictDictionaryFast agrees with the reference parser', () => {
  // Found by the differential test: the legacy decoder takes unpadded and base64url byte
  // sequences, and their text is not the canonical serialization `@signature-params` needs.
  it.each([
    ['sig1=("@method");x=:AA:', 'legacy'],
    ['sig1=("@method");x=:-_8:', 'legacy'],
    ['sig1=("@method");x=:+/8:', 'legacy'],
    ['sig1=:-_8:', 'legacy'],
    ['sig1=:AA:', 'legacy'],
    ['sig1=("@method");x=:+/8=:', 'strict'],
  ] as const)('serializes the member of %s (%s) as the reference parser does', (text, encoding) => {
    expect(parsed(parseStrictDictionaryFast(text, encoding))).toEqual(parsed(parseStrictDictionaryWithText(text, encoding)));
  });

  const outcome = (f: () => unknown) => {
    try {
      return { ok: f() };
    } catch (e) {
      return { err: (e as Error).name };
    }
  };
  const key = fc.stringMatching(/^[a-z*][a-z0-9_.*-]{0,5}$/);
  const str = fc.stringMatching(/^[ -~]{0,8}$/);
  const bare = fc.oneof(
    fc.integer({ min: -1e9, max: 1e9 }),
    str,
    fc.boolean(),
    fc.stringMatching(/^[A-Za-z*][A-Za-z0-9:/!#$%&'*+.^_`|~-]{0,5}$/).map((t) => new Token(t)),
    fc.uint8Array({ maxLength: 9 }).map((b) => Buffer.from(b)),
  );
  const params = fc.uniqueArray(fc.tuple(key, bare), { selector: (t) => t[0], maxLength: 4 }).map((ps) => new Map(ps));
  const member = fc.oneof(fc.tuple(bare, params), fc.tuple(fc.array(fc.tuple(bare, params), { maxLength: 4 }), params));
  const dictText = fc
    .uniqueArray(fc.tuple(key, member), { selector: (t) => t[0], minLength: 1, maxLength: 3 })
    .map((ms) => serializeDictionary(new Map(ms as never)));
  // Mutations: spacing, duplicated members/params, truncation, stray characters.
  const mutated = fc
    .tuple(dictText, fc.nat(), fc.constantFrom(' ', ',', ';', '=', '"', ':', '(', ')', '\\', '0', '.5', ', a=1', ';x=1;x=2', '  '))
    .map(([t, at, ins]) => {
      const i = at % (t.length + 1);
      return t.slice(0, i) + ins + t.slice(i);
    });

  it('on serialized and mutated dictionaries, in both encodings', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          dictText,
          mutated,
          dictText.map((t) => `${t}, ${t}`),
        ),
        fc.constantFrom('strict', 'legacy' as const),
        (text, enc) => {
          const fast = outcome(() => parsed(parseStrictDictionaryFast(text, enc as 'strict' | 'legacy')));
          const reference = outcome(() => parsed(parseStrictDictionaryWithText(text, enc as 'strict' | 'legacy')));
          expect(fast).toEqual(reference);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('memberText equals the canonical serialization', () => {
    fc.assert(
      fc.property(dictText, (text) => {
        const parsed = parseStrictDictionaryFast(text, 'strict');
        for (const [k, m] of parsed.dict) {
          expect(parsed.memberText(k)).toBe(isInnerList(m) ? serializeInnerList(m) : serializeItem(m));
        }
      }),
    );
  });
});
