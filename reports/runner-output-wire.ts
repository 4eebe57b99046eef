/**
 * The runner output contract's request and response records of one storyboard step, read from the
 * wire exchanges its check kept (secrets the run knew are already redacted there), with the
 * contract's own security rules on top: values at secret-bearing keys become "[redacted]" at any
 * depth, response headers pass an allowlist and request headers are not recorded at all.
 */
import type { WireExchange } from '../harness/core/transport/types.js';
import { createSsePicker } from '../harness/core/transport/sse.js';
import { isObject, pickResponse, tryParseJson } from '../harness/core/transport/jsonrpc.js';

/** The contract's `security.payload_redaction.pattern` (the minimum floor), case-insensitive. */
export const REDACTED_KEY =
  /^(authorization|credentials?|token|api[_-]?key|password|secret|client[_-]secret|refresh[_-]token|access[_-]token|bearer|session[_-]token|offering[_-]token|cookie|set[_-]cookie)$/i;
export const REDACTED = '[redacted]';

/** The contract's `security.response_headers.allowlist`. */
export const RESPONSE_HEADER_ALLOWLIST: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'www-authenticate',
  'location',
  'retry-after',
  'x-request-id',
  'x-correlation-id',
]);

export type RecordTransport = 'mcp' | 'a2a' | 'http';

export interface RequestRecord {
  transport: RecordTransport;
  operation: string;
  payload: unknown;
  url?: string;
  /** The body was no JSON-RPC message (or was cut when stored): `payload` is its text. */
  payload_is_body_text?: true;
}

export interface ResponseRecord {
  transport: RecordTransport;
  payload: unknown;
  status?: number;
  headers?: Record<string, string>;
  duration_ms?: number;
  /** The body was no JSON-RPC message (or was cut when stored): `payload` is its text. */
  payload_is_body_text?: true;
}

/**
 * `value` with every value at a secret-bearing key replaced, at any depth, inside JSON carried as
 * text too (an MCP result's `content[].text` is the payload serialized).
 */
export function redactKeys(value: unknown): unknown {
  if (typeof value === 'string') return redactJsonText(value);
  if (Array.isArray(value)) return value.map(redactKeys);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = REDACTED_KEY.test(k) ? REDACTED : redactKeys(v);
  return out;
}

/** A string holding a JSON object or array: re-serialized with its secrets redacted, when it had any. */
function redactJsonText(text: string): string {
  if (!/^\s*[[{]/.test(text)) return text;
  const parsed = tryParseJson(text);
  if (!parsed.ok) return text;
  const redacted = redactKeys(parsed.value);
  const again = JSON.stringify(redacted);
  return again === JSON.stringify(parsed.value) ? text : again;
}

const transportOf = (x: WireExchange): RecordTransport => (x.transport === 'mcp' || x.transport === 'a2a' ? x.transport : 'http');

/** The exchanges of a task call: the last `tools/call <task>` or `message/send <task>`, and the last answered exchange from there on (an A2A poll). */
function callOf(exchanges: readonly WireExchange[], task: string): { sent: WireExchange; answered: WireExchange } | undefined {
  const at = exchanges.findLastIndex((x) => x.purpose === `tools/call ${task}` || x.purpose === `message/send ${task}`);
  if (at < 0) return undefined;
  const answered = exchanges.slice(at).findLast((x) => x.response !== undefined) ?? exchanges[at];
  return { sent: exchanges[at], answered };
}

/** The task arguments a JSON-RPC request carried: MCP `params.arguments`, A2A the data part's `parameters`. */
function argumentsOf(body: Record<string, unknown>, task: string): unknown {
  const params = isObject(body.params) ? body.params : {};
  if ('arguments' in params) return params.arguments;
  const parts = isObject(params.message) && Array.isArray(params.message.parts) ? params.message.parts : [];
  const data = parts.map((p) => (isObject(p) && isObject(p.data) ? p.data : undefined)).find((d) => d?.skill === task);
  return data?.parameters ?? params;
}

/** The JSON-RPC answer to the request in the body (JSON or an SSE stream): its result, or `{error}`. */
function answerOf(body: string, contentType: string | undefined, id: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof id !== 'string' && typeof id !== 'number') return { ok: false };
  let response: ReturnType<typeof pickResponse>;
  if (contentType?.includes('text/event-stream')) {
    const picker = createSsePicker(id);
    picker.feed(Buffer.from(body, 'utf8'));
    picker.end();
    response = picker.found();
  } else {
    const parsed = tryParseJson(body);
    response = parsed.ok ? pickResponse(parsed.value, id) : undefined;
  }
  if (!response) return { ok: false };
  return { ok: true, value: 'result' in response ? response.result : { error: response.error } };
}

/** The request and response records of the step's call of `task`; none when the check kept no such exchange. */
export function wireRecords(exchanges: readonly WireExchange[], task: string): { request?: RequestRecord; response?: ResponseRecord } {
  const call = callOf(exchanges, task);
  if (!call) return {};
  const { sent, answered } = call;
  const parsed = tryParseJson(sent.request.body);
  const body = parsed.ok && isObject(parsed.value) ? parsed.value : undefined;
  const request: RequestRecord = {
    transport: transportOf(sent),
    operation: task,
    ...(body ? { payload: redactKeys(argumentsOf(body, task)) } : { payload: sent.request.body, payload_is_body_text: true as const }),
    url: sent.request.url,
  };
  const res = answered.response;
  if (!res) return { request };
  const answer = answerOf(res.body, res.headers['content-type'], (tryParseJson(answered.request.body) as { value?: { id?: unknown } }).value?.id);
  const headers = Object.fromEntries(Object.entries(res.headers).filter(([name]) => RESPONSE_HEADER_ALLOWLIST.has(name.toLowerCase())));
  const response: ResponseRecord = {
    transport: transportOf(answered),
    ...(answer.ok ? { payload: redactKeys(answer.value) } : { payload: res.body, payload_is_body_text: true as const }),
    status: res.status,
    headers,
    duration_ms: answered.duration_ms,
  };
  return { request, response };
}
