/**
 * The verifier's fast path: the VerifierPaths of verify/verifier-paths.ts with an accelerator
 * in front of each reference step. Each accelerator either answers exactly as the reference
 * step would, or steps aside and lets the reference (or a general fast parser that mirrors it)
 * decide:
 *
 * - Step 1: signature-fast.ts takes the exact header shapes signers emit; anything else is
 *   parsed by `parseSignatureHeaders` over sf-fast.ts's dictionary parser (which falls back to
 *   structured-headers for features it does not cover).
 * - Content-Digest: a canonical `sha-256=:…:` token is compared as text with the body's digest.
 * - Step 10: the base is encoded into reused scratch buffers (verifier-base.ts).
 * - Step 14: json-quick-scan.ts settles ordinary bodies without decoding them.
 *
 * Only verify/verifier.ts selects it; differential.test.ts holds it to the reference verdicts.
 */
import type { BinaryEncoding } from '../parse/base64.js';
import { parseContentDigest, sha256Text } from '../parse/content-digest.js';
import { coverageOf, parseSignatureHeaders, type SignatureView } from '../parse/signature-headers.js';
import { type ContentDigestCheck, ParsedDigestCheck, type VerifierPaths } from '../verify/verifier-paths.js';
import { scanDuplicateKeysFast } from './json-quick-scan.js';
import { parseStrictDictionaryFast, parseStrictDictionaryFastDict } from './sf-fast.js';
import { fastParseSignatureHeaders, fastSha256DigestToken } from './signature-fast.js';
import { scratchSignatureBase } from './verifier-base.js';

/** A canonical sha-256 token: a canonical encoding is unique, so equal text is equal bytes. */
class TokenDigestCheck implements ContentDigestCheck {
  constructor(
    private readonly token: string,
    private readonly encoding: BinaryEncoding,
  ) {}

  matches(body: Uint8Array): boolean {
    return sha256Text(body, this.encoding) === this.token;
  }
}

export const FAST_PATHS: VerifierPaths = Object.freeze({
  name: 'fast',
  parseSignature(signatureInput: string, signature: string, encoding: BinaryEncoding): SignatureView {
    const fast = fastParseSignatureHeaders(signatureInput, signature, encoding);
    if (fast !== undefined) return fast;
    const parsed = parseSignatureHeaders(signatureInput, signature, encoding, parseStrictDictionaryFast);
    return { ...parsed, coverage: coverageOf(parsed.components) };
  },
  parseContentDigest(value: string, encoding: BinaryEncoding): ContentDigestCheck {
    const token = fastSha256DigestToken(value, encoding);
    if (token !== undefined) return new TokenDigestCheck(token, encoding);
    return new ParsedDigestCheck(parseContentDigest(value, encoding, parseStrictDictionaryFastDict));
  },
  signatureBase: scratchSignatureBase,
  scanBody: scanDuplicateKeysFast,
});
