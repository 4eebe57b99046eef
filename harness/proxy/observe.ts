/**
 * What a proxied exchange says at the protocol level: an MCP `tools/call` or an A2A
 * `message/send` of a task, with its arguments and the agent's reply decoded by the very
 * decoders the transports use (so the audit reads a reply exactly as `run` would).
 */
import { createSsePicker } from '../core/transport/sse.js';
import { isObject, pickResponse, tryParseJson, jsonRpcErrorOf, type JsonRpcResponse } from '../core/transport/jsonrpc.js';
import { decodeToolResult } from '../core/transport/mcp-payload.js';
import { decodeA2aResult } from '../core/transport/a2a-payload.js';
import { failure } from '../core/transport/errors.js';
import { failureReply, makeReply, type ReplyContext } from '../core/transport/reply.js';
import type { TaskReply, TransportKind, WireExchange } from '../core/transport/types.js';
import type { ProxiedExchange } from './reverse.js';

export interface ObservedCall {
  seq: number;
  transport: TransportKind;
  task: string;
  args: Record<string, unknown>;
  /** An A2A `tasks/get` of a task a message/send started: `task` and `args` are that call's. */
  poll?: true;
  /** An A2A-native push registration (message/send `configuration.pushNotificationConfig`). */
  a2aPush?: Record<string, unknown>;
  reply: TaskReply;
  /** When the request reached the proxy and when its answer ended (ms since the proxy started). */
  tStart: number;
  tEnd: number;
  exchange: WireExchange;
}

/** The exchange in the report's wire form. */
export function wireExchange(x: ProxiedExchange, transport: TransportKind | 'http'): WireExchange {
  return {
    seq: x.seq,
    transport,
    purpose: 'observed through the proxy',
    started_at: x.started_at,
    duration_ms: Math.round(x.t_end - x.t_start),
    request: {
      method: x.request.method,
      url: x.request.path,
      headers: x.request.headers,
      body: x.request.body,
      ...(x.request.body_truncated ? { body_truncated: true } : {}),
    },
    ...(x.response
      ? {
          response: {
            status: x.response.status,
            headers: x.response.headers,
            body: x.response.body,
            ...(x.response.body_truncated ? { body_truncated: true } : {}),
          },
        }
      : {}),
    ...(x.error ? { error: x.error } : {}),
  };
}

