/**
 * The harness's webhook capture receiver (run-scoped): one loopback HTTP server, many captures.
 * A check creates a capture, gives its URL to the seller, and later waits for and grades what
 * arrived. Each capture answers from a script (e.g. 503 for the first N deliveries, or one 401)
 * and 200 after it; it records the exact raw bytes and headers of every delivery before
 * anything parses them. Bodies above 1 MB are answered 413 and recorded without their bytes.
 *
 * The capture URL is `<base>/wh/<capture id>/<route token>`: the seller must treat it as opaque
 * (interface spec 4.5) and must never derive `operation_id` from it (spec 6.1 rule 1).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ProtocolIds } from '../../token.js';
import { createRecorder, type Recorder } from '../../transport/capture.js';
import type { Redactor } from '../../transport/redact.js';
import { MAX_WEBHOOK_BODY_BYTES, type EmissionSettings } from './config.js';
import type { AnswerSpec, CaptureSpec, Delivery } from './delivery.js';
import { baseUrlOf, listen } from '../../net/listen.js';
import { parseBoundedJson } from '../../transport/bounded-json.js';

export type { AnswerSpec, CaptureMode, CaptureSpec, Delivery } from './delivery.js';

const MAX_CAPTURES = 20_000;
const MAX_DELIVERIES_PER_CAPTURE = 500;
const OK_ANSWER: AnswerSpec = { status: 200 };

export class Capture {
  readonly deliveries: Delivery[] = [];
  private waiters = new Set<() => void>();
  /** Serializes verification of this capture's deliveries (arrival order). */
  verifying: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    readonly url: string,
    readonly spec: CaptureSpec,
  ) {}

  nextAnswer(): AnswerSpec {
    return this.spec.answers[this.deliveries.length] ?? OK_ANSWER;
  }

  add(d: Delivery): void {
    if (this.deliveries.length >= MAX_DELIVERIES_PER_CAPTURE) return;
    this.deliveries.push(d);
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves true once `done()` holds, false after `timeoutMs` or when `signal` aborts. */
  async waitUntil(done: () => boolean, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    if (done()) return true;
    if (signal.aborted || timeoutMs <= 0) return false;
    return new Promise<boolean>((resolve) => {
      const finish = (value: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const check = () => {
        if (done()) finish(true);
      };
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(done()), timeoutMs);
      this.waiters.add(check);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

export class CaptureReceiver {
  private readonly captures = new Map<string, Capture>();
  private readonly recorder: Recorder;

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
    ids: ProtocolIds,
    redactor: Redactor | undefined,
  ) {
    this.recorder = createRecorder({ token: ids.token, ...(redactor ? { redactor } : {}) });
  }

  /** `redactor`: the run's, so the secrets the receiver learns are redacted from the whole result. */
  static async open(settings: EmissionSettings, ids: ProtocolIds, redactor?: Redactor): Promise<CaptureReceiver> {
    let receiver: CaptureReceiver | undefined;
    const server = createServer((req, res) => {
      if (!receiver) return void res.writeHead(503).end();
      receiver.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    });
    server.requestTimeout = 30_000;
    server.headersTimeout = 10_000;
    const addr = await listen(server, settings.listenPort, settings.listenHost);
    receiver = new CaptureReceiver(server, settings.publicBaseUrl ?? baseUrlOf(addr), ids, redactor);
    return receiver;
  }

  create(spec: CaptureSpec): Capture {
    if (this.captures.size >= MAX_CAPTURES) throw new Error(`the webhook receiver holds ${MAX_CAPTURES} captures already`);
    const id = randomBytes(8).toString('hex');
    // The route token is random on purpose: a seller that derives operation_id from the URL is caught.
    const url = `${this.baseUrl}/wh/${id}/${randomBytes(6).toString('hex')}`;
    const capture = new Capture(id, url, spec);
    this.captures.set(id, capture);
    if (spec.secret) this.recorder.addSecret(spec.secret);
    return capture;
  }

  get(id: string): Capture | undefined {
    return this.captures.get(id);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const m = /^\/wh\/([0-9a-f]{16})\/[^/]*$/.exec(path);
    const capture = m ? this.captures.get(m[1]!) : undefined;
    if (!capture) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown capture"}');
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const started = Date.now();
    const { raw, tooLarge } = await readCapped(req, MAX_WEBHOOK_BODY_BYTES);
    const answer = tooLarge ? { status: 413 } : capture.nextAnswer();
    const echo = capture.spec.answerChallenges && !tooLarge ? challengeOf(raw) : undefined;
    const okBody = echo !== undefined ? JSON.stringify({ challenge: echo }) : '{"status":"ok"}';
    const responseBody = answer.status < 300 ? okBody : `{"status":"error","code":${answer.status}}`;
    const responseHeaders: Record<string, string> = { 'content-type': 'application/json' };
    if (answer.www_authenticate) responseHeaders['www-authenticate'] = answer.www_authenticate;
    if (answer.location) responseHeaders.location = answer.location;
    if (tooLarge) {
      responseHeaders.connection = 'close';
      res.once('finish', () => req.destroy());
    }
    const url = `${this.baseUrl}${req.url ?? '/'}`;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const exchange = this.recorder.record({
      transport: 'http',
      purpose: `webhook received by the harness (capture ${capture.id}, delivery ${capture.deliveries.length + 1})`,
      started_at: new Date(started).toISOString(),
      duration_ms: Date.now() - started,
      request: { method: req.method ?? 'POST', url, headers, body: tooLarge ? '' : raw.toString('utf8'), ...(tooLarge ? { body_truncated: true } : {}) },
      response: { status: answer.status, headers: responseHeaders, body: responseBody },
    });
    capture.add({
      n: capture.deliveries.length + 1,
      receivedAt: started,
      method: req.method ?? 'POST',
      url,
      headers: { ...req.headers },
      raw,
      tooLarge,
      answered: answer,
      exchange,
    });
    res.writeHead(answer.status, responseHeaders).end(responseBody);
  }
}

/** The challenge value of an activation challenge body (3.1 core/webhook-challenge.json), if it is one. */
function challengeOf(raw: Buffer): string | undefined {
  const body = parseBoundedJson(raw.toString('utf8'));
  if (!body.ok || typeof body.value !== 'object' || body.value === null) return undefined;
  const b = body.value as { type?: unknown; challenge?: unknown };
  if (b.type !== 'webhook.challenge' || typeof b.challenge !== 'string') return undefined;
  return /^[A-Za-z0-9_.:-]{32,255}$/.test(b.challenge) ? b.challenge : undefined;
}

async function readCapped(req: IncomingMessage, max: number): Promise<{ raw: Buffer; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) {
      tooLarge = true;
      break; // stop reading; the connection is closed after the 413
    }
    chunks.push(chunk as Buffer);
  }
  return { raw: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge };
}
