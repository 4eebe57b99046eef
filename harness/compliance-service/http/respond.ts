/** HTTP plumbing of the registry API: its error type, JSON replies (`{error}` on failure, digest 6.3), bounded JSON bodies, query integers. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 64 * 1024;

/** A reply other than 200: its status, message and any extra members (`code`, `retry_after`, …) of the `{error}` body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const COMMON = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'access-control-allow-origin': '*' } as const;

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...COMMON, ...headers });
  res.end(text);
}

/** A reply that is not JSON (an SVG, an HTML page, a stored report already serialized). */
export function sendRaw(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, ...COMMON, ...headers });
  res.end(body);
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!/^application\/json\s*(;|$)/.test(type)) throw new HttpError(415, 'the body must be application/json');
  // Not `for await`: leaving it early destroys the socket under the 413, and a client reusing the
  // connection then sees a reset. Stop reading instead and close the connection after the answer.
  const body = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      reject(new HttpError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`, { connection: 'close' }));
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not valid JSON');
  }
}

/** A JSON object body (400 otherwise). An empty body is `{}` when `emptyOk`. */
export async function readObject(req: IncomingMessage, emptyOk = false): Promise<Record<string, unknown>> {
  if (emptyOk && !req.headers['content-type'] && (req.headers['content-length'] === '0' || req.headers['content-length'] === undefined)) return {};
  const body = await readJson(req);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

export function intParam(q: URLSearchParams, name: string, dflt: number, max: number): number {
  const raw = q.get(name);
  if (raw === null) return dflt;
  if (!/^\d{1,9}$/.test(raw)) throw new HttpError(400, `${name} must be a non-negative integer`);
  return Math.min(Number(raw), max);
}
