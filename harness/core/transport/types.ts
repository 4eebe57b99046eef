/**
 * The one interface suites talk to. MCP and A2A both implement it and both return the same
 * neutral `TaskReply`; nothing above this file knows which wire protocol carried a call.
 */

import type { AddressPolicy } from '../net/address-policy.js';

/** The agent's transports: task calls over MCP or A2A. */
export type AgentTransportKind = 'mcp' | 'a2a';
/**
 * A column of the results: an agent transport, or `rest`, the registry face (the registry's REST
 * API and the discovery files third parties host), which has no task to call.
 */
export type TransportKind = AgentTransportKind | 'rest';
/** The agent transports, in result order. */
export const TRANSPORT_KINDS: readonly AgentTransportKind[] = ['mcp', 'a2a'];

/** Task statuses of interface spec 3.2, plus `unknown` for anything the agent invented. */
export type TaskStatus = 'submitted' | 'working' | 'input-required' | 'completed' | 'failed' | 'canceled' | 'rejected' | 'auth-required' | 'unknown';

export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'canceled', 'rejected'];

/** One HTTP request/response pair as it crossed the wire, secrets already redacted. */
export interface WireExchange {
  /** Sequence number within the run (all transports share one counter). */
  seq: number;
  transport: TransportKind | 'http';
  /** What the call was for: `initialize`, `tools/call get_products`, `message/send create_media_buy`, ... */
  purpose: string;
  started_at: string;
  duration_ms: number;
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body: string;
    body_truncated?: boolean;
  };
  response?: {
    status: number;
    headers: Record<string, string>;
    body: string;
    body_truncated?: boolean;
  };
  /** Set when no complete response arrived (network error, timeout, cap exceeded, redirect refused). */
  error?: string;
}

/** Why no usable reply arrived. */
export type TransportFailureKind =
  | 'network' // connection refused / reset / DNS: the agent could not be reached
  | 'timeout' // connect or total timeout
  | 'aborted' // the run's budget or the caller aborted
  | 'http_status' // a non-2xx HTTP answer (401 included; see httpStatus)
  | 'redirect' // a 3xx that was not followed
  | 'body_too_large' // the response exceeded the size cap
  | 'protocol' // a 2xx answer that is not valid JSON-RPC / SSE / A2A
  | 'refused'; // the harness refused to send: a reserved address under --deny-private, an agent card url on another origin

export interface TransportFailure {
  kind: TransportFailureKind;
  message: string;
  httpStatus?: number;
  /** The `WWW-Authenticate` header of a 401, verbatim. */
  wwwAuthenticate?: string;
  /** JSON-RPC error object when the server answered with one. */
  jsonRpcError?: { code: number; message: string; data?: unknown };
}

/** A task-level error (MCP `isError`, A2A failed task, `errors[]` payload, JSON-RPC error data). */
export interface TaskError {
  code: string;
  message: string;
  /** Where the error object was found. */
  source: 'is_error_text' | 'structured_content' | 'jsonrpc_error' | 'a2a_part' | 'payload_errors';
  /** The error object exactly as the agent sent it. */
  raw: unknown;
}

/** Where the task payload was read from. */
export type PayloadSource =
  | 'content_text' // MCP result.content[0].text, JSON-encoded (the spec's way)
  | 'structured_content' // MCP result.structuredContent
  | 'artifact' // A2A artifacts[0].parts, last data part
  | 'status_message' // A2A status.message.parts, first data part (interim)
  | 'none';

export interface TaskReply {
  transport: TransportKind;
  task: string;
  /** True when the agent answered with a task result that is not an error. */
  ok: boolean;
  status: TaskStatus;
  taskId?: string;
  contextId?: string;
  /** The parsed task payload (for an error reply: the parsed error body when it was JSON). */
  payload?: unknown;
  payloadSource: PayloadSource;
  /** MCP: the human-readable text when the payload came from structuredContent. */
  text?: string;
  /** MCP `isError`, or the A2A equivalent (failed task carrying an error object). */
  isError: boolean;
  error?: TaskError;
  /** MCP: an error result's structuredContent (its `<token>_error` and what the agent echoed beside
   *  it, e.g. `context`), when the payload was read from the text. */
  errorEnvelope?: Record<string, unknown>;
  /** Set when the transport got no usable reply. `ok` is then false. */
  failure?: TransportFailure;
  httpStatus?: number;
  durationMs: number;
  exchanges: WireExchange[];
  /** Notes on how the reply was decoded (e.g. `payload from structuredContent; text is prose`). */
  notes: string[];
}

