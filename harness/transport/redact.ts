/**
 * Pure redaction helpers. Secrets are replaced by `<redacted:xxxxxxxx>` markers, where the
 * eight hex digits are the start of the secret's SHA-256: equal secrets get equal markers, so
 * evidence can still show "the same token was sent twice" without revealing it.
 */
import { createHash } from 'node:crypto';

/** Secrets shorter than this are ignored: redacting them would shred ordinary text. */
export const MIN_SECRET_LENGTH = 4;

export function redactionMarker(secret: string): string {
  return `<redacted:${createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 8)}>`;
}

/** The spellings of a secret that may appear on the wire: raw, JSON-escaped, percent-encoded. */
function spellings(secret: string): string[] {
  const forms = new Set<string>([secret]);
  forms.add(JSON.stringify(secret).slice(1, -1));
  try {
    forms.add(encodeURIComponent(secret));
  } catch {
    // lone surrogates cannot be percent-encoded; the raw form is still covered
  }
  return [...forms];
}

/** Replace every occurrence of every secret (any spelling) in `text` with its marker. */
export function redact(text: string, secrets: Iterable<string>): string {
  const pairs: Array<[string, string]> = [];
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) continue;
    const marker = redactionMarker(secret);
    for (const form of spellings(secret)) pairs.push([form, marker]);
  }
  // Longest first, so a secret that contains another is replaced as a whole.
  pairs.sort((a, b) => b[0].length - a[0].length);
  let out = text;
  for (const [form, marker] of pairs) {
    if (out.includes(form)) out = out.split(form).join(marker);
  }
  return out;
}

/** `Bearer abc` → `Bearer <redacted:…>`: the scheme stays readable, the credential does not. */
export function redactAuthorization(value: string): string {
  const match = /^(\s*)([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(\s+)(.*)$/s.exec(value);
  if (!match) return value.length === 0 ? value : redactionMarker(value);
  const [, lead, scheme, gap, credential] = match;
  return `${lead}${scheme}${gap}${credential.length === 0 ? '' : redactionMarker(credential)}`;
}

/** `sha256=<hex>` (legacy HMAC header) → `sha256=<redacted:…>`. */
export function redactHmacSignature(value: string): string {
  const eq = value.indexOf('=');
  if (eq <= 0) return redactionMarker(value);
  return `${value.slice(0, eq + 1)}${redactionMarker(value.slice(eq + 1))}`;
}

/**
 * Cookies: keep the names, hide the values. Several Set-Cookie headers joined with `, ` are split
 * at a comma followed by `name=` (not at the comma inside an `Expires` date).
 */
export function redactCookie(value: string): string {
  return value
    .split(/(;\s*|,\s*(?=[^;=,\s]+=))/)
    .map((piece) => {
      const eq = piece.indexOf('=');
      if (eq <= 0 || /^[;,]\s*$/.test(piece)) return piece;
      const name = piece.slice(0, eq);
      // Set-Cookie attributes (Path=/, Max-Age=...) are not secret.
      if (/^(path|domain|expires|max-age|samesite|priority)$/i.test(name.trim())) return piece;
      return `${name}=${redactionMarker(piece.slice(eq + 1))}`;
    })
    .join('');
}
