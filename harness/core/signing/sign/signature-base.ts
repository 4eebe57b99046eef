/**
 * The RFC 9421 signature base (digest 1.8): one `"<name>": <value>` line per covered
 * component in `Signature-Input` order, then `"@signature-params": <inner list>`, joined
 * with LF and no trailing newline.
 */
import { serializeInnerList, type Parameters } from 'structured-headers';
import type { SignatureParams } from '../parse/signature-headers.js';

export function buildSignatureBase(components: readonly string[], values: ReadonlyMap<string, string>, signatureParams: string): string {
  let base = '';
  for (const c of components) {
    const v = values.get(c);
    if (v === undefined) throw new Error(`no value for covered component ${c}`);
    base += `"${c}": ${v}\n`;
  }
  return `${base}"@signature-params": ${signatureParams}`;
}

/** Parameter order the profile uses: created;expires;nonce;keyid;alg;tag (then any extras). */
export const PARAM_ORDER: readonly (keyof SignatureParams)[] = ['created', 'expires', 'nonce', 'keyid', 'alg', 'tag'];

/** Serialize a signature's component list and parameters as `@signature-params`. */
export function serializeSignatureParams(components: readonly string[], params: SignatureParams, extra: ReadonlyArray<[string, string | number]> = []): string {
  const p: Parameters = new Map();
  for (const k of PARAM_ORDER) if (params[k] !== undefined) p.set(k, params[k]!);
  for (const [k, v] of extra) p.set(k, v);
  return serializeInnerList([components.map((c) => [c, new Map()]), p]);
}
