/**
 * Step 14a: find duplicate object keys in a raw JSON body (JSON.parse silently keeps the last).
 * A small single-pass scanner that validates the JSON grammar (RFC 8259) and keeps one key set
 * per open object. Keys are compared after unescaping, so `"a"` and `"\u0061"` collide.
 * Raw bytes are decoded as strict UTF-8 first (invalid UTF-8 is invalid JSON).
 */

export type DuplicateKeyScan = { kind: 'ok' } | { kind: 'duplicate'; keys: string[] } | { kind: 'invalid'; offset: number; message: string };

export const MAX_JSON_DEPTH = 512;

class JsonSyntax extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4 = /^[0-9A-Fa-f]{4}$/;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Scan a JSON text (string, or bytes decoded as strict UTF-8). */
export function scanDuplicateKeys(input: string | Uint8Array): DuplicateKeyScan {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = utf8.decode(input);
    } catch {
      return { kind: 'invalid', offset: 0, message: 'body is not valid UTF-8' };
    }
  }
  const scanner = new Scanner(text);
  try {
    scanner.value(0);
    scanner.ws();
    if (scanner.i !== text.length) scanner.fail('trailing characters after the JSON value');
  } catch (err) {
    if (err instanceof JsonSyntax) return { kind: 'invalid', offset: err.offset, message: err.message };
    throw err;
  }
  return scanner.dups.length > 0 ? { kind: 'duplicate', keys: scanner.dups } : { kind: 'ok' };
}

/** A class rather than closures: no per-call function objects on the hot path. */
class Scanner {
  i = 0;
  readonly dups: string[] = [];
  private readonly n: number;

  constructor(private readonly text: string) {
    this.n = text.length;
  }

  ws(): void {
    while (this.i < this.n) {
      const c = this.text.charCodeAt(this.i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.i++;
      else break;
    }
  }

  fail(msg: string): never {
    throw new JsonSyntax(this.i, msg);
  }

  str(): string {
    const text = this.text;
    this.i++; // opening quote
    let out = '';
    let run = this.i;
    while (true) {
      if (this.i >= this.n) this.fail('unterminated string');
      const c = text.charCodeAt(this.i);
      if (c === 0x22) {
        out += text.slice(run, this.i);
        this.i++;
        return out;
      }
      if (c < 0x20) this.fail('control character in string');
      if (c === 0x5c) {
        out += text.slice(run, this.i);
        const e = text[this.i + 1];
        if (e === 'u') {
          const hex = text.slice(this.i + 2, this.i + 6);
          if (!HEX4.test(hex)) this.fail('bad \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          this.i += 6;
        } else if (e !== undefined && e in ESCAPES) {
          out += ESCAPES[e];
          this.i += 2;
        } else this.fail('bad escape');
        run = this.i;
        continue;
      }
      this.i++;
    }
  }

  value(depth: number): void {
    if (depth > MAX_JSON_DEPTH) this.fail('nesting too deep');
    this.ws();
    const text = this.text;
    const c = text[this.i];
    if (c === '{') {
      this.i++;
      const keys = new Set<string>();
      this.ws();
      if (text[this.i] === '}') {
        this.i++;
        return;
      }
      while (true) {
        this.ws();
        if (text[this.i] !== '"') this.fail('expected a key');
        const key = this.str();
        if (keys.has(key)) this.dups.push(key);
        else keys.add(key);
        this.ws();
        if (text[this.i] !== ':') this.fail('expected ":"');
        this.i++;
        this.value(depth + 1);
        this.ws();
        if (text[this.i] === ',') {
          this.i++;
          continue;
        }
        if (text[this.i] === '}') {
          this.i++;
          return;
        }
        this.fail('expected "," or "}"');
      }
    } else if (c === '[') {
      this.i++;
      this.ws();
      if (text[this.i] === ']') {
        this.i++;
        return;
      }
      while (true) {
        this.value(depth + 1);
        this.ws();
        if (text[this.i] === ',') {
          this.i++;
          continue;
        }
        if (text[this.i] === ']') {
          this.i++;
          return;
        }
        this.fail('expected "," or "]"');
      }
    } else if (c === '"') {
      this.str();
    } else if (c === 't' || c === 'f' || c === 'n') {
      const lit = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      if (text.startsWith(lit, this.i)) this.i += lit.length;
      else this.fail('bad literal');
    } else {
      NUMBER.lastIndex = this.i;
      if (!NUMBER.test(text)) this.fail('unexpected character');
      this.i = NUMBER.lastIndex;
    }
  }
}
