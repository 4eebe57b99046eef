/**
 * The inputs of the differential test's requests (differential-cases.ts): byte sequences in
 * every base64 spelling, text edits, URLs (valid, malformed, and changes to the URL as
 * received) and bodies (valid, and with duplicate keys, invalid JSON or invalid UTF-8).
 */
import fc from 'fast-check';

// ---------------------------------------------------------------------------------------------
// Small helpers.

const encoder = new TextEncoder();

export type TokenForm = 'url' | 'std' | 'std-nopad' | 'url-pad' | 'mixed' | 'noncanonical' | 'truncated' | 'empty';

/** Byte sequence content in one of the base64 spellings, canonical or not. */
export function token(bytes: Uint8Array, form: TokenForm): string {
  const b = Buffer.from(bytes);
  const std = b.toString('base64');
  const url = b.toString('base64url');
  switch (form) {
    case 'url':
      return url;
    case 'std':
      return std;
    case 'std-nopad':
      return std.replace(/=+$/, '');
    case 'url-pad':
      return url + '='.repeat((4 - (url.length % 4)) % 4);
    case 'mixed':
      return `-${std.slice(1)}`;
    case 'noncanonical': {
      // Set an unused low bit of the last character (when there is one).
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const last = alphabet.indexOf(url.at(-1) ?? 'A');
      return url.length % 4 === 0 ? url : url.slice(0, -1) + alphabet[last | 1];
    }
    case 'truncated':
      return url.slice(0, -3);
    case 'empty':
      return '';
  }
}

/** Insert, delete or replace a few characters somewhere in a text. */
export const textEdit = fc.record({
  at: fc.nat(),
  cut: fc.nat({ max: 3 }),
  insert: fc.constantFrom(
    '',
    ' ',
    '  ',
    '\t',
    ',',
    ';',
    '=',
    '"',
    ':',
    '(',
    ')',
    '\\',
    '-',
    '_',
    '+',
    '/',
    '=',
    'A',
    'a',
    '0',
    '@',
    '*',
    '?1',
    '%',
    'é',
    ', x=1',
  ),
  caseFlip: fc.boolean(),
});
export type TextEdit = typeof textEdit extends fc.Arbitrary<infer T> ? T : never;

