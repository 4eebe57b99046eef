/**
 * The fast path against the reference path: for generated, signed and mutated requests
 * (testing/differential-cases.ts), the verifier with `paths: 'fast'` and with
 * `paths: 'reference'` gives the same verdict, the same code at the same step, the same signer
 * and signature base, and the same 14b log record. Each path gets its own fresh replay cache,
 * revocation list and key resolver per case. Fixed seed, 10,000 cases, so a CI run is
 * reproducible; PROTO_COMPLY_DIFF_SEED / PROTO_COMPLY_DIFF_RUNS explore further locally.
 *
 * Every difference this test found is kept below as a regression example.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StaticKeyResolver } from '../keys/key-resolver.js';
import { combined, lowerHeaders } from '../parse/received-headers.js';
import { parseStrictDictionaryWithText } from '../parse/structured-fields.js';
import { signRequest } from '../sign/signer.js';
import { signBytes } from '../verify/crypto-verify.js';
import type { DuplicateKeyLog } from '../verify/body-log.js';
import { InMemoryReplayCache } from '../verify/replay-cache.js';
import { InMemoryRevocation, listRefreshedAgo } from '../verify/revocation.js';
import type { VerifierPathChoice } from '../verify/verifier-paths.js';
import type { VerifyContext, VerifyResult } from '../verify/verifier-types.js';
import { verifyRequestSignature } from '../verify/verifier.js';
import { DIFF_KEYS, type DiffCase, diffCase } from '../testing/differential-cases.js';
import { ids, NOW, signingKey } from '../testing/verifier-setup.js';
import { fastParseSignatureHeaders } from './signature-fast.js';

const SEED = Number(process.env.PROTO_COMPLY_DIFF_SEED ?? 9421);
const RUNS = Number(process.env.PROTO_COMPLY_DIFF_RUNS ?? 10_000);

function contextFor(c: DiffCase, paths: VerifierPathChoice, log: DuplicateKeyLog[], offloadCrypto: boolean): VerifyContext {
  const request = c.setup.profile === 'request';
  return {
    profile: c.setup.profile,
    ids,
    encoding: c.setup.encoding,
    capability: request ? { supported: true, covers_content_digest: c.digestPolicy, required_for: c.required ? ['create_media_buy'] : [] } : undefined,
    digestPolicy: c.digestPolicy,
    operation: 'create_media_buy',
    fallbackAuthenticated: c.fallbackAuthenticated,
    now: () => NOW,
    keys: new StaticKeyResolver(DIFF_KEYS, 'https://agent.example.com/mcp'),
    replayCache: new InMemoryReplayCache({ perKeyidCap: c.replayCap }),
    revocation:
      c.revocation === 'none'
        ? undefined
        : new InMemoryRevocation(listRefreshedAgo(c.revocation === 'stale' ? 100_000 : 10, NOW, c.revocation === 'revoked' ? [DIFF_KEYS[0]!.kid!] : [])),
    checkBody: c.checkBody,
    onDuplicateKeys: (record) => log.push(record),
    paths,
    offloadCrypto,
  };
}

function summary(r: VerifyResult) {
  if (!r.ok) return { ok: false, code: r.code, step: r.step, signatureBase: r.signatureBase };
  return r.signer === null ? { ok: true, signer: null } : { ok: true, signer: r.signer, signatureBase: r.signatureBase };
}

async function verdicts(c: DiffCase, paths: VerifierPathChoice, offloadCrypto = false) {
  const log: DuplicateKeyLog[] = [];
  const ctx = contextFor(c, paths, log, offloadCrypto);
  try {
    const first = summary(await verifyRequestSignature(c.request, ctx));
    const second = c.twice ? summary(await verifyRequestSignature(c.request, ctx)) : undefined;
    return { first, second, log };
  } catch (err) {
    return { threw: `${(err as Error).name}: ${(err as Error).message}` };
  }
}

/** Whether the fast path's Step 1 shortcut (signature-fast.ts) takes the case's headers. */
function fastStepOneTakes(c: DiffCase): boolean {
  const h = lowerHeaders(c.request.headers);
  const input = h['signature-input'];
  const sig = h.signature;
  return input !== undefined && sig !== undefined && fastParseSignatureHeaders(combined(input), combined(sig), c.setup.encoding) !== undefined;
}

