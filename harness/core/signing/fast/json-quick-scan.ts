/**
 * Step 14 fast path (`scanDuplicateKeysFast`, a drop-in for duplicate-keys.ts
 * `scanDuplicateKeys` on raw bodies): one pass over the raw body bytes that answers
 * "valid JSON, valid UTF-8, no duplicate object key" for ordinary bodies, without decoding the
 * body and without allocating. Keys are compared byte for byte, which for valid UTF-8 without
 * escapes is the same as comparing the decoded names.
 *
 * It only ever says "fine" or "not sure": a duplicate, an escape inside a key, an object with
 * more than MAX_QUICK_KEYS keys, deep nesting or any syntax error answers false, and the
 * reference scanner decides (and reports the duplicate names or the error).
 */
import { isUtf8 } from 'node:buffer';
import { type DuplicateKeyScan, scanDuplicateKeys } from '../parse/duplicate-keys.js';

/** Keys per object compared pairwise; larger objects go to the reference scanner's Set. */
export const MAX_QUICK_KEYS = 32;
const MAX_QUICK_DEPTH = 64;

const IN_OBJECT = 1;
const IN_ARRAY = 2;
const EXPECT_VALUE = 0;
const AFTER_VALUE = 1;
const EXPECT_KEY = 2;

// Scratch state reused across calls (the scan is synchronous, so calls never interleave).
const containerType = new Uint8Array(MAX_QUICK_DEPTH);
const containerKeyBase = new Int32Array(MAX_QUICK_DEPTH);
let keyStart = new Int32Array(256);
let keyLength = new Int32Array(256);

function growKeys(): void {
  const start = new Int32Array(keyStart.length * 2);
  const length = new Int32Array(keyStart.length * 2);
  start.set(keyStart);
  length.set(keyLength);
  keyStart = start;
  keyLength = length;
}

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

const OK: DuplicateKeyScan = Object.freeze({ kind: 'ok' }) as DuplicateKeyScan;

/** `scanDuplicateKeys` of raw bytes: settled here when certainly fine, else by the reference scanner. */
export function scanDuplicateKeysFast(body: Uint8Array): DuplicateKeyScan {
  return quickJsonNoDuplicates(body) ? OK : scanDuplicateKeys(body);
}

/** True only when `b` is certainly valid UTF-8 JSON without duplicate keys. */
export function quickJsonNoDuplicates(b: Uint8Array): boolean {
  const n = b.length;
  let i = 0;
  let depth = 0;
  let keys = 0;
  let nonAscii = false;
  let state = EXPECT_VALUE;
  for (;;) {
    while (i < n && isWs(b[i]!)) i++;
    if (state === AFTER_VALUE) {
      if (depth === 0) return i === n && (!nonAscii || isUtf8(b));
      if (i >= n) return false;
      const c = b[i]!;
      const type = containerType[depth - 1]!;
      if (c === 0x2c) {
        i++;
        state = type === IN_OBJECT ? EXPECT_KEY : EXPECT_VALUE;
      } else if (c === (type === IN_OBJECT ? 0x7d : 0x5d)) {
        i++;
        depth--;
        keys = containerKeyBase[depth]!;
      } else return false;
      continue;
    }
    if (i >= n) return false;
    const c = b[i]!;
    if (state === EXPECT_KEY) {
      if (c !== 0x22) return false;
      const start = i + 1;
      let j = start;
      for (;;) {
        if (j >= n) return false;
        const d = b[j]!;
        if (d === 0x22) break;
        if (d === 0x5c || d < 0x20) return false;
        if (d >= 0x80) nonAscii = true;
        j++;
      }
      const length = j - start;
      const base = containerKeyBase[depth - 1]!;
      if (keys - base >= MAX_QUICK_KEYS) return false;
      for (let k = base; k < keys; k++) {
        if (keyLength[k] !== length) continue;
        const other = keyStart[k]!;
        let m = 0;
        while (m < length && b[other + m] === b[start + m]) m++;
        if (m === length) return false;
      }
      if (keys === keyStart.length) growKeys();
      keyStart[keys] = start;
      keyLength[keys] = length;
      keys++;
      i = j + 1;
      while (i < n && isWs(b[i]!)) i++;
      if (b[i] !== 0x3a) return false;
      i++;
      state = EXPECT_VALUE;
      continue;
    }
    // EXPECT_VALUE
    if (c === 0x7b || c === 0x5b) {
      if (depth === MAX_QUICK_DEPTH) return false;
      const object = c === 0x7b;
      containerType[depth] = object ? IN_OBJECT : IN_ARRAY;
      containerKeyBase[depth] = keys;
      depth++;
      i++;
      while (i < n && isWs(b[i]!)) i++;
      if (b[i] === (object ? 0x7d : 0x5d)) {
        i++;
        depth--;
        state = AFTER_VALUE;
      } else state = object ? EXPECT_KEY : EXPECT_VALUE;
      continue;
    }
    state = AFTER_VALUE;
    if (c === 0x22) {
      i++;
      for (;;) {
        if (i >= n) return false;
        const d = b[i]!;
        if (d === 0x22) break;
        if (d < 0x20) return false;
        if (d >= 0x80) nonAscii = true;
        if (d === 0x5c) {
          const e = b[i + 1];
          if (e === 0x75) {
            if (!(isHex(b[i + 2]!) && isHex(b[i + 3]!) && isHex(b[i + 4]!) && isHex(b[i + 5]!))) return false;
            i += 6;
            continue;
          }
          // " \ / b f n r t
          if (e !== 0x22 && e !== 0x5c && e !== 0x2f && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74) return false;
          i += 2;
          continue;
        }
        i++;
      }
      i++;
    } else if (c === 0x74) {
      if (b[i + 1] !== 0x72 || b[i + 2] !== 0x75 || b[i + 3] !== 0x65) return false;
      i += 4;
    } else if (c === 0x66) {
      if (b[i + 1] !== 0x61 || b[i + 2] !== 0x6c || b[i + 3] !== 0x73 || b[i + 4] !== 0x65) return false;
      i += 5;
    } else if (c === 0x6e) {
      if (b[i + 1] !== 0x75 || b[i + 2] !== 0x6c || b[i + 3] !== 0x6c) return false;
      i += 4;
    } else {
      // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
      if (c === 0x2d) i++;
      if (b[i] === 0x30) i++;
      else if (i < n && isDigit(b[i]!)) while (i < n && isDigit(b[i]!)) i++;
      else return false;
      if (b[i] === 0x2e) {
        i++;
        if (!(i < n && isDigit(b[i]!))) return false;
        while (i < n && isDigit(b[i]!)) i++;
      }
      if (b[i] === 0x65 || b[i] === 0x45) {
        i++;
        if (b[i] === 0x2b || b[i] === 0x2d) i++;
        if (!(i < n && isDigit(b[i]!))) return false;
        while (i < n && isDigit(b[i]!)) i++;
      }
    }
  }
}
