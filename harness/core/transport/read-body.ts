/**
 * Reading a response body with a byte cap and an optional sink that may stop reading early, on
 * stream events rather than an async iterator (no promise per chunk: a call's body is read in
 * one pass of the event loop when it is already there).
 */
import { finished, type Readable } from 'node:stream';

export type BodyRead =
  /** The server ended the body. */
  | { end: 'complete'; chunks: Buffer[]; size: number }
  /** The sink had what it needed; the stream is paused with its listeners removed, the rest unread. */
  | { end: 'stopped'; chunks: Buffer[]; size: number }
  /** More than `cap` bytes: `chunks` hold the first `cap`; the caller drops the stream. */
  | { end: 'too_large'; chunks: Buffer[]; size: number }
  /** The stream failed or closed before its end (abort, reset, timeout). */
  | { end: 'error'; error: unknown; chunks: Buffer[]; size: number };

export function readBody(body: Readable, cap: number, sink?: (chunk: Buffer) => boolean): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let stopWatching: (() => void) | undefined;
    const settle = (outcome: { end: 'complete' | 'stopped' | 'too_large' } | { end: 'error'; error: unknown }): void => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      stopWatching?.();
      resolve({ ...outcome, chunks, size });
    };
    const onData = (raw: Buffer | Uint8Array): void => {
      if (settled) return;
      const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
      if (size + chunk.length > cap) {
        chunks.push(chunk.subarray(0, cap - size));
        size = cap;
        settle({ end: 'too_large' });
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
      if (sink?.(chunk)) {
        body.pause();
        settle({ end: 'stopped' });
      }
    };
    // finished() reports the end, an error, and a close that came before the end (premature close).
    stopWatching = finished(body, { readable: true, writable: false }, (err) => settle(err ? { end: 'error', error: err } : { end: 'complete' }));
    if (!settled) body.on('data', onData);
  });
}