describe('fast path vs reference path (differential)', () => {
  it(`gives the same verdicts on ${RUNS} generated requests (seed ${SEED})`, async () => {
    const codes = new Map<string, number>();
    let fastTaken = 0;
    await fc.assert(
      fc.asyncProperty(diffCase, async (c) => {
        const reference = await verdicts(c, 'reference');
        const fast = await verdicts(c, 'fast');
        // isDeepStrictEqual first: expect's diffing is slow, and only a difference needs it.
        if (!isDeepStrictEqual(fast, reference)) expect(fast).toEqual(reference);
        expect(reference.threw).toBeUndefined();
        for (const v of [reference.first, reference.second]) {
          if (v === undefined) continue;
          const key = v.ok ? (v.signer ? 'verified' : 'unsigned') : v.code!;
          codes.set(key, (codes.get(key) ?? 0) + 1);
        }
        if (fastStepOneTakes(c)) fastTaken++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    if (process.env.PROTO_COMPLY_DIFF_STATS)
      console.log(
        fastTaken,
        [...codes].sort((a, b) => b[1] - a[1]),
      );
    // The cases reach every part of the checklist, and the fast path's shortcuts are taken.
    if (RUNS >= 10_000) {
      expect(codes.get('verified') ?? 0).toBeGreaterThan(RUNS * 0.03);
      expect(fastTaken).toBeGreaterThan(RUNS * 0.1);
      for (const code of [
        'header_malformed',
        'params_incomplete',
        'tag_invalid',
        'alg_not_allowed',
        'window_invalid',
        'components_incomplete',
        'components_unexpected',
        'key_unknown',
        'key_purpose_invalid',
        'key_revoked',
        'revocation_stale',
        'rate_abuse',
        'invalid',
        'digest_mismatch',
        'replayed',
        'required',
      ]) {
        expect(
          [...codes.keys()].some((k) => k.endsWith(`_${code}`)),
          code,
        ).toBe(true);
      }
      expect(codes.has('request_target_uri_malformed') && codes.has('webhook_target_uri_malformed')).toBe(true);
      expect(codes.has('request_body_malformed') && codes.has('webhook_body_malformed')).toBe(true);
    }
  }, 120_000);
});

describe('crypto on the thread pool vs on the event loop (differential)', () => {
  const runs = Math.min(RUNS, 2_000);
  it(`gives the same verdicts on ${runs} generated requests (seed ${SEED})`, async () => {
    let verified = 0;
    await fc.assert(
      fc.asyncProperty(diffCase, async (c) => {
        const inline = await verdicts(c, 'fast');
        const offloaded = await verdicts(c, 'fast', true);
        if (!isDeepStrictEqual(offloaded, inline)) expect(offloaded).toEqual(inline);
        if (inline.first?.ok && inline.first.signer) verified++;
      }),
      { seed: SEED, numRuns: runs },
    );
    // Both outcomes of the crypto step are compared, not only refusals before it.
    if (runs >= 2_000) expect(verified).toBeGreaterThan(runs * 0.03);
  }, 120_000);
});

describe('differences the differential test found (regressions)', () => {
  const key = signingKey(DIFF_KEYS[0]!);

  /**
   * A 3.1 request whose Signature-Input carries an extra byte-sequence parameter, signed over
   * `@signature-params` as written or as re-serialized (RFC 9421 2.3: the serialization).
   */
  function withExtraParam(extra: string, signOver: 'written' | 'serialized'): DiffCase {
    const s = signRequest(
      { method: 'POST', url: 'https://seller.example.com/mcp', body: '{"a":1}' },
      { profile: 'request', ids, key, created: NOW, encoding: 'legacy' },
    );
    const input = `${s.headers['Signature-Input']};${extra}`;
    const params = signOver === 'written' ? input.slice('sig1='.length) : parseStrictDictionaryWithText(input, 'legacy').memberText('sig1')!;
    const base = s.signatureBase.replace(/"@signature-params": .*$/, `"@signature-params": ${params}`);
    const signature = Buffer.from(signBytes(key.alg, key.privateKey, new TextEncoder().encode(base))).toString('base64url');
    return {
      setup: { profile: 'request', encoding: 'legacy' },
      request: {
        method: 'POST',
        url: 'https://seller.example.com/mcp',
        headers: { ...s.headers, 'Signature-Input': input, Signature: `sig1=:${signature}:` },
        body: s.body,
      },
      digestPolicy: 'required',
      required: true,
      fallbackAuthenticated: false,
      checkBody: true,
      revocation: 'none',
      replayCap: 1000,
      twice: false,
    };
  }

  // sf-fast.ts took a legacy byte sequence's text (unpadded, or base64url) as its canonical
  // serialization, so the fast path signed-params line kept `:AA:` where the reference path
  // (and RFC 8941 serialization) has `:AA==:`: a valid signature failed on the fast path only.
  it.each(['x=:AA:', 'x=:-_8:', 'x=:+/8:'])('a byte-sequence parameter %s in a 3.1 Signature-Input', async (extra) => {
    const serialized = withExtraParam(extra, 'serialized');
    expect((await verdicts(serialized, 'fast')).first).toMatchObject({ ok: true });
    expect(await verdicts(serialized, 'fast')).toEqual(await verdicts(serialized, 'reference'));
    const written = withExtraParam(extra, 'written');
    expect((await verdicts(written, 'reference')).first).toMatchObject({ ok: false, code: 'request_signature_invalid' });
    expect(await verdicts(written, 'fast')).toEqual(await verdicts(written, 'reference'));
  });
});
