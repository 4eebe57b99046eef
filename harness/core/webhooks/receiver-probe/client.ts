/**
 * The run-scoped side of the webhook-receiver suite: the receiver under test (`run --receiver`),
 * the harness's sender identity (brand.json + JWKS on loopback, or one served elsewhere), and
 * an HTTP client with timeouts, a response cap, no redirects and wire capture for evidence.
 */
import { parseBoundedJson, tooDeepMessage } from '../../transport/bounded-json.js';
import type { CheckContext } from '../../engine/kinds/types.js';
import type { ReceiverTarget } from '../../engine/resources.js';
import { createRecorder, type Recorder } from '../../transport/capture.js';
import { HttpClient, type HttpResult } from '../../transport/http-client.js';
import type { AuthOverride } from '../../transport/types.js';
import { senderIdentityAt, startSenderIdentity, type SenderIdentity } from './sender.js';
import { startBootstrapSender, type BootstrapSender } from './bootstrap/server.js';

export const PROBE_CONNECT_TIMEOUT_MS = 5_000;
export const PROBE_TOTAL_TIMEOUT_MS = 15_000;
export const PROBE_MAX_RESPONSE_BYTES = 64 * 1024;

export interface ProbeEnv {
  target: ReceiverTarget;
  identity: SenderIdentity;
  http: HttpClient;
  recorder: Recorder;
}

/** The receiver under test, or undefined when the run has none. */
export function receiverTarget(ctx: CheckContext): ReceiverTarget | undefined {
  return ctx.run.receiver ?? (ctx.run.receiverUrl ? { url: ctx.run.receiverUrl } : undefined);
}

export const NO_RECEIVER = 'no buyer webhook receiver under test: give one with --receiver URL';

/** Open (once per run) the sender identity and the HTTP client. */
export async function probeEnv(ctx: CheckContext): Promise<ProbeEnv> {
  const target = receiverTarget(ctx);
  if (!target) throw new Error(NO_RECEIVER);
  return ctx.resources.get('webhook-receiver:probe', async () => {
    const identity = target.senderBrandUrl
      ? senderIdentityAt(target.senderBrandUrl, ctx.ids.token)
      : await startSenderIdentity({ token: ctx.ids.token, port: target.senderPort });
    const secrets = [target.hmac?.secret, target.bearer?.secret].filter((s): s is string => s !== undefined);
    for (const s of secrets) ctx.run.redactor?.add(s);
    const recorder = createRecorder({ token: ctx.ids.token, secrets, ...(ctx.run.redactor ? { redactor: ctx.run.redactor } : {}) });
    const http = new HttpClient({
      connectTimeoutMs: PROBE_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: PROBE_TOTAL_TIMEOUT_MS,
      maxResponseBytes: PROBE_MAX_RESPONSE_BYTES,
      capture: recorder,
      addressPolicy: ctx.run.addressPolicy,
    });
    return {
      value: { target, identity, http, recorder },
      async close() {
        await http.close();
        await identity.close();
      },
    };
  });
}

/** The bootstrap sender agents (once per run), or undefined when the run gave no --receiver-bootstrap. */
export async function bootstrapSender(ctx: CheckContext): Promise<BootstrapSender | undefined> {
  const b = receiverTarget(ctx)?.bootstrap;
  if (!b) return undefined;
  return ctx.resources.get('webhook-receiver:bootstrap', async () => {
    const sender = await startBootstrapSender({ ids: ctx.ids, port: b.port, ...(b.caDir !== undefined ? { caDir: b.caDir } : {}) });
    return { value: sender, close: () => sender.close() };
  });
}

export interface PostResult {
  result: HttpResult;
  status?: number;
  /** The `WWW-Authenticate` header, verbatim. */
  wwwAuthenticate?: string;
  body?: string;
}

/** POST exact bytes with exact headers; records the exchange as evidence of the check. */
export async function postWebhook(
  ctx: CheckContext,
  env: ProbeEnv,
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
  purpose: string,
  opts: { record?: boolean; signal?: AbortSignal; auth?: AuthOverride } = {},
): Promise<PostResult> {
  const result = await env.http.send({
    method: 'POST',
    url,
    headers,
    body,
    transport: 'http',
    purpose,
    signal: opts.signal ?? ctx.signal,
    auth: opts.auth ?? { mode: 'none' },
  });
  if (opts.record !== false) ctx.exchanges.push(result.exchange);
  if (!result.ok) return { result, status: result.status, wwwAuthenticate: result.headers?.['www-authenticate'] };
  return { result, status: result.status, wwwAuthenticate: result.headers['www-authenticate'], body: result.text };
}

export interface StateReadBack {
  pending?: number;
  task: { status?: string; timestamp?: string } | null;
  events: Array<{ idempotency_key?: string; status?: string }>;
}

export type ReadBackOutcome = { ok: true; state: StateReadBack } | { ok: false; message: string };

/** `GET <stateUrl>?task_id=<id>` under the read-back convention (suites/webhook-receiver/README.md). */
export async function readTaskState(ctx: CheckContext, env: ProbeEnv, taskId: string, opts: { record?: boolean } = {}): Promise<ReadBackOutcome> {
  const stateUrl = env.target.stateUrl!;
  const url = new URL(stateUrl);
  url.searchParams.set('task_id', taskId);
  const r = await env.http.send({
    method: 'GET',
    url: url.href,
    headers: { accept: 'application/json' },
    transport: 'http',
    purpose: 'receiver state read-back',
    signal: ctx.signal,
    auth: { mode: 'none' },
  });
  if (opts.record !== false) ctx.exchanges.push(r.exchange);
  if (!r.ok) return { ok: false, message: `the state hook could not be read: ${r.failure.message}` };
  if (r.status !== 200) return { ok: false, message: `the state hook answered HTTP ${r.status}` };
  const parsedDoc = parseBoundedJson(r.text);
  if (!parsedDoc.ok) return { ok: false, message: parsedDoc.tooDeep ? tooDeepMessage('the state hook reply') : 'the state hook did not answer JSON' };
  const doc = parsedDoc.value;
  const d = doc as Record<string, unknown>;
  if (typeof d !== 'object' || d === null || !Array.isArray(d.events) || !('task' in d)) {
    return { ok: false, message: 'the state hook does not follow the read-back convention ({task, events[], pending?})' };
  }
  return {
    ok: true,
    state: {
      pending: typeof d.pending === 'number' ? d.pending : undefined,
      task: (d.task ?? null) as StateReadBack['task'],
      events: d.events as StateReadBack['events'],
    },
  };
}
