/**
 * Shapes shared by the domain model, its task handlers and the two transports. A transport turns
 * a `TaskOutcome` into wire bytes (MCP tool result or A2A task); handlers never see the wire.
 */
import type { z } from 'zod';
import type { ClockScope } from './clock.js';
import type { ErrorBody } from './errors.js';

export type TransportName = 'mcp' | 'a2a';

/** Who is calling. Both transports derive it the same way, so a buy made over MCP is visible over A2A. */
export interface CallerContext {
  /** `anonymous`, or `bearer:<sha-256 prefix of the token>` (or whatever a request verifier set). */
  principal: string;
  transport: TransportName;
  /** Set by a request verifier (RFC 9421 extension point) when the request was signed and verified. */
  verifiedSigner?: unknown;
  /** The Host the caller reached the seller at (through a reverse proxy: the proxy's), for the URLs it declares. */
  host?: string;
  /** A2A calls: the A2A task answering this call, and an A2A-native push registration
   *  (`params.configuration.pushNotificationConfig` exactly as sent; interface spec 2.7, 6.2). */
  a2a?: A2aCallContext;
}

export interface A2aCallContext {
  taskId: string;
  contextId: string;
  pushNotificationConfig?: unknown;
}

/** Where an A2A-native registration sits in the idempotency payload and in error fields. */
export const A2A_PUSH_FIELD = 'configuration.pushNotificationConfig';

export type TaskPayload = Record<string, unknown>;

export type AsyncStatus = 'submitted' | 'working' | 'input-required';

export type TaskOutcome =
  /** Terminal success: the payload is the task response. */
  | { kind: 'completed'; payload: TaskPayload }
  /** Non-terminal answer (digest 4.6 force_create_media_buy_arm): payload carries `status` and `task_id`. */
  | { kind: 'async'; status: AsyncStatus; taskId: string; payload: TaskPayload }
  /** `context`: the request's top-level context, echoed beside the error too (interface spec 4.2). */
  | { kind: 'error'; error: ErrorBody; context?: unknown };

export type SuccessOutcome = Exclude<TaskOutcome, { kind: 'error' }>;

/** Idempotency class (digest 3.1): mutating tasks require a key, reads may carry one, exempt tasks ignore it. */
export type IdempotencyClass = 'mutating' | 'read' | 'exempt';

export interface TaskCall<A> {
  /** Arguments after validation (unknown extra fields are kept). */
  args: A;
  caller: CallerContext;
  /** Account scope key (`id:<account_id>`, `brand:<domain>|<operator>` or empty). */
  accountKey: string;
  /** Whose clock this request reads (principal + account). */
  clockScope: ClockScope;
}

// biome-ignore lint/suspicious/noExplicitAny: the task table holds tasks of every argument type
export interface TaskDef<A = any> {
  name: string;
  description: string;
  idempotency: IdempotencyClass;
  /** True when a successful call creates a new resource (used by the replay-creates-second-buy fault). */
  createsResource?: boolean;
  schema: z.ZodType<A>;
  run(call: TaskCall<A>): Promise<SuccessOutcome> | SuccessOutcome;
  /** Renders a replay from the stored response; the default returns the stored response unchanged. */
  renderReplay?(stored: SuccessOutcome, call: TaskCall<A>): SuccessOutcome;
}

export function completed(payload: TaskPayload): SuccessOutcome {
  return { kind: 'completed', payload };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