/** The JSON-RPC response to `id` in a reply body (JSON or SSE). */
function rpcResponse(x: ProxiedExchange, id: number | string): JsonRpcResponse | undefined {
  const res = x.response;
  if (!res) return undefined;
  if ((res.headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream')) {
    const picker = createSsePicker(id);
    picker.feed(Buffer.from(res.body, 'utf8'));
    picker.end();
    return picker.found();
  }
  const parsed = tryParseJson(res.body);
  return parsed.ok ? pickResponse(parsed.value, id) : undefined;
}

/** A2A tasks started by message/send (task id → task and arguments), so a later tasks/get can be read as that task's answer. */
export class A2aTaskMemory {
  private readonly tasks = new Map<string, { task: string; args: Record<string, unknown> }>();
  note(c: ObservedCall): void {
    if (c.transport !== 'a2a' || c.poll || !c.reply.taskId || c.reply.failure) return;
    if (this.tasks.size >= 10_000) this.tasks.delete(this.tasks.keys().next().value as string);
    this.tasks.set(c.reply.taskId, { task: c.task, args: c.args });
  }
  get(id: unknown): { task: string; args: Record<string, unknown> } | undefined {
    return typeof id === 'string' ? this.tasks.get(id) : undefined;
  }
}

/** What a request says at the protocol level: the task it calls (or polls) and its arguments. */
export interface ObservedRequest {
  transport: TransportKind;
  task: string;
  args: Record<string, unknown>;
  /** The JSON-RPC id the answer carries. */
  rpcId: number | string;
  /** The JSON-RPC method (tools/call, message/send, tasks/get). */
  method: string;
  poll?: true;
  a2aPush?: Record<string, unknown>;
}

/** The task call (or A2A poll of one) a request carries, or undefined (session set-up, listings, cards, notifications). */
export function observeRequest(x: ProxiedExchange, a2aTasks?: A2aTaskMemory): ObservedRequest | undefined {
  if (x.request.method !== 'POST' || x.request.body_truncated) return undefined;
  const parsed = tryParseJson(x.request.body);
  if (!parsed.ok || !isObject(parsed.value)) return undefined;
  const msg = parsed.value;
  const id = msg.id;
  if (typeof id !== 'number' && typeof id !== 'string') return undefined;
  const params = isObject(msg.params) ? msg.params : {};
  const method = String(msg.method);
  const polled = msg.method === 'tasks/get' ? a2aTasks?.get(params.id) : undefined;
  if (polled) return { transport: 'a2a', task: polled.task, args: polled.args, rpcId: id, method, poll: true };
  if (msg.method === 'tools/call' && typeof params.name === 'string')
    return { transport: 'mcp', task: params.name, args: isObject(params.arguments) ? params.arguments : {}, rpcId: id, method };
  if (msg.method !== 'message/send' || !isObject(params.message) || !Array.isArray(params.message.parts)) return undefined;
  const data = params.message.parts.find((p) => isObject(p) && isObject(p.data) && typeof p.data.skill === 'string') as
    | { data: { skill: string; parameters?: unknown } }
    | undefined;
  if (!data) return undefined;
  const configuration = isObject(params.configuration) ? params.configuration : undefined;
  const a2aPush = isObject(configuration?.pushNotificationConfig) ? configuration.pushNotificationConfig : undefined;
  return {
    transport: 'a2a',
    task: data.data.skill,
    args: isObject(data.data.parameters) ? data.data.parameters : {},
    rpcId: id,
    method,
    ...(a2aPush ? { a2aPush } : {}),
  };
}

/**
 * The task call an exchange carries with the agent's answer decoded, or undefined (not a task
 * call, or an answer the proxy injected: the agent never saw that request).
 * `exchange` is the exchange as the report keeps it (secrets redacted); the bodies are read from `x`.
 */
export function observeCall(
  x: ProxiedExchange,
  exchange: WireExchange,
  errorMember: string,
  a2aTasks?: A2aTaskMemory,
  request = observeRequest(x, a2aTasks),
): ObservedCall | undefined {
  if (!request || x.injected_answer) return undefined;
  const { transport, task, args, rpcId: id, poll, a2aPush } = request;
  exchange.transport = transport;
  const ctx: ReplyContext = { transport, task, t0: performance.now() - (x.t_end - x.t_start), exchanges: [exchange], notes: [] };
  if (x.response) ctx.httpStatus = x.response.status;
  const base = {
    seq: x.seq,
    transport,
    task,
    args,
    ...(a2aPush ? { a2aPush } : {}),
    ...(poll ? { poll: true as const } : {}),
    tStart: x.t_start,
    tEnd: x.t_end,
    exchange,
  };
  if (x.error || !x.response) return { ...base, reply: failureReply(ctx, failure('network', x.error ?? 'no answer'), errorMember) };
  if (x.response.status < 200 || x.response.status >= 300)
    return { ...base, reply: failureReply(ctx, failure('http_status', `HTTP ${x.response.status}`, { httpStatus: x.response.status }), errorMember) };
  const response = rpcResponse(x, id);
  if (!response) return { ...base, reply: failureReply(ctx, failure('protocol', `no JSON-RPC response to id ${String(id)}`), errorMember) };
  const rpcError = jsonRpcErrorOf(response);
  if (rpcError)
    return {
      ...base,
      reply: failureReply(ctx, failure('protocol', `JSON-RPC error ${rpcError.code}: ${rpcError.message}`, { jsonRpcError: rpcError }), errorMember),
    };
  if (transport === 'mcp') {
    const decoded = decodeToolResult(response.result, errorMember);
    ctx.notes.push(...decoded.notes);
    return { ...base, reply: makeReply(ctx, decoded) };
  }
  const decoded = decodeA2aResult(response.result, errorMember);
  if (!decoded) return { ...base, reply: failureReply(ctx, failure('protocol', `${request.method} result is neither a Task nor a Message`), errorMember) };
  ctx.notes.push(...decoded.notes);
  return { ...base, reply: makeReply(ctx, decoded) };
}