export function applyEdit(text: string, e: TextEdit): string {
  const i = e.at % (text.length + 1);
  let out = text.slice(0, i) + e.insert + text.slice(i + e.cut);
  if (e.caseFlip && i < out.length) {
    const c = out[i]!;
    out = out.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + out.slice(i + 1);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// URLs.

export interface UrlParts {
  scheme: string;
  userinfo: string;
  host: string;
  port: string;
  path: string;
  query: string;
  fragment: string;
}

const VALID_URL = {
  scheme: ['https', 'http', 'HTTPS'],
  userinfo: ['', 'user:pw@'],
  host: ['seller.example.com', 'SELLER.Example.COM', 'seller.example.com.', '127.0.0.1', '[::1]', '[2001:DB8::A]', 'xn--bcher-kva.example', 'bücher.example'],
  port: ['', '', ':443', ':80', ':8443', ':'],
  path: ['/mcp', '/proto/create_media_buy', '', '/a/./b/../c', '/a//b', '/a/.//b', '/%7Euser/%2fx', '/caf%C3%A9', '/café', '/a b', '/%2E%2E/x', '/A%3a', '/..'],
  // The long query makes a signature base larger than the fast path's scratch buffer.
  query: ['', '', '?', '?a=1&b=2', '?q=a+b%20c', '?x=%7e', '?é', `?long=${'x'.repeat(17_000)}`],
  fragment: ['', '', '#frag', '#'],
};
const BAD_URL = {
  scheme: ['ftp', 'h ttps'],
  userinfo: ['@', 'a@b@'],
  host: [
    'seller.example.com..',
    '[fe80::1%25eth0]',
    'fe80::1',
    'BÜCHER.example',
    'a..b',
    '-bad.example',
    'ab--cd.example',
    '',
    '[::1',
    `${'x'.repeat(64)}.example`,
  ],
  port: [':0', ':99999', ':x', ':-1'],
  path: ['/%zz', '/%', '/a%2'],
  query: ['?\u0000'],
  fragment: ['#\u00e9'],
};

const urlFrom = (choices: Record<keyof UrlParts, string[]>) =>
  fc.record(Object.fromEntries(Object.entries(choices).map(([k, v]) => [k, fc.constantFrom(...v)])) as Record<keyof UrlParts, fc.Arbitrary<string>>);
export const validUrl: fc.Arbitrary<UrlParts> = urlFrom(VALID_URL);
/** A valid URL with one part replaced by a malformed one. */
export const badUrl: fc.Arbitrary<UrlParts> = fc
  .tuple(validUrl, fc.constantFrom(...(Object.keys(BAD_URL) as (keyof UrlParts)[])), fc.nat())
  .map(([u, part, i]) => ({ ...u, [part]: BAD_URL[part][i % BAD_URL[part].length]! }));

export const urlOf = (u: UrlParts) => `${u.scheme}://${u.userinfo}${u.host}${u.port}${u.path}${u.query}${u.fragment}`;

export type UrlChange = (u: UrlParts) => UrlParts;
/** A change to the URL as received, after signing: equivalent spellings and real changes. */
export const URL_CHANGES: readonly UrlChange[] = [
  (u) => ({ ...u, scheme: u.scheme.toUpperCase(), host: u.host.toUpperCase() }),
  (u) => ({ ...u, port: u.port === '' ? (u.scheme.toLowerCase() === 'http' ? ':80' : ':443') : '' }),
  (u) => ({ ...u, path: `/.${u.path}` }),
  (u) => ({ ...u, path: `${u.path}/..` }),
  (u) => ({ ...u, path: u.path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`) }),
  (u) => ({ ...u, path: u.path.replace(/%([0-9A-F]{2})/, (_m, h: string) => `%${h.toLowerCase()}`) }),
  (u) => ({ ...u, path: u.path.replace('é', '%C3%A9') }),
  (u) => ({ ...u, fragment: '#other' }),
  (u) => ({ ...u, userinfo: 'someone@' }),
  (u) => ({ ...u, host: `${u.host}.` }),
  (u) => ({ ...u, host: u.host.includes('bücher') ? u.host.replace('bücher', 'xn--bcher-kva') : u.host.replace('xn--bcher-kva', 'bücher') }),
  (u) => ({ ...u, host: u.host.replace('[::1]', '[0:0::1]').replace('DB8', 'db8') }),
  (u) => ({ ...u, query: `${u.query}&x` }),
  (u) => ({ ...u, query: u.query.replace('%7e', '~') }),
  (u) => ({ ...u, port: ':8443' }),
  (u) => ({ ...u, host: 'other.example.com' }),
];

// ---------------------------------------------------------------------------------------------
// Bodies.

const jsonText = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null');

const envelope = fc
  .record({ id: fc.nat(), name: fc.constantFrom('create_media_buy', 'sync_accounts'), budget: fc.integer() })
  .map(({ id, name, budget }) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { buyer_ref: 'r', budget, brand: { domain: 'example.com' } } } }),
  );

const WIDE = JSON.stringify(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i])));

/** Bodies the scanners accept (or empty). */
export const goodBody = fc
  .oneof(
    { weight: 4, arbitrary: envelope },
    { weight: 3, arbitrary: jsonText },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '[{"a":1},{"a":1}]',
        '{"e\u0301":1,"é":2}',
        '{"a":"\u2028\u2029😀"}',
        '"just a string"',
        '-0.0e+0',
        ' {"a" : [1, -2.5e+3, true, false, null, "x\\"y\\u00e9"] } ',
        WIDE,
        `${'['.repeat(70)}${']'.repeat(70)}`,
        `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`,
      ),
    },
    { weight: 1, arbitrary: fc.constant('') },
  )
  .map((t) => encoder.encode(t));

/** Bodies with duplicate keys, invalid JSON or invalid UTF-8. */
export const badBody = fc.oneof(
  fc
    .constantFrom(
      '{"a":1,"a":2}',
      '{"a":{"b":1,"b":2}}',
      '{"a":1,"\\u0061":2}',
      '{"a\\/b":1,"a/b":2}',
      '{"é":1,"\\u00e9":2}',
      '{"😀":1,"\\ud83d\\ude00":2}',
      '{"\ud800":1}',
      '{"a":1,}',
      '{"a":01}',
      '{a:1}',
      "{'a':1}",
      '{"a":NaN}',
      '{"a":"\u0001"}',
      '{"a":"\\x"}',
      '{"a":1} x',
      '[1,2',
      '\ufeff{"a":1}',
      ' \n\t ',
      `${WIDE.slice(0, -1)},"k0":0}`,
      `${'['.repeat(600)}${']'.repeat(600)}`,
    )
    .map((t) => encoder.encode(t)),
  // A duplicate key spliced into a generated object.
  fc
    .dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 5 })
    .map((o) => encoder.encode(`{${JSON.stringify(Object.keys(o)[0])}:0,${JSON.stringify(o).slice(1)}`)),
  // Invalid UTF-8 inside the first string of a valid body.
  fc.tuple(envelope, fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80])).map(([t, bad]) => {
    const bytes = encoder.encode(t);
    const i = t.indexOf('"') + 1;
    return Uint8Array.from([...bytes.slice(0, i), ...bad, ...bytes.slice(i)]);
  }),
);
