/**
 * Errors of the transport layer. Bad configuration throws `TransportConfigError`; anything that
 * goes wrong on the wire is reported as a `TransportFailure` value inside the reply, never thrown.
 */
import type { TransportFailure, TransportFailureKind } from './types.js';

/** A URL or setting the transports cannot work with (thrown before anything is sent). */
export class TransportConfigError extends Error {
  override readonly name = 'TransportConfigError';
}

export function failure(kind: TransportFailureKind, message: string, extra: Omit<TransportFailure, 'kind' | 'message'> = {}): TransportFailure {
  return { kind, message, ...extra };
}

/** One-line description of an unknown thrown value. */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}
