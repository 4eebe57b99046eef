/** Assembling the neutral `TaskReply` (shared by MCP and A2A). */
import { isObject } from './jsonrpc.js';
import { findError, toTaskError } from './task-error.js';
import type { PayloadSource, TaskError, TaskReply, TaskStatus, TransportFailure, TransportKind, WireExchange } from './types.js';

const NOT_OK: ReadonlySet<TaskStatus> = new Set(['failed', 'rejected', 'canceled', 'unknown']);

export interface ReplyContext {
  transport: TransportKind;
  task: string;
  /** `performance.now()` when the call started. */
  t0: number;
  exchanges: WireExchange[];
  notes: string[];
  httpStatus?: number;
}

export interface ReplyFields {
  status: TaskStatus;
  payload?: unknown;
  payloadSource: PayloadSource;
  text?: string;
  isError: boolean;
  error?: TaskError;
  taskId?: string;
  contextId?: string;
  failure?: TransportFailure;
  errorEnvelope?: Record<string, unknown>;
}

export function makeReply(ctx: ReplyContext, f: ReplyFields): TaskReply {
  const reply: TaskReply = {
    transport: ctx.transport,
    task: ctx.task,
    ok: !f.failure && !f.isError && !NOT_OK.has(f.status),
    status: f.status,
    payloadSource: f.payloadSource,
    isError: f.isError,
    durationMs: Math.round(performance.now() - ctx.t0),
    exchanges: ctx.exchanges,
    notes: ctx.notes,
  };
  if (f.taskId !== undefined) reply.taskId = f.taskId;
  if (f.contextId !== undefined) reply.contextId = f.contextId;
  if (f.payload !== undefined) reply.payload = f.payload;
  if (f.text !== undefined) reply.text = f.text;
  if (f.error !== undefined) reply.error = f.error;
  if (f.failure !== undefined) reply.failure = f.failure;
  if (f.errorEnvelope !== undefined) reply.errorEnvelope = f.errorEnvelope;
  if (ctx.httpStatus !== undefined) reply.httpStatus = ctx.httpStatus;
  return reply;
}

/** A reply for a call that got no usable task result. JSON-RPC `error.data` may still hold an error object. */
export function failureReply(ctx: ReplyContext, failure: TransportFailure, errorMember: string): TaskReply {
  let error: TaskError | undefined;
  const data = failure.jsonRpcError?.data;
  if (isObject(data)) {
    const found = findError(data, errorMember);
    if (found) error = toTaskError(found, 'jsonrpc_error');
  }
  return makeReply(ctx, { status: 'unknown', payloadSource: 'none', isError: false, failure, ...(error ? { error } : {}) });
}

/** The reply of a column with no task to call (a receiver-only run, the registry face): a protocol failure saying why. */
export function noTaskReply(transport: TransportKind, task: string, why: string): TaskReply {
  return {
    transport,
    task,
    ok: false,
    status: 'unknown',
    payloadSource: 'none',
    isError: false,
    failure: { kind: 'protocol', message: why },
    durationMs: 0,
    exchanges: [],
    notes: [],
  };
}
