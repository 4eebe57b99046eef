/**
 * Step 10's signature base for the verifier's fast path: the RFC 9421 text (the same as
 * signature-base.ts `buildSignatureBase` produces) and its UTF-8 bytes for the verify call,
 * encoded into a reused scratch buffer.
 */
import type { CanonicalTarget } from '../parse/target-uri.js';
import type { SignatureBase } from '../verify/verifier-paths.js';

/** The method in upper case; the usual upper-case method string is returned as it is. */
export function upperCaseMethod(method: string): string {
  for (let i = 0; i < method.length; i++) {
    const c = method.charCodeAt(i);
    if (c < 0x41 || c > 0x5a) return method.toUpperCase();
  }
  return method;
}

/**
 * The last prefix built for the usual component list, with what it was built from; its UTF-8
 * bytes stay at the start of SCRATCH until another base overwrites them.
 */
let usual: { method: string; target: CanonicalTarget | undefined; type: string; prefix: string } = {
  method: '',
  target: undefined,
  type: '',
  prefix: '',
};
let prefixInScratch = false;
let prefixBytes = 0;

const encoder = new TextEncoder();
const SCRATCH = new Uint8Array(16 * 1024);
let suffixView = SCRATCH.subarray(0);
/** The last view handed out: bases of one sender mostly have the same length. */
let bytesView = SCRATCH.subarray(0, 0);
let bytes: Uint8Array = bytesView;

function viewOf(length: number): Uint8Array {
  if (bytesView.length !== length) bytesView = SCRATCH.subarray(0, length);
  return bytesView;
}

/** `@method @target-uri @authority content-type content-digest`, in that order. */
function isUsualList(c: readonly string[]): boolean {
  return c.length === 5 && c[0] === '@method' && c[1] === '@target-uri' && c[2] === '@authority' && c[3] === 'content-type' && c[4] === 'content-digest';
}

/**
 * The signature base: one `"<name>": <value>` line per covered component in order, then
 * `"@signature-params"`. `fieldValues` holds the covered header fields' values at their
 * components' positions. Its UTF-8 bytes are then available from `signatureBaseBytes()`.
 */
export function signatureBase(
  components: readonly string[],
  fieldValues: readonly string[],
  signatureParams: string,
  method: string,
  target: CanonicalTarget,
): string {
  if (isUsualList(components)) {
    // Everything before the digest value repeats across one sender's requests: its text is
    // reused, and so are its bytes, so that only the rest is encoded.
    const type = fieldValues[3]!;
    if (method !== usual.method || target !== usual.target || type !== usual.type) {
      const prefix = `"@method": ${method}\n"@target-uri": ${target.targetUri}\n"@authority": ${target.authority}\n"content-type": ${type}\n"content-digest": `;
      usual = { method, target, type, prefix };
      prefixInScratch = false;
    }
    const suffix = `${fieldValues[4]!}\n"@signature-params": ${signatureParams}`;
    if (!prefixInScratch && usual.prefix.length * 3 < SCRATCH.length) {
      prefixBytes = encoder.encodeInto(usual.prefix, SCRATCH).written;
      suffixView = SCRATCH.subarray(prefixBytes);
      prefixInScratch = true;
    }
    if (prefixInScratch) {
      const r = encoder.encodeInto(suffix, suffixView);
      bytes = r.read === suffix.length ? viewOf(prefixBytes + r.written) : encoder.encode(usual.prefix + suffix);
    } else bytes = encoder.encode(usual.prefix + suffix);
    return usual.prefix + suffix;
  }
  let base = '';
  for (let i = 0; i < components.length; i++) {
    const c = components[i]!;
    const v = c === '@method' ? method : c === '@target-uri' ? target.targetUri : c === '@authority' ? target.authority : fieldValues[i]!;
    base += `"${c}": ${v}\n`;
  }
  base = `${base}"@signature-params": ${signatureParams}`;
  if (base.length * 3 > SCRATCH.length) bytes = encoder.encode(base);
  else {
    prefixInScratch = false;
    bytes = viewOf(encoder.encodeInto(base, SCRATCH).written);
  }
  return base;
}

/**
 * UTF-8 bytes of the base `signatureBase` returned last, for the synchronous verify call that
 * follows: mostly a view of a reused scratch array (far cheaper than a new Buffer), valid only
 * until the next `signatureBase`.
 */
export function signatureBaseBytes(): Uint8Array {
  return bytes;
}

/** The one result object `scratchSignatureBase` hands out, overwritten by each call. */
const result = { text: '', bytes: bytes as Uint8Array };

/**
 * The VerifierPaths form: `signatureBase` of the received method (upper-cased here) with its
 * bytes. The object and its bytes are reused: valid only until the next call.
 */
export function scratchSignatureBase(
  components: readonly string[],
  fieldValues: readonly string[],
  signatureParams: string,
  method: string,
  target: CanonicalTarget,
): SignatureBase {
  result.text = signatureBase(components, fieldValues, signatureParams, upperCaseMethod(method), target);
  result.bytes = bytes;
  return result;
}
