/** Bearer authentication of agent calls (interface spec 5) and the principal derived from it. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const ANONYMOUS = 'anonymous';

export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const value = headers.authorization;
  if (typeof value !== 'string') return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value);
  return match ? match[1] : undefined;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** `missing`, `wrong` or `ok`, compared in constant time. */
export function checkBearer(headers: IncomingHttpHeaders, expected: string): 'missing' | 'wrong' | 'ok' {
  const presented = bearerToken(headers);
  if (presented === undefined) return 'missing';
  return timingSafeEqual(digest(presented), digest(expected)) ? 'ok' : 'wrong';
}

/** The principal a request acts for: the (hashed) bearer token, or `anonymous`. */
export function principalOf(headers: IncomingHttpHeaders): string {
  const token = bearerToken(headers);
  return token === undefined ? ANONYMOUS : `bearer:${digest(token).toString('hex').slice(0, 16)}`;
}
