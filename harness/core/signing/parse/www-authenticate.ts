/**
 * `WWW-Authenticate: Signature error="<code>"` (digest 1.14): exactly the code, no realm and
 * no other parameters. The parser tolerates extra parameters from other implementations.
 */
import { parseDictionary, serializeString, Token } from 'structured-headers';

const CODE = /^[a-z0-9_]+$/;

export function wwwAuthenticate(code: string): string {
  if (!CODE.test(code)) throw new RangeError(`not an error code: ${JSON.stringify(code)}`);
  return `Signature error=${serializeString(code)}`;
}

/** Extract the error code from a `WWW-Authenticate` value, or undefined when there is none. */
export function parseWwwAuthenticate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const m = /^\s*Signature\s+(.*)$/is.exec(value);
  if (!m) return undefined;
  try {
    const params = parseDictionary(m[1]!.replace(/\s*,\s*/g, ', '));
    const v = params.get('error')?.[0];
    if (typeof v === 'string') return v;
    if (v instanceof Token) return v.toString();
  } catch {
    const q = /\berror\s*=\s*"([^"]*)"/.exec(m[1]!);
    return q?.[1];
  }
  return undefined;
}
