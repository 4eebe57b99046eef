/**
 * The judge of `expect_substitution_safe` on vectors of our own: each encoding rule (unreserved
 * only, NFC first, hex case, no nested expansion, no scheme change, every binding observed) with a
 * value that holds it and one that breaks it, and the observation of tracker URLs in preview HTML.
 */
import { describe, expect, it } from 'vitest';
import { divergence, encodeForUrl, firstUnsafe, judgeEncoding } from './substitution-encoding.js';
import { extractTrackerUrls, observe, parseTemplate, type ResolvedBinding, srcsetUrls } from './substitution-observe.js';

const bind = (raw: string, macro = '{ITEM}'): ResolvedBinding => ({ macro, label: 'test', raw, expected: encodeForUrl(raw), custom: false });
const page = (...srcs: string[]) =>
  `<html><body>${srcs.map((s) => `<img src="${s.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}">`).join('\n')}</body></html>`;

describe('the encoding rule', () => {
  it('keeps unreserved characters and encodes every other UTF-8 byte, upper-case hex, after NFC', () => {
    expect(encodeForUrl('Az09-._~')).toBe('Az09-._~');
    expect(encodeForUrl("a b/c?d#e&f=g+h'i(j)k*l!")).toBe('a%20b%2Fc%3Fd%23e%26f%3Dg%2Bh%27i%28j%29k%2Al%21');
    expect(encodeForUrl('Zo\u0308e')).toBe('Z%C3%B6e'); // NFD ö becomes one code point first
    expect(encodeForUrl('x\u2066y')).toBe('x%E2%81%A6y');
  });

  it('compares hex digits of a triplet without case, everything else exactly', () => {
    expect(divergence('a%2fb', 'a%2Fb')).toBe(-1);
    expect(divergence('A%2Fb', 'a%2Fb')).toBe(0);
    expect(divergence('a%2F', 'a%2Fb')).toBe(4);
  });

  it('finds the first character that is neither unreserved nor a triplet', () => {
    expect(firstUnsafe('ok-%41~')).toBe(-1);
    expect(firstUnsafe('ok%4')).toBe(2);
    expect(firstUnsafe('a(b')).toBe(1);
  });

  it.each([
    ['reserved breakout', 'id7;x=1', 'id7;x=1', 'substitution_encoding_violation'],
    ['encodeURIComponent leaves parens and quotes', "it's (new)", "it's%20(new)", 'substitution_encoding_violation'],
    ['no NFC before encoding', 'Zo\u0308e', 'Zo%CC%88e', 'substitution_encoding_violation'],
    ['raw line break', 'a\nb', 'a\nb', 'substitution_encoding_violation'],
    ['macro left literal', 'job-{USER_ID}', 'job-{USER_ID}', 'nested_macro_re_expansion'],
    ['macro expanded again', 'job-{USER_ID}-9', 'job-u123-9', 'nested_macro_re_expansion'],
  ])('%s fails with its code; the safe form passes', (_name, raw, unsafe, code) => {
    expect(judgeEncoding(encodeForUrl(raw), raw, encodeForUrl(raw))).toEqual({ ok: true, offset: -1 });
    expect(
      judgeEncoding(
        encodeForUrl(raw).replace(/%[0-9A-F]{2}/g, (t) => t.toLowerCase()),
        raw,
        encodeForUrl(raw),
      ).ok,
    ).toBe(true);
    const j = judgeEncoding(unsafe, raw, encodeForUrl(raw));
    expect(j.ok).toBe(false);
    expect(j.code).toBe(code);
    expect(j.offset).toBeGreaterThanOrEqual(0);
  });

  it('fails a whole-value substitution that gives the URL a scheme, and passes its encoded form', () => {
    const raw = 'vbscript:run(1)';
    expect(judgeEncoding(raw, raw, encodeForUrl(raw), true).code).toBe('substitution_scheme_injection');
    expect(judgeEncoding(encodeForUrl(raw), raw, encodeForUrl(raw), true).ok).toBe(true);
  });
});

