import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildSignatureBase } from '../sign/signature-base.js';
import { canonicalizeTargetUri } from '../parse/target-uri.js';
import { signatureBase, signatureBaseBytes, upperCaseMethod } from './verifier-base.js';

const USUAL = ['@method', '@target-uri', '@authority', 'content-type', 'content-digest'];

describe('signatureBase', () => {
  it('is the text buildSignatureBase builds, with its UTF-8 bytes, over any sequence of requests', () => {
    const target = fc.constantFrom(
      canonicalizeTargetUri('https://seller.example.com/mcp'),
      canonicalizeTargetUri('https://seller.example.com:8443/a2a?x=1'),
      canonicalizeTargetUri('http://[::1]:8080/p'),
    );
    const components: fc.Arbitrary<readonly string[]> = fc.oneof(
      fc.constant(USUAL),
      fc.constant(['@method', '@target-uri', '@authority', 'content-type']),
      fc.constant(['@authority', '@method', '@target-uri', 'content-digest', 'content-type']),
      fc.shuffledSubarray(['@method', '@target-uri', '@authority', 'content-type', 'content-digest', 'authorization']),
    );
    // Header values as node:http delivers them: latin1 strings, sometimes with non-ASCII.
    const value = fc.oneof(fc.constantFrom('application/json', 'sha-256=:AAAA:', ''), fc.string({ maxLength: 12 }), fc.stringMatching(/^[\x20-\xff]{0,2000}$/));
    const request = fc.record({
      components,
      method: fc.constantFrom('POST', 'GET', 'post', 'Patch'),
      target,
      values: fc.array(value, { minLength: 6, maxLength: 6 }),
      params: fc.oneof(fc.constant('("@method");created=1;keyid="k"'), fc.string({ maxLength: 40 })),
    });
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 8 }), (requests) => {
        for (const r of requests) {
          const method = upperCaseMethod(r.method);
          expect(method).toBe(r.method.toUpperCase());
          const fieldValues = r.components.map((c, i) => (c.startsWith('@') ? '' : r.values[i]!));
          const expected = buildSignatureBase(
            r.components,
            new Map<string, string>([
              ['@method', method],
              ['@target-uri', r.target.targetUri],
              ['@authority', r.target.authority],
              ...r.components.map((c, i): [string, string] => [c, fieldValues[i]!]).filter(([c]) => !c.startsWith('@')),
            ]),
            r.params,
          );
          expect(signatureBase(r.components, fieldValues, r.params, method, r.target)).toBe(expected);
          expect(Buffer.from(signatureBaseBytes()).equals(Buffer.from(expected, 'utf8'))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a reused prefix in step with a changed content type', () => {
    const t = canonicalizeTargetUri('https://seller.example.com/mcp');
    const base = (type: string, digest: string) => {
      const text = signatureBase(USUAL, ['', '', '', type, digest], 'P', 'POST', t);
      return [text, Buffer.from(signatureBaseBytes()).toString('utf8')];
    };
    const [a1, b1] = base('application/json', 'sha-256=:A:');
    const [a2, b2] = base('application/json', 'sha-256=:B:');
    const [a3, b3] = base('text/plain; charset=é', 'sha-256=:C:');
    expect([b1, b2, b3]).toEqual([a1, a2, a3]);
    expect(a3).toContain('"content-type": text/plain; charset=é\n"content-digest": sha-256=:C:\n');
  });
});
