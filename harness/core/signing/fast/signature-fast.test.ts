import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { BinaryEncoding } from '../parse/base64.js';
import { parseContentDigest } from '../parse/content-digest.js';
import { ALLOWED_SIG_ALGS } from '../keys/keys.js';
import { fastParseSignatureHeaders, fastSha256DigestToken } from './signature-fast.js';
import { coverageOf, parseSignatureHeaders } from '../parse/signature-headers.js';
import { signRequest } from '../sign/signer.js';
import { freshKey, ids, NOW, signingKey } from '../testing/verifier-setup.js';

const ENCODINGS: readonly BinaryEncoding[] = ['legacy', 'strict'];
const keys = ALLOWED_SIG_ALGS.map((alg) => signingKey(freshKey(alg)));

function signed(i: number, encoding: BinaryEncoding, body = '{"a":1}') {
  const s = signRequest(
    { method: 'POST', url: 'https://seller.example.com/mcp', body },
    { profile: i % 3 === 0 ? 'webhook' : 'request', ids, key: keys[i % keys.length]!, encoding, created: NOW + i },
  );
  return { input: s.headers['Signature-Input']!, signature: s.headers.Signature!, digest: s.headers['Content-Digest'] };
}

type Outcome = { parsed: unknown } | { error: string };

function reference(input: string, signature: string, encoding: BinaryEncoding): Outcome {
  try {
    const p = parseSignatureHeaders(input, signature, encoding);
    return { parsed: { ...p, signature: [...p.signature] } };
  } catch (err) {
    return { error: (err as Error).name };
  }
}

/** The fast path either declines, or agrees exactly with the reference parser. */
function expectAgreement(input: string, signature: string, encoding: BinaryEncoding): boolean {
  const fast = fastParseSignatureHeaders(input, signature, encoding);
  if (fast === undefined) return false;
  const { coverage, ...rest } = fast;
  expect(reference(input, signature, encoding)).toEqual({ parsed: { ...rest, components: [...rest.components], signature: [...fast.signature] } });
  expect(coverage).toBe(coverageOf(fast.components));
  return true;
}

