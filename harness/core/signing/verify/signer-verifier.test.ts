import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { errorCode } from '../codes.js';
import { DEFECTS, parseDefects, VARIATIONS } from '../sign/defects.js';
import { ALLOWED_SIG_ALGS } from '../keys/keys.js';
import { signRequest } from '../sign/signer.js';
import { context, freshKey, ids, NOW, SETUPS, signingKey } from '../testing/verifier-setup.js';
import { verifyRequestSignature } from './verifier.js';

const BODY = '{"plan_id":"p1","packages":[{"package_id":"k","budget":{"amount":10,"currency":"USD"}}]}';
const URL = 'https://seller.example.com/proto/create_media_buy';
const keys = Object.fromEntries(ALLOWED_SIG_ALGS.map((a) => [a, freshKey(a)]));
const webhookKeys = Object.fromEntries(ALLOWED_SIG_ALGS.map((a) => [a, freshKey(a, `wh-${a}`, 'webhook-signing')]));

describe('round trip: every alg x profile', () => {
  for (const setup of SETUPS) {
    for (const alg of ALLOWED_SIG_ALGS) {
      it(`${setup.label} ${alg}`, async () => {
        const jwk = setup.profile === 'webhook' ? webhookKeys[alg]! : keys[alg]!;
        const signed = signRequest(
          { method: 'POST', url: URL, body: BODY },
          { profile: setup.profile, ids, key: signingKey(jwk), encoding: setup.encoding, created: NOW },
        );
        const r = await verifyRequestSignature(signed, context(setup, [jwk]));
        expect(r).toMatchObject({ ok: true, signer: { keyid: jwk.kid, alg, label: 'sig1', verified_at: NOW, agent_url: 'https://agent.example.com/mcp' } });
        if (r.ok && r.signer) expect(r.signatureBase).toBe(signed.signatureBase);
        expect(signed.headers['Signature-Input']).toContain(`tag="${setup.profile === 'webhook' ? ids.webhookSigningTag : ids.requestSigningTag}"`);
        if (setup.encoding === 'strict') expect(signed.headers.Signature).toMatch(/^sig1=:[A-Za-z0-9+/]+=*:$/);
        else expect(signed.headers.Signature).toMatch(/^sig1=:[A-Za-z0-9_-]+:$/);
      });
    }
  }

  it('ES256 signatures are 64-byte P1363 r||s', () => {
    const signed = signRequest(
      { method: 'POST', url: URL, body: BODY },
      { profile: 'request', ids, key: signingKey(keys['ecdsa-p256-sha256']!), created: NOW },
    );
    expect(Buffer.from(/:(.*):/.exec(signed.headers.Signature!)![1]!, 'base64url')).toHaveLength(64);
  });
});

describe('defects: each yields exactly its step and code', () => {
  for (const defect of DEFECTS) {
    for (const setup of SETUPS) {
      if (defect.encodings && !defect.encodings.includes(setup.encoding)) continue;
      it(`${defect.name} (${setup.label})`, async () => {
        const jwk = setup.profile === 'webhook' ? webhookKeys.ed25519! : keys.ed25519!;
        const signed = signRequest(
          { method: 'POST', url: URL, body: BODY },
          { profile: setup.profile, ids, key: signingKey(jwk), encoding: setup.encoding, created: NOW, defects: [defect.name] },
        );
        const r = await verifyRequestSignature(signed, context(setup, [jwk]));
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect({ code: r.code, step: r.step }).toEqual({ code: errorCode(setup.profile, defect.reason), step: defect.step });
        }
      });
    }
  }

  for (const variation of VARIATIONS) {
    for (const setup of SETUPS) {
      if (variation.encodings && !variation.encodings.includes(setup.encoding)) continue;
      it(`${variation.name} (${setup.label}) is accepted`, async () => {
        const jwk = setup.profile === 'webhook' ? webhookKeys.ed25519! : keys.ed25519!;
        const signed = signRequest(
          { method: 'POST', url: URL, body: BODY },
          { profile: setup.profile, ids, key: signingKey(jwk), encoding: setup.encoding, created: NOW, defects: [variation.name] },
        );
        if (variation.name === 'standard-base64-token') expect(signed.headers.Signature).toMatch(/^sig1=:[A-Za-z0-9+/]+==:$/);
        else if (variation.name === 'params-reordered') expect(signed.headers['Signature-Input']).toMatch(/;nonce=.*;created=\d+;expires=\d+$/);
        else if (variation.name === 'forwarded-host') expect(signed.headers['X-Forwarded-Host']).toBe('proxy-state.invalid');
        else if (variation.name === 'host-upper-case') expect(signed.headers.Host).toBe('SELLER.EXAMPLE.COM');
        else if (variation.name === 'host-default-port') expect(signed.headers.Host).toBe('seller.example.com:443');
        else expect(signed.headers['Signature-Input']).toMatch(/^sig2=/);
        const r = await verifyRequestSignature(signed, context(setup, [jwk]));
        expect(r).toMatchObject({ ok: true, signer: { keyid: jwk.kid, label: 'sig1' } });
      });
    }
  }

  it('rejects unknown defect names', () => {
    expect(() => parseDefects(['no-such-defect'])).toThrow(/unknown defect/);
  });
});

describe('properties', () => {
  const pathSeg = fc.stringMatching(/^[a-zA-Z0-9._~%-]{0,6}$/).filter((s) => !/%(?![0-9A-Fa-f]{2})/.test(s));
  const url = fc
    .tuple(
      fc.constantFrom('https://seller.example.com', 'https://Seller.Example.com:443', 'https://[2001:db8::2]:8443', 'http://127.0.0.1:8080'),
      fc.array(pathSeg, { maxLength: 5 }),
      fc.option(fc.stringMatching(/^[a-z0-9=&+]{0,10}$/)),
    )
    .map(([origin, segs, q]) => `${origin}/${segs.join('/')}${q === null ? '' : `?${q}`}`);
  const body = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 })).map((o) => JSON.stringify(o));

  it('signer output verifies for random URLs and bodies', async () => {
    await fc.assert(
      fc.asyncProperty(url, body, fc.constantFrom(...SETUPS), fc.constantFrom(...ALLOWED_SIG_ALGS), async (u, b, setup, alg) => {
        const jwk = setup.profile === 'webhook' ? webhookKeys[alg]! : keys[alg]!;
        const signed = signRequest(
          { method: 'POST', url: u, body: b },
          { profile: setup.profile, ids, key: signingKey(jwk), encoding: setup.encoding, created: NOW },
        );
        const r = await verifyRequestSignature(signed, context(setup, [jwk]));
        expect(r.ok && r.signer !== null).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('any single-byte body change is a digest mismatch', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.nat(), fc.integer({ min: 1, max: 255 }), async (b, at, delta) => {
        const jwk = keys.ed25519!;
        const signed = signRequest({ method: 'POST', url: URL, body: b }, { profile: 'request', ids, key: signingKey(jwk), created: NOW });
        const changed = Buffer.from(signed.body);
        const i = at % changed.length;
        changed[i] = (changed[i]! + delta) & 0xff;
        const r = await verifyRequestSignature({ ...signed, body: changed }, context(SETUPS[0]!, [jwk]));
        expect(r.ok ? 'ok' : r.code).toBe('request_signature_digest_mismatch');
      }),
      { numRuns: 150 },
    );
  });
});
