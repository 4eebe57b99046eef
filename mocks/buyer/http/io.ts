/** Small HTTP helpers of the mock buyer: capped body reads and JSON answers. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type BodyResult = { ok: true; bytes: Buffer } | { ok: false; reason: 'too_large' | 'aborted' };

/**
 * Read the raw body bytes (before any parsing) under a byte cap. A declared Content-Length
 * above the cap is refused without reading; a stream that passes the cap stops being read (the
 * request is paused, and the answer closes the connection).
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.pause();
    return Promise.resolve({ ok: false, reason: 'too_large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (r: BodyResult) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      resolve(r);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        finish({ ok: false, reason: 'too_large' });
      } else chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, bytes: Buffer.concat(chunks) });
    const onError = () => finish({ ok: false, reason: 'aborted' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
  });
}

export interface SendOptions {
  headers?: Record<string, string>;
  /** Close the connection after the answer (the request body was not, or not fully, read). */
  close?: boolean;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, opts: SendOptions = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(opts.headers ?? {}) };
  if (opts.close) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(text, () => {
    // Stop reading whatever the client still sends: the socket goes away with the answer.
    if (opts.close) res.socket?.destroySoon?.();
  });
}

export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && /^application\/json\s*(;.*)?$/i.test(value.trim());
}
