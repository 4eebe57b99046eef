/**
 * JSON-RPC over HTTP POST, decoding either an `application/json` body or a `text/event-stream`
 * reply. Turns every way it can go wrong into a `TransportFailure`; never throws for wire problems.
 */
import { failure } from './errors.js';
import type { HttpClient, HttpRequestSpec, HttpResponse } from './http-client.js';
import { tooDeepMessage } from './bounded-json.js';
import { buildRequest, carriesJsonRpcError, jsonRpcErrorOf, pickResponse, tryParseJson, type JsonRpcResponse } from './jsonrpc.js';
import { createSsePicker, type SsePicker } from './sse.js';
import type { TransportFailure, WireExchange } from './types.js';

export interface RpcCall extends Omit<HttpRequestSpec, 'method' | 'body' | 'consumer'> {
  rpcMethod: string;
  params?: unknown;
  /** Omitted for notifications. */
  id?: number | string;
}

export interface RpcOutcome {
  /** The JSON-RPC response (also present when it carries an `error`). */
  response?: JsonRpcResponse;
  failure?: TransportFailure;
  /** Present when a complete HTTP response arrived. */
  http?: HttpResponse;
  httpStatus?: number;
  exchange: WireExchange;
  durationMs: number;
  notes: string[];
}

function mediaType(headers: Record<string, string>): string {
  return (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

function cut(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

export async function postJsonRpc(http: HttpClient, call: RpcCall): Promise<RpcOutcome> {
  const { rpcMethod, params, id, ...rest } = call;
  const notes: string[] = [];
  // Redact before cutting: a snippet must not end in half a secret.
  const snippet = (text: string, max = 200): string => cut(http.redactText(text), max);
  let picker: SsePicker | undefined;
  const result = await http.send({
    ...rest,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...call.headers },
    body: buildRequest(rpcMethod, params, id),
    consumer:
      id === undefined
        ? undefined
        : (status, headers) => {
            if (status < 200 || status >= 300 || mediaType(headers) !== 'text/event-stream') return undefined;
            picker = createSsePicker(id, undefined, (t) => http.redactText(t));
            return (chunk) => picker!.feed(chunk);
          },
  });
  const base = { exchange: result.exchange, durationMs: result.durationMs, notes };
  if (!result.ok) return { ...base, failure: result.failure, httpStatus: result.status };

  const status = result.status;
  const out = { ...base, http: result, httpStatus: status };
  if (status < 200 || status >= 300) {
    const extra: Omit<TransportFailure, 'kind' | 'message'> = { httpStatus: status };
    if (status === 401 && result.headers['www-authenticate'] !== undefined) {
      extra.wwwAuthenticate = result.headers['www-authenticate'];
    }
    const parsed = tryParseJson(result.text);
    let detail = parsed.ok || !parsed.tooDeep ? (result.text ? `: ${snippet(result.text)}` : '') : `: ${tooDeepMessage('the error body')}`;
    // A JSON-RPC error answered with a non-2xx status; a plain JSON error body (a REST error such
    // as {"error": "not_found"}) is shown as it is, not as a JSON-RPC error with a made-up code.
    if (parsed.ok && carriesJsonRpcError(parsed.value)) {
      const err = jsonRpcErrorOf(parsed.value);
      if (err) {
        extra.jsonRpcError = err;
        detail = `: JSON-RPC error ${err.code}: ${err.message}`;
      }
    }
    return { ...out, failure: failure('http_status', `HTTP ${status}${detail}`, extra) };
  }
  if (id === undefined) return out; // notification: any 2xx is fine

  let response: JsonRpcResponse | undefined;
  const type = mediaType(result.headers);
  if (picker) {
    picker.end();
    response = picker.found();
    notes.push(...picker.notes());
    if (!response) {
      if (picker.tooDeep()) return { ...out, failure: failure('protocol', tooDeepMessage('an SSE event of the reply')) };
      return {
        ...out,
        failure: failure('protocol', `SSE stream ended after ${picker.events()} event(s) without a JSON-RPC response to id ${String(id)}`),
      };
    }
  } else {
    const looksJson = type === 'application/json' || type.endsWith('+json') || (type === '' && /^\s*[[{]/.test(result.text));
    if (looksJson) {
      if (type !== 'application/json') notes.push(`reply Content-Type is ${type ? JSON.stringify(type) : 'missing'}; parsed as JSON`);
      const parsed = tryParseJson(result.text);
      if (!parsed.ok) {
        const why = parsed.tooDeep ? tooDeepMessage(`HTTP ${status} body`) : `HTTP ${status} body is not valid JSON`;
        return { ...out, failure: failure('protocol', `${why}: ${snippet(result.text)}`) };
      }
      response = pickResponse(parsed.value, id);
    } else if (type === '' && /^(data|event|id):/m.test(result.text)) {
      notes.push('reply Content-Type is missing; parsed as SSE');
      const sniff = createSsePicker(id, undefined, (t) => http.redactText(t));
      sniff.feed(result.body);
      sniff.end();
      response = sniff.found();
      notes.push(...sniff.notes());
      if (!response && sniff.tooDeep()) return { ...out, failure: failure('protocol', tooDeepMessage('an SSE event of the reply')) };
    } else {
      return {
        ...out,
        failure: failure(
          'protocol',
          `HTTP ${status} reply has Content-Type ${JSON.stringify(result.headers['content-type'] ?? '')}, expected application/json or text/event-stream${result.text ? `: ${snippet(result.text)}` : ' (empty body)'}`,
        ),
      };
    }
    if (!response) {
      return { ...out, failure: failure('protocol', `HTTP ${status} reply holds no JSON-RPC response to id ${String(id)}: ${snippet(result.text)}`) };
    }
  }
  if (response.jsonrpc !== '2.0') notes.push(`JSON-RPC response has jsonrpc=${JSON.stringify(response.jsonrpc)}, expected "2.0"`);
  const err = jsonRpcErrorOf(response);
  if (err) {
    return { ...out, response, failure: failure('protocol', `JSON-RPC error ${err.code}: ${err.message}`, { jsonRpcError: err }) };
  }
  return { ...out, response };
}