describe('observing a preview', () => {
  it('extracts the closed attribute set only: srcset per candidate, meta refresh, data-* trackers; never scripts or comments', () => {
    const html = `<html><head><meta http-equiv="refresh" content="0; url=https://t.example/r?i=1"><meta name="description" content="not a url">
      <link rel="preload" href="https://t.example/l"></head><body>
      <!-- <img src="https://t.example/commented"> -->
      <script>document.write('<img src="https://t.example/scripted">')</script>
      <a href="https://t.example/a?x=1&amp;y=2"><img src="https://t.example/i" srcset="https://t.example/s1 1x, https://t.example/s,2 2x"></a>
      <div data-impression-url="https://t.example/d" data-other-url="https://t.example/no"></div>
      <template><iframe src="https://t.example/f"></iframe></template></body></html>`;
    expect(extractTrackerUrls(html).map((u) => `${u.tag} ${u.attr} ${u.url}`)).toEqual([
      'meta content https://t.example/r?i=1',
      'link href https://t.example/l',
      'a href https://t.example/a?x=1&y=2',
      'img src https://t.example/i',
      'img srcset https://t.example/s1',
      'img srcset https://t.example/s,2',
      'div data-impression-url https://t.example/d',
      'iframe src https://t.example/f',
    ]);
    expect(extractTrackerUrls('<img\n\nsrc="https://t.example/x">')[0]?.line).toBe(3);
    expect(srcsetUrls('a.png, b.png 2x,c.png')).toEqual(['a.png', 'b.png', 'c.png']);
  });

  const template = parseTemplate('https://T.example:443/imp/{ITEM}?i={ITEM}&cb={CB}')!;
  const url = (v: string) => `https://t.example/imp/${v}?i=${v}&cb=77`;

  it('observes every binding at each of its positions, whatever the other macros carry', () => {
    const a = bind('id 1/x');
    const b = bind('caf\u00e9');
    const seen = observe(extractTrackerUrls(page(url(a.expected), url(b.expected.toLowerCase()))), template, [a, b]);
    expect(seen.findings.map((f) => f.outcome)).toEqual(['observed', 'observed']);
    expect(seen.strays).toEqual([]);
  });

  it('attributes a raw substitution to the binding it resembles and names position, expected and observed', () => {
    const a = bind('id7&drop=1');
    const b = bind('plain');
    const seen = observe(extractTrackerUrls(page(url('plain'), `https://t.example/imp/x?i=id7&drop=1&cb=77`)), template, [a, b]);
    const f = seen.findings[0]!;
    expect(f.outcome).toBe('violated');
    expect(f.code).toBe('substitution_encoding_violation');
    expect(f.at?.value).toBe('id7');
    expect(f.at?.position).toMatchObject({ kind: 'query', key: 'i' });
    expect(f.offset).toBe(3);
    expect(seen.findings[1]!.outcome).toBe('observed');
  });

  it('judges every position of the macro in a URL: a safe query value does not cover a raw path segment', () => {
    const a = bind('id 1');
    const seen = observe(extractTrackerUrls(page('https://t.example/imp/id 1?i=id%201&cb=7')), template, [a]);
    expect(seen.findings[0]).toMatchObject({ outcome: 'violated', code: 'substitution_encoding_violation', offset: 2, at: { position: { kind: 'path' } } });
  });

  it('judges the value as written: raw non-ASCII is not taken for its encoding', () => {
    const a = bind('caf\u00e9');
    const seen = observe(extractTrackerUrls(page(url('caf\u00e9'))), template, [a]);
    expect(seen.findings[0]).toMatchObject({ outcome: 'violated', code: 'substitution_encoding_violation', offset: 3 });
  });

  it('reports a binding no URL of the template carries as missing, and a stray unsafe value as such', () => {
    const seen = observe(extractTrackerUrls(page('https://t.example/imp/x?i=other%20item&cb=1', 'https://t.example/imp/y?i=bad value&cb=1')), template, [
      bind('wanted'),
    ]);
    expect(seen.findings[0]!.outcome).toBe('missing');
    expect(seen.strays.map((s) => [s.value, s.offset])).toEqual([['bad value', 3]]);
    expect(observe(extractTrackerUrls(page('https://elsewhere.example/imp/x?i=wanted&cb=1')), template, [bind('wanted')]).shaped).toBe(0);
  });

  it('observes a whole-value macro and fails a scheme it injects', () => {
    const raw = 'javascript:void(0)';
    const html = `<a href="${raw}">x</a><a href="${encodeForUrl('ok')}">y</a>`;
    const seen = observe(extractTrackerUrls(html), parseTemplate('{CLICK}')!, [bind(raw, '{CLICK}'), bind('ok', '{CLICK}')]);
    expect(seen.findings.map((f) => [f.outcome, f.code])).toEqual([
      ['violated', 'substitution_scheme_injection'],
      ['observed', undefined],
    ]);
  });
});
