import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { contentDigestHeader, contentDigestMatches, parseContentDigest } from './content-digest.js';

describe('Content-Digest', () => {
  it('is sha-256 over the raw bytes', () => {
    // RFC 9530 appendix example body {"hello": "world"}
    expect(contentDigestHeader(Buffer.from('{"hello": "world"}'), 'strict')).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
    expect(contentDigestHeader(Buffer.from('{"hello": "world"}'), 'legacy')).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE:');
  });

  it('matches sha-256 and sha-512, ignores unknown algorithms, needs one known', () => {
    const body = Buffer.from('{}');
    const both = `${contentDigestHeader(body, 'strict')}, ${contentDigestHeader(body, 'strict', 'sha-512')}, md5=:AAAA:`;
    expect(contentDigestMatches(parseContentDigest(both, 'strict'), body)).toBe(true);
    expect(contentDigestMatches(parseContentDigest('md5=:AAAA:', 'strict'), body)).toBe(false);
  });

  it('rejects a repeated algorithm and non-byte members', () => {
    expect(() => parseContentDigest('sha-256=:AAAA:, sha-256=:AAAA:', 'legacy')).toThrow();
    expect(() => parseContentDigest('sha-256="abc"', 'legacy')).toThrow();
  });

  it('any single-byte change of the body is a mismatch', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, delta) => {
        const parsed = parseContentDigest(contentDigestHeader(bytes, 'legacy'), 'legacy');
        expect(contentDigestMatches(parsed, bytes)).toBe(true);
        const changed = Buffer.from(bytes);
        const i = at % changed.length;
        changed[i] = (changed[i]! + delta) & 0xff;
        expect(contentDigestMatches(parsed, changed)).toBe(false);
      }),
    );
  });
});