describe('fastParseSignatureHeaders', () => {
  it('takes what our signer emits and agrees with the reference parser', () => {
    for (const encoding of ENCODINGS) {
      for (let i = 0; i < 12; i++) {
        const s = signed(i, encoding, i % 4 === 0 ? '' : '{"a":1}');
        expect(expectAgreement(s.input, s.signature, encoding), `${encoding} #${i}`).toBe(true);
      }
    }
  });

  it.each([
    ['another parameter order', (s: string) => s.replace(/;created=(\d+);expires=(\d+)/, ';expires=$2;created=$1')],
    ['an extra parameter', (s: string) => `${s};x="y"`],
    ['a second label', (s: string) => `${s}, sig2=("@method");created=1`],
    ['a repeated component', (s: string) => s.replace('("@method"', '("@method" "@method"')],
    ['an escape in a string', (s: string) => s.replace('keyid="', 'keyid="a\\"b')],
    ['a token parameter', (s: string) => s.replace(/alg="([^"]*)"/, 'alg=$1')],
    ['a leading zero', (s: string) => s.replace('created=', 'created=0')],
    ['a negative time', (s: string) => s.replace('created=', 'created=-')],
    ['a short nonce', (s: string) => s.replace(/nonce="([^"]*)"/, 'nonce="AAAAAAAAAAAAAAAAAAAA"')],
    ['a padded nonce', (s: string) => s.replace(/nonce="([^"]*)"/, 'nonce="$1=="')],
    ['an unknown derived component', (s: string) => s.replace('"@authority"', '"@path"')],
    ['a space inside the list', (s: string) => s.replace('("@method"', '( "@method"')],
  ])('declines %s (the reference parser decides)', (_label, mutate) => {
    for (const encoding of ENCODINGS) {
      const s = signed(1, encoding);
      const input = mutate(s.input);
      expect(input).not.toBe(s.input);
      expect(fastParseSignatureHeaders(input, s.signature, encoding)).toBeUndefined();
    }
  });

  it('declines signatures outside the main form of the encoding', () => {
    const s = signed(1, 'legacy');
    const token = /^sig1=:(.*):$/.exec(s.signature)![1]!;
    const std = Buffer.from(token, 'base64url').toString('base64');
    expect(fastParseSignatureHeaders(s.input, `sig1=:${std}:`, 'legacy')).toBeUndefined(); // the legacy decoder's second branch
    expect(fastParseSignatureHeaders(s.input, `sig1=:${token}:`, 'strict')).toBeUndefined();
    expect(fastParseSignatureHeaders(s.input, `sig1=:${token.slice(0, -1)}B:`, 'legacy')).toBeUndefined(); // non-canonical tail
    expect(fastParseSignatureHeaders(s.input, `sig1=:${token}:;x=1`, 'legacy')).toBeUndefined();
  });

  it('agrees with the reference parser on mutated headers, or declines', () => {
    const pieces = fc.constantFrom(' ', ',', ';', '=', '"', ':', '(', ')', '\\', '0', '-', '_', '+', '/', 'A', '@', 'sig2=', ';x=1', '"x"', '==');
    const mutation = fc.tuple(fc.nat(), fc.nat({ max: 3 }), pieces, fc.boolean());
    let accepted = 0;
    fc.assert(
      fc.property(fc.nat({ max: 40 }), fc.constantFrom(...ENCODINGS), mutation, (i, encoding, [at, cut, piece, onSignature]) => {
        const s = signed(i, encoding);
        const target = onSignature ? s.signature : s.input;
        const pos = at % (target.length + 1);
        const mutated = target.slice(0, pos) + piece + target.slice(pos + cut);
        const [input, signature] = onSignature ? [s.input, mutated] : [mutated, s.signature];
        if (expectAgreement(input, signature, encoding)) accepted++;
      }),
      { numRuns: 1500 },
    );
    expect(accepted).toBeGreaterThan(0); // some mutations keep the shape (e.g. inside a string)
  });

  it('agrees with the reference parser on generated headers, or declines', () => {
    const item = fc.constantFrom(
      '"@method"',
      '"@target-uri"',
      '"@authority"',
      '"content-type"',
      '"content-digest"',
      '"authorization"',
      '"x-a"',
      '"@path"',
      '"A"',
      '""',
      '"a b"',
    );
    const list = fc.array(item, { maxLength: 6 }).map((xs) => xs.join(' '));
    const int = fc.oneof(fc.constantFrom('0', '00', '-1', '-0', '1776520800', '999999999999999', '1000000000000000', '1.5'), fc.nat().map(String));
    const nonce = fc.oneof(
      fc.uint8Array({ minLength: 14, maxLength: 20 }).map((b) => Buffer.from(b).toString('base64url')),
      fc.uint8Array({ minLength: 16, maxLength: 18 }).map((b) => Buffer.from(b).toString('base64')),
      fc.stringMatching(/^[A-Za-z0-9_-]{20,26}$/),
    );
    const str = fc.oneof(fc.constantFrom('ed25519', 'ecdsa-p256-sha256', 'proto/request-signing/v1', ''), fc.stringMatching(/^[ !#-[\]-~]{0,10}$/));
    const sig = fc.oneof(
      fc.uint8Array({ minLength: 63, maxLength: 65 }).map((b) => Buffer.from(b).toString('base64url')),
      fc.uint8Array({ minLength: 63, maxLength: 65 }).map((b) => Buffer.from(b).toString('base64')),
      fc.stringMatching(/^[A-Za-z0-9_+/-]{84,88}$/),
    );
    let accepted = 0;
    fc.assert(
      fc.property(list, int, int, nonce, str, str, str, sig, fc.constantFrom(...ENCODINGS), (l, created, expires, n, keyid, alg, tag, token, encoding) => {
        const input = `sig1=(${l});created=${created};expires=${expires};nonce="${n}";keyid="${keyid}";alg="${alg}";tag="${tag}"`;
        if (expectAgreement(input, `sig1=:${token}:`, encoding)) accepted++;
      }),
      { numRuns: 2000 },
    );
    expect(accepted).toBeGreaterThan(0);
  });
});

describe('fastSha256DigestToken', () => {
  const digest = (enc: BinaryEncoding) =>
    fc.uint8Array({ minLength: 31, maxLength: 33 }).map((b) => `sha-256=:${Buffer.from(b).toString(enc === 'strict' ? 'base64' : 'base64url')}:`);
  const anyValue = fc.oneof(
    digest('legacy'),
    digest('strict'),
    fc.stringMatching(/^sha-256=:[A-Za-z0-9_+/=-]{42,45}:$/),
    fc.stringMatching(/^[A-Za-z0-9_-]{43}$/).map((t) => `sha-256=:${t}:`),
    fc.stringMatching(/^[A-Za-z0-9+/]{43}$/).map((t) => `sha-256=:${t}=:`),
    fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `sha-512=:${Buffer.from(b).toString('base64url')}:`),
  );

  it('returns a token only when the reference parser reads exactly that sha-256 value', () => {
    let accepted = 0;
    fc.assert(
      fc.property(anyValue, fc.constantFrom(...ENCODINGS), (value, encoding) => {
        const token = fastSha256DigestToken(value, encoding);
        if (token === undefined) return;
        accepted++;
        const parsed = parseContentDigest(value, encoding);
        expect([...parsed.keys()]).toEqual(['sha-256']);
        const bytes = parsed.get('sha-256')!;
        expect(bytes).toHaveLength(32);
        expect(bytes.toString(encoding === 'strict' ? 'base64' : 'base64url')).toBe(token);
      }),
      { numRuns: 2000 },
    );
    expect(accepted).toBeGreaterThan(0);
  });

  it('takes what our signer emits', () => {
    for (const encoding of ENCODINGS) expect(fastSha256DigestToken(signed(2, encoding).digest!, encoding)).toBeDefined();
  });
});
