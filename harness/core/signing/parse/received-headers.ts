/**
 * Header fields of a received request as the verifier reads them: by lower-case name, repeated
 * fields (in any case) combined. Servers (node:http) already deliver lower-case names; such a
 * record is used as it is, and only other records are copied.
 */
import type { ReceivedRequest } from '../verify/verifier-types.js';

export type HeaderValue = string | readonly string[];
/** Header fields by lower-case name. */
export type Headers = Readonly<Record<string, HeaderValue | undefined>>;

/** The received headers by lower-case name (the same record when it already is). */
export function lowerHeaders(h: ReceivedRequest['headers']): Headers {
  if (allLowerCase(h)) return h;
  const out: Record<string, HeaderValue> = Object.create(null);
  for (const name in h) {
    const v = h[name];
    if (v === undefined) continue;
    const key = name.toLowerCase();
    const prev = out[key];
    if (prev === undefined) out[key] = v;
    else out[key] = [...(Array.isArray(prev) ? prev : [prev as string]), ...(Array.isArray(v) ? v : [v as string])];
  }
  return out;
}

/**
 * The names of the last all-lower-case header set seen. Property names are unique strings, so
 * a request with the same names in the same order (one sender, one client library) is
 * recognised by identity comparisons alone.
 */
let lowerNames: string[] = [];

function allLowerCase(h: ReceivedRequest['headers']): boolean {
  let i = 0;
  let known = true;
  for (const name in h) {
    if (known && lowerNames[i] === name) {
      i++;
      continue;
    }
    known = false;
    if (name.toLowerCase() !== name) return false;
    i++;
  }
  if (known && i === lowerNames.length) return true;
  lowerNames = Object.keys(h);
  return true;
}

/** A header's value; anything that is not a string or an array of strings is absent. */
export function header(headers: Headers, name: string): HeaderValue | undefined {
  return headerValue(headers[name]);
}

/** `header` for a value already read (callers read fixed names as plain property loads). */
export function headerValue(v: unknown): HeaderValue | undefined {
  return typeof v === 'string' || Array.isArray(v) ? (v as HeaderValue) : undefined;
}

/** Structured (dictionary) fields may arrive on several lines: combine them with ", ". */
export function combined(v: HeaderValue): string {
  return typeof v === 'string' ? v : v.join(', ');
}
