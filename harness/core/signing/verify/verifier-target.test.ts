import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalizeAuthority, canonicalizeTargetUri, TargetUriError } from '../parse/target-uri.js';
import { canonicalTarget, checkAuthority, isTargetError } from './verifier-target.js';

describe('canonicalTarget', () => {
  it('answers like canonicalizeTargetUri, errors included, however often it is asked', () => {
    const urls = ['https://Seller.example.com/a/../mcp', 'https://bücher.example/p', 'https://a..b/p', 'https://seller.example.com/mcp', 'mailto:x@y'];
    for (let round = 0; round < 3; round++) {
      for (const url of urls) {
        const t = canonicalTarget(url);
        let direct: unknown;
        try {
          direct = canonicalizeTargetUri(url);
        } catch (err) {
          direct = err;
        }
        if (direct instanceof TargetUriError) {
          expect(isTargetError(t)).toBe(true);
          expect(t).toMatchObject({ kind: direct.kind, message: direct.message });
        } else {
          expect(isTargetError(t)).toBe(false);
          expect(t).toEqual(direct);
        }
      }
    }
  });
});

describe('checkAuthority', () => {
  const target = canonicalizeTargetUri('https://seller.example.com/mcp');

  it('accepts Host / :authority values that canonicalize to the target authority', () => {
    expect(checkAuthority(undefined, undefined, target)).toBeUndefined();
    expect(checkAuthority('seller.example.com', 'SELLER.example.com:443', target)).toBeUndefined();
    expect(checkAuthority(undefined, ['seller.example.com.'], target)).toBeUndefined();
  });

  it('rejects other, malformed or repeated values', () => {
    expect(checkAuthority('evil.example', undefined, target)).toMatch(/does not match/);
    expect(checkAuthority(undefined, 'u@seller.example.com', target)).toMatch(/userinfo/);
    expect(checkAuthority(undefined, ['seller.example.com', 'seller.example.com'], target)).toBe('Host header is repeated');
    // The same verdicts when asked again (memoized).
    expect(checkAuthority('evil.example', undefined, target)).toMatch(/does not match/);
    expect(checkAuthority(undefined, 'u@seller.example.com', target)).toMatch(/userinfo/);
  });

  it('relies on a canonical authority canonicalizing to itself', () => {
    const host = fc.oneof(
      fc.constantFrom('Example.COM', 'example.com.', '[2001:DB8::1]', '127.0.0.1', 'xn--bcher-kva.example', 'bücher.example'),
      fc.stringMatching(/^[a-z0-9]{1,8}(\.[a-z0-9]{1,8}){0,2}$/),
    );
    const url = fc.tuple(fc.constantFrom('http', 'https'), host, fc.constantFrom('', ':443', ':80', ':8443')).map(([s, h, p]) => `${s}://${h}${p}/`);
    fc.assert(
      fc.property(url, (u) => {
        const t = canonicalizeTargetUri(u, { allowUnicodeHost: true });
        expect(canonicalizeAuthority(t.authority, t.scheme)).toBe(t.authority);
      }),
    );
  });
});
