import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalizeAuthority, canonicalizeTargetUri, removeDotSegments, TargetUriError } from './target-uri.js';

describe('canonicalizeTargetUri', () => {
  it.each([
    ['HTTPS://Seller.Example.COM:443/a/./b/../c?b=2&a=1#f', 'https://seller.example.com/a/c?b=2&a=1', 'seller.example.com'],
    ['https://example.com./p', 'https://example.com/p', 'example.com'],
    ['https://[2001:DB8::1]:443/p', 'https://[2001:db8::1]/p', '[2001:db8::1]'],
    ['https://[::1]:8443', 'https://[::1]:8443/', '[::1]:8443'],
    ['https://a.example/%7e%2f%e2%98%83', 'https://a.example/~%2F%E2%98%83', 'a.example'],
    ['https://a.example/a//../b', 'https://a.example/a/b', 'a.example'],
    ['https://a.example/a/.//b', 'https://a.example/a//b', 'a.example'],
    ['http://a.example:80?x', 'http://a.example/?x', 'a.example'],
  ])('%s', (url, target, authority) => {
    const c = canonicalizeTargetUri(url);
    expect(c.targetUri).toBe(target);
    expect(c.authority).toBe(authority);
  });

  it('converts U-labels on the signer side only', () => {
    expect(canonicalizeTargetUri('https://bücher.example/p', { allowUnicodeHost: true }).authority).toBe('xn--bcher-kva.example');
    const err = (() => {
      try {
        canonicalizeTargetUri('https://bücher.example/p');
      } catch (e) {
        return e as TargetUriError;
      }
    })();
    expect(err).toBeInstanceOf(TargetUriError);
    expect(err!.kind).toBe('non_ascii_host');
  });

  it.each([
    'https://example.com../p',
    'https://user@/p',
    'https:///p',
    'https://:443/p',
    'https://[::1/p',
    'https://fe80::1/p',
    'https://[fe80::1%25eth0]/p',
    'https://a..b/p',
    'mailto:x@y',
  ])('rejects %s as malformed', (url) => {
    expect(() => canonicalizeTargetUri(url, { allowUnicodeHost: true })).toThrow(TargetUriError);
  });

  it('is idempotent', () => {
    const seg = fc.oneof(
      fc.constantFrom('.', '..', '', 'a', '%2e', '%2E%2e', '%7e', '%2f', '%41', 'é', '~x'),
      fc.stringMatching(/^[a-zA-Z0-9._~!$&'()*+,;=:@-]{0,5}$/),
    );
    const host = fc.oneof(
      fc.constantFrom('Example.COM', 'example.com.', '[2001:DB8::1]', '127.0.0.1', 'xn--bcher-kva.example', 'bücher.example'),
      fc.stringMatching(/^[a-z0-9]{1,8}(\.[a-z0-9]{1,8}){0,2}$/),
    );
    const url = fc
      .tuple(
        fc.constantFrom('http', 'HTTPS', 'https'),
        host,
        fc.constantFrom('', ':443', ':80', ':8443'),
        fc.array(seg, { maxLength: 6 }),
        fc.option(fc.stringMatching(/^[a-z=&+%0-9]{0,6}$/)),
      )
      .map(([s, h, p, segs, q]) => `${s}://${h}${p}/${segs.join('/')}${q === null ? '' : `?${q}`}`);
    fc.assert(
      fc.property(url, (u) => {
        const once = canonicalizeTargetUri(u, { allowUnicodeHost: true });
        const twice = canonicalizeTargetUri(once.targetUri);
        expect(twice.targetUri).toBe(once.targetUri);
        expect(twice.authority).toBe(once.authority);
        expect(once.targetUri).not.toMatch(/\/\.\.?(\/|\?|$)/);
      }),
    );
  });
});

describe('canonicalizeAuthority', () => {
  it('applies host and default-port rules to Host / :authority', () => {
    expect(canonicalizeAuthority('Seller.Example.com:443', 'https')).toBe('seller.example.com');
    expect(canonicalizeAuthority('seller.example.com:443', 'http')).toBe('seller.example.com:443');
    expect(() => canonicalizeAuthority('u@seller.example.com', 'https')).toThrow(TargetUriError);
  });
});

describe('removeDotSegments', () => {
  it.each([
    ['/a/b/c/./../../g', '/a/g'],
    ['mid/content=5/../6', 'mid/6'],
    ['/..', '/'],
    ['/a//../b', '/a/b'],
    ['/a/.//b', '/a//b'],
  ])('%s → %s', (input, out) => expect(removeDotSegments(input)).toBe(out));
});
