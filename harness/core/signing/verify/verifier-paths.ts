/**
 * The parsing and building steps of the checklist (checklist.ts) that have two
 * implementations: the reference path here, made of the reference parsers alone
 * (structured-headers plus the profile's strictness, the strict duplicate-key scanner,
 * signature-base.ts), and an optional accelerator in ../fast/ that answers exactly as this one
 * does, only faster. verifier.ts picks one per call (`VerifyContext.paths`); a differential
 * property test (fast/differential.test.ts) holds the two to the same verdicts.
 */
import type { BinaryEncoding } from '../parse/base64.js';
import { contentDigestMatches, parseContentDigest } from '../parse/content-digest.js';
import { type DuplicateKeyScan, scanDuplicateKeys } from '../parse/duplicate-keys.js';
import { coverageOf, parseSignatureHeaders, type SignatureView } from '../parse/signature-headers.js';
import type { CanonicalTarget } from '../parse/target-uri.js';
import { buildSignatureBase } from '../sign/signature-base.js';

/** Which implementation of the checklist's parsing and building steps runs. */
export type VerifierPathChoice = 'fast' | 'reference';

/** A covered Content-Digest as parsed at Step 1, checked against the body at Step 11. */
export interface ContentDigestCheck {
  /** True when every supported algorithm present matches the body (and one is present). */
  matches(body: Uint8Array): boolean;
}

/** The signature base text and its UTF-8 bytes. */
export interface SignatureBase {
  text: string;
  bytes: Uint8Array;
}

export interface VerifierPaths {
  readonly name: VerifierPathChoice;
  /** Step 1: the `sig1` signature of the header pair. Throws SignatureFormatError. */
  parseSignature(signatureInput: string, signature: string, encoding: BinaryEncoding): SignatureView;
  /** Step 1: a covered Content-Digest value (trimmed). Throws StructuredFieldError. */
  parseContentDigest(value: string, encoding: BinaryEncoding): ContentDigestCheck;
  /**
   * Step 10: the signature base of the received method (upper-cased here), the canonical
   * target and the covered fields' values (at their components' positions). The result may be
   * reused by the next call: read it before calling again.
   */
  signatureBase(components: readonly string[], fieldValues: readonly string[], signatureParams: string, method: string, target: CanonicalTarget): SignatureBase;
  /** Step 14a: duplicate keys (and JSON validity) of the raw body. */
  scanBody(body: Uint8Array): DuplicateKeyScan;
}

const encoder = new TextEncoder();

/** A parsed Content-Digest dictionary (algorithm → bytes). */
export class ParsedDigestCheck implements ContentDigestCheck {
  constructor(private readonly digests: Map<string, Buffer>) {}

  matches(body: Uint8Array): boolean {
    return contentDigestMatches(this.digests, body);
  }
}

/** The reference path: the reference parsers and builders, nothing else. */
export const REFERENCE_PATHS: VerifierPaths = Object.freeze({
  name: 'reference',
  parseSignature(signatureInput: string, signature: string, encoding: BinaryEncoding): SignatureView {
    const parsed = parseSignatureHeaders(signatureInput, signature, encoding);
    return { ...parsed, coverage: coverageOf(parsed.components) };
  },
  parseContentDigest(value: string, encoding: BinaryEncoding): ContentDigestCheck {
    return new ParsedDigestCheck(parseContentDigest(value, encoding));
  },
  signatureBase(
    components: readonly string[],
    fieldValues: readonly string[],
    signatureParams: string,
    method: string,
    target: CanonicalTarget,
  ): SignatureBase {
    const values = new Map<string, string>([
      ['@method', method.toUpperCase()],
      ['@target-uri', target.targetUri],
      ['@authority', target.authority],
    ]);
    components.forEach((c, i) => {
      if (!c.startsWith('@')) values.set(c, fieldValues[i]!);
    });
    const text = buildSignatureBase(components, values, signatureParams);
    return { text, bytes: encoder.encode(text) };
  },
  scanBody: (body: Uint8Array): DuplicateKeyScan => scanDuplicateKeys(body),
});
