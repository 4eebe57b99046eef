/**
 * Pure redaction helpers. Secrets are replaced by `<redacted:xxxxxxxx>` markers, where the eight
 * hex digits are an HMAC of the secret under a random key of this process (one run): equal
 * secrets get equal markers, so evidence can still show "the same token was sent twice", and
 * since the key is never written anywhere a reader cannot confirm a guessed secret by hashing it.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** Secrets shorter than this are ignored: redacting them would shred ordinary text. */
export const MIN_SECRET_LENGTH = 4;
/** A secret cut short keeps at least this many characters before it is looked for as a piece. */
const MIN_CUT_PIECE = 8;
/** Base64 fragments shorter than this are not looked for inside other base64 text. */
const MIN_BASE64_FRAGMENT = 8;

const PROCESS_KEY = randomBytes(32);
/** Texts up to this length have their redaction remembered (Redactor.text), at most this many per redactor. */
const MAX_REMEMBERED_TEXT = 256;
const MAX_REMEMBERED_TEXTS = 512;

/** Markers under the process key, remembered: the same bearer is redacted on every captured call. */
const processMarkers = new Map<string, string>();
const MAX_REMEMBERED_MARKERS = 1_024;

export function redactionMarker(secret: string, key: Uint8Array = PROCESS_KEY): string {
  if (key !== PROCESS_KEY) return hmacMarker(secret, key);
  let marker = processMarkers.get(secret);
  if (marker === undefined) {
    if (processMarkers.size >= MAX_REMEMBERED_MARKERS) processMarkers.clear();
    marker = hmacMarker(secret, key);
    processMarkers.set(secret, marker);
  }
  return marker;
}

function hmacMarker(secret: string, key: Uint8Array): string {
  return `<redacted:${createHmac('sha256', key).update(secret, 'utf8').digest('hex').slice(0, 8)}>`;
}

/**
 * The base64 characters that depend only on the secret's bytes, for each of the three byte
 * alignments the secret can have inside a longer base64 text (a Basic credential, a token
 * blob), in the standard and the URL-safe alphabets.
 */
function base64Fragments(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const padded = Buffer.concat([Buffer.alloc(k), bytes, Buffer.alloc(3)]);
    const std = padded.toString('base64');
    const first = Math.ceil((8 * k) / 6);
    const end = Math.floor((8 * (k + bytes.length)) / 6);
    const core = std.slice(first, end);
    if (core.length < MIN_BASE64_FRAGMENT) continue;
    out.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return out;
}

/** The spellings of a secret that may appear: raw, JSON-escaped, percent-encoded (both forms), base64 (std and url). */
export function secretSpellings(secret: string): string[] {
  const forms = new Set<string>([secret]);
  forms.add(JSON.stringify(secret).slice(1, -1));
  try {
    forms.add(encodeURIComponent(secret));
    forms.add(encodeURI(secret));
    forms.add(encodeURIComponent(secret).replaceAll('%20', '+'));
  } catch {
    // lone surrogates cannot be percent-encoded; the raw form is still covered
  }
  const b64 = Buffer.from(secret, 'utf8').toString('base64');
  forms.add(b64);
  forms.add(b64.replace(/=+$/, ''));
  forms.add(Buffer.from(secret, 'utf8').toString('base64url'));
  for (const f of base64Fragments(secret)) forms.add(f);
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

/** A set of secrets and the replacement pairs of all their spellings (longest first). */
export class Redactor {
  private readonly secrets = new Set<string>();
  private pairs: Array<[string, string]> = [];
  /** Redacted forms of short texts, cleared whenever a secret is added. */
  private readonly memo = new Map<string, string>();
  constructor(
    secrets: Iterable<string> = [],
    private readonly key: Uint8Array = PROCESS_KEY,
  ) {
    for (const s of secrets) this.add(s);
  }

  add(secret: unknown): void {
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    this.memo.clear();
    const marker = redactionMarker(secret, this.key);
    for (const form of secretSpellings(secret)) this.pairs.push([form, marker]);
    // Longest first, so a secret that contains another is replaced as a whole.
    this.pairs.sort((a, b) => b[0].length - a[0].length);
  }

  get size(): number {
    return this.secrets.size;
  }

  marker(secret: string): string {
    return redactionMarker(secret, this.key);
  }

  text(text: string): string {
    // Short texts (header values, URLs) repeat from call to call: their redaction is remembered.
    const short = text.length <= MAX_REMEMBERED_TEXT;
    if (short) {
      const known = this.memo.get(text);
      if (known !== undefined) return known;
    }
    let out = text;
    for (const [form, marker] of this.pairs) {
      if (out.includes(form)) out = out.split(form).join(marker);
    }
    if (short) {
      if (this.memo.size >= MAX_REMEMBERED_TEXTS) this.memo.clear();
      this.memo.set(text, out);
    }
    return out;
  }

  /**
   * `text`, and a secret cut short where text was cut with an ellipsis (a prefix of at least 8
   * characters right before `…`, as every cutter of the harness marks its cuts) is redacted too.
   */
  cutText(text: string): string {
    const out = this.text(text);
    let at = out.indexOf('…');
    if (at < 0) return out;
    // At each ellipsis, the longest prefix of a secret that ends right before it (found from the
    // ellipsis backwards, so the cost is per cut, not per character of the text).
    let result = '';
    let from = 0;
    while (at >= 0) {
      let cut = 0;
      let marker = '';
      for (const secret of this.secrets) {
        if (secret.length <= MIN_CUT_PIECE) continue;
        for (let k = Math.min(secret.length - 1, at - from); k >= MIN_CUT_PIECE && k > cut; k--) {
          if (out.charCodeAt(at - 1) === secret.charCodeAt(k - 1) && out.startsWith(secret.slice(0, k), at - k)) {
            cut = k;
            marker = this.marker(secret);
            break;
          }
        }
      }
      result += cut > 0 ? `${out.slice(from, at - cut)}${marker}…` : out.slice(from, at + 1);
      from = at + 1;
      at = out.indexOf('…', from);
    }
    return result + out.slice(from);
  }

  /** A copy of a JSON-like value with every string (`cutText`) and every object key redacted. */
  value<T>(value: T): T {
    if (this.pairs.length === 0) return value;
    return this.walk(value, 0) as T;
  }

  private walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.cutText(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth > 200) return '[not kept: nested too deep to redact]';
    if (Array.isArray(value)) return value.map((v) => this.walk(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[this.text(k)] = this.walk(v, depth + 1);
    return out;
  }
}

/** Replace every occurrence of every secret (any spelling) in `text` with its marker. */
export function redact(text: string, secrets: Iterable<string>): string {
  return new Redactor(secrets).text(text);
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
