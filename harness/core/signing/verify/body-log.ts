/**
 * Step 14b: what may be logged about a body rejected for duplicate keys: the keyid, nonce,
 * byte length and up to 4 key names. Each name is cut at its first non-printable character
 * and to at most 32 bytes at a UTF-8 boundary; whatever was cut is replaced by
 * `<sanitized:N>` (N = bytes removed). Names beyond the fourth are summarised as `<...N more>`.
 */

export const MAX_LOGGED_KEYS = 4;
export const MAX_KEY_BYTES = 32;

export interface DuplicateKeyLog {
  event: 'body_duplicate_keys';
  keyid: string;
  nonce: string;
  body_bytes: number;
  /** Sanitized names, at most 4, then possibly one `<...N more>` entry. */
  keys: string[];
}

const NON_PRINTABLE = /[\p{C}]/u;

/** Sanitize one key name for a log line. */
export function sanitizeKeyName(name: string): string {
  const cut = name.search(NON_PRINTABLE);
  let kept = cut === -1 ? name : name.slice(0, cut);
  let bytes = Buffer.byteLength(kept, 'utf8');
  if (bytes > MAX_KEY_BYTES) {
    // Walk back to a code point boundary that fits.
    let out = '';
    let used = 0;
    for (const ch of kept) {
      const b = Buffer.byteLength(ch, 'utf8');
      if (used + b > MAX_KEY_BYTES) break;
      out += ch;
      used += b;
    }
    kept = out;
    bytes = used;
  }
  const removed = Buffer.byteLength(name, 'utf8') - bytes;
  return removed > 0 ? `${kept}<sanitized:${removed}>` : kept;
}

/** The 14b log record for a duplicate-key rejection. */
export function duplicateKeyLog(keyid: string, nonce: string, bodyBytes: number, names: readonly string[]): DuplicateKeyLog {
  const keys = names.slice(0, MAX_LOGGED_KEYS).map(sanitizeKeyName);
  if (names.length > MAX_LOGGED_KEYS) keys.push(`<...${names.length - MAX_LOGGED_KEYS} more>`);
  return { event: 'body_duplicate_keys', keyid, nonce, body_bytes: bodyBytes, keys };
}
