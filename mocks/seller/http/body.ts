/** Reads a request body with a byte cap: over the cap → 413 before anything is parsed. */
import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; bytes: Buffer } | { ok: false; reason: 'too_large' | 'aborted' };

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return { ok: false, reason: 'too_large' };
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > maxBytes) return { ok: false, reason: 'too_large' };
      chunks.push(buf);
    }
  } catch {
    return { ok: false, reason: 'aborted' };
  }
  return { ok: true, bytes: Buffer.concat(chunks) };
}