export interface TaskListReply {
  transport: TransportKind;
  /** Task names the agent lists (MCP tools/list names, A2A agent card skill ids). */
  names: string[];
  source: 'tools/list' | 'agent_card';
  failure?: TransportFailure;
  exchanges: WireExchange[];
  /** The raw tools/list result or agent card. */
  raw?: unknown;
}

/** The exact request about to be sent; `prepare` hooks may rewrite it (signing, tampering). */
export interface OutgoingRequest {
  method: string;
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Uint8Array;
}

export type AuthOverride =
  | { mode: 'default' } // the run's --auth-token, if any
  | { mode: 'none' } // no Authorization header at all
  | { mode: 'bearer'; token: string }; // this bearer instead

export interface CallOptions {
  signal?: AbortSignal;
  auth?: AuthOverride;
  /** The protocol's own push registration (interface spec 2.7), sent as the task argument
   *  `push_notification_config` on both transports (MCP: in `arguments`; A2A: in the data part's
   *  `parameters`). Spec 6.2: it yields the MCP envelope even when the call went over A2A. */
  pushNotificationConfig?: Record<string, unknown>;
  /** A2A-native push registration: `params.configuration.pushNotificationConfig` (spec 2.7; the
   *  same object). Spec 6.2: it yields the A2A envelope. A2A only: MCP has no such channel and
   *  refuses the call without sending anything. */
  a2aPushNotificationConfig?: Record<string, unknown>;
  /** Extra request headers (lower-case names). */
  headers?: Record<string, string>;
  /** Last hook before the bytes go out: add signature headers, tamper for probing. */
  prepare?: (req: OutgoingRequest) => OutgoingRequest | Promise<OutgoingRequest>;
  /** A2A: the `contextId` of an earlier Task to bind this message to (A2A 0.3.0 section 7.1: the agent echoes it). */
  a2aContextId?: string;
  /** A2A: poll `tasks/get` while the task is non-terminal, bounded by the call timeout. Default false. */
  pollUntilTerminal?: boolean;
  /** Label recorded on the exchanges (defaults to the task name). */
  purpose?: string;
}

export interface OpenInfo {
  transport: TransportKind;
  /** MCP: the session id the server assigned (absent for stateless servers). */
  sessionId?: string;
  protocolVersion?: string;
  serverName?: string;
  serverVersion?: string;
  /** A2A: the agent card. */
  agentCard?: unknown;
  exchanges: WireExchange[];
  failure?: TransportFailure;
}

export interface TransportStats {
  /** MCP sessions opened with `initialize` (must stay 1 per run). */
  sessionsOpened: number;
  calls: number;
}

export interface Transport {
  readonly kind: TransportKind;
  /** The endpoint this transport talks to (MCP endpoint or A2A JSON-RPC endpoint). */
  readonly endpoint: string;
  /** MCP: initialize handshake (once per run). A2A: fetch the agent card. Idempotent. */
  open(signal?: AbortSignal): Promise<OpenInfo>;
  listTasks(signal?: AbortSignal): Promise<TaskListReply>;
  call(task: string, args: Record<string, unknown>, options?: CallOptions): Promise<TaskReply>;
  /** A2A `tasks/get`; MCP answers with a protocol failure (no task polling over MCP tools). */
  getTask(taskId: string, options?: CallOptions): Promise<TaskReply>;
  stats(): TransportStats;
  close(): Promise<void>;
}

/** Settings shared by every transport; the CLI fills them from flags. */
export interface TransportSettings {
  /** Agent URL as given by the user. */
  agentUrl: string;
  /** Protocol token (see harness/core/token.ts). */
  token: string;
  /** Bearer token sent on every call unless a call overrides auth. */
  authToken?: string;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  /** Response body cap in bytes. */
  maxResponseBytes: number;
  /** Records exchanges; shared so sequence numbers are global to the run. */
  capture: ExchangeRecorder;
  /** The run's private-address policy (harness/core/net); absent: nothing refused, the system resolver. */
  addressPolicy?: AddressPolicy;
  /**
   * URLs (only their origins count) the user named: the bearer token goes to these origins only.
   * Default: the origins of `agentUrl` and of the endpoints the transport was built with.
   */
  credentialOrigins?: readonly string[];
}

export interface ExchangeRecorder {
  /** Redacts secrets and stores the exchange; returns the stored (redacted) copy. */
  record(exchange: Omit<WireExchange, 'seq'>): WireExchange;
  /** Secrets to redact from everything recorded from now on. */
  addSecret(secret: string): void;
  /** Redact a string with the current secrets (before agent text is cut into a snippet: no half secret survives). */
  redactText?(text: string): string;
}

export const DEFAULT_TRANSPORT_LIMITS = {
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 30_000,
  maxResponseBytes: 4 * 1024 * 1024,
} as const;
