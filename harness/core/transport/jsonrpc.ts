/** JSON-RPC 2.0 message shapes and pure helpers shared by the MCP and A2A transports. */
import { parseBoundedJson, type BoundedJson } from './bounded-json.js';

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcResponse {
  jsonrpc?: unknown;
  id: unknown;
  result?: unknown;
  error?: unknown;
}

export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Parse agent JSON without throwing; `ok: false` when the text is not JSON or nests too deep (`tooDeep`). */
export function tryParseJson(text: string): BoundedJson {
  return parseBoundedJson(text);
}

export function isResponseFor(msg: unknown, id: number | string): msg is JsonRpcResponse {
  return isObject(msg) && msg.id === id && ('result' in msg || 'error' in msg);
}

/** Find the response to request `id` in a parsed JSON body (single message or batch). */
export function pickResponse(parsed: unknown, id: number | string): JsonRpcResponse | undefined {
  if (Array.isArray(parsed)) return parsed.find((m) => isResponseFor(m, id));
  return isResponseFor(parsed, id) ? parsed : undefined;
}

/** A body carrying a JSON-RPC error (`jsonrpc: "2.0"`, or an error object with a numeric code), not a REST error such as {"error": "not_found"}. */
export function carriesJsonRpcError(body: unknown): body is JsonRpcResponse {
  if (!isObject(body) || !('error' in body)) return false;
  return body.jsonrpc === '2.0' || (isObject(body.error) && typeof body.error.code === 'number');
}

/** Normalise the `error` member of a response; malformed members are kept visible, not dropped. */
export function jsonRpcErrorOf(response: JsonRpcResponse): JsonRpcErrorObject | undefined {
  if (!('error' in response) || response.error === undefined) return undefined;
  const e = response.error;
  if (!isObject(e)) return { code: 0, message: `malformed JSON-RPC error member: ${boundedStringify(e)}` };
  const out: JsonRpcErrorObject = {
    code: typeof e.code === 'number' ? e.code : 0,
    message: typeof e.message === 'string' ? e.message : boundedStringify(e.message ?? null),
  };
  if ('data' in e) out.data = e.data;
  return out;
}

export function buildRequest(method: string, params: unknown, id?: number | string): string {
  const msg: Record<string, unknown> = { jsonrpc: '2.0' };
  if (id !== undefined) msg.id = id;
  msg.method = method;
  if (params !== undefined) msg.params = params;
  return JSON.stringify(msg);
}

/** JSON text of a value for a message, cut at 2,000 characters; never throws. */
function boundedStringify(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = '[unserialisable]';
  }
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}
