import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeBinary, decodeLegacy, decodeNonce, decodeStrict, encodeBinary } from './base64.js';

describe('strict sf-binary (3.2)', () => {
  it('accepts padded standard base64', () => {
    expect(decodeStrict('aGk=').toString()).toBe('hi');
    expect(decodeStrict('').length).toBe(0);
  });
  it.each([
    ['aGk', 'missing padding'],
    ['a-k=', 'base64url character'],
    ['a_k=', 'base64url character'],
    ['aGl=', 'non-canonical trailing bits'],
    ['aG=k', 'padding in the middle'],
    ['aGk==', 'too much padding'],
  ])('rejects %s (%s)', (token) => {
    expect(() => decodeStrict(token)).toThrow();
  });
});

describe('legacy decoder (3.1 and webhooks)', () => {
  it('accepts unpadded base64url and pure standard base64', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x01]);
    expect(decodeLegacy('-_-_AQ')).toEqual(bytes);
    expect(decodeLegacy('+/+/AQ==')).toEqual(bytes);
    expect(decodeLegacy('+/+/AQ')).toEqual(bytes);
  });
  it.each(['-/+_AQ', '-_-_AQ==', '+/+_AQ', 'abc$', 'a', 'AQ=', '-_-_AR'])('rejects %s', (token) => {
    expect(() => decodeLegacy(token)).toThrow();
  });
  it('round-trips any bytes in both encodings', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 96 }), (bytes) => {
        for (const enc of ['strict', 'legacy'] as const) {
          expect(decodeBinary(encodeBinary(bytes, enc), enc)).toEqual(Buffer.from(bytes));
        }
        expect(decodeLegacy(Buffer.from(bytes).toString('base64'))).toEqual(Buffer.from(bytes));
      }),
    );
  });
});

describe('nonce', () => {
  it('is unpadded base64url only', () => {
    expect(decodeNonce('KXYnfEfJ0PBRZXQyVXfVQA')).toHaveLength(16);
    expect(() => decodeNonce('KXYnfEfJ0PBRZXQyVXfVQA==')).toThrow();
    expect(() => decodeNonce('KXYnfEfJ0PBRZXQyVXfV+A')).toThrow();
  });
});
