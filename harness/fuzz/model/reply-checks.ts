/** Comparing one agent reply with what the media-buy model expects; a mismatch throws ModelViolation. */
import type { TaskReply } from '../../core/transport/types.js';
import { canonicalJson, type BuyStatus, validActionsTable } from './media-buy-model.js';
import type { ProtocolLine } from '../../core/protocol/lines.js';
import { clip, short } from '../judge.js';

export class ModelViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelViolation';
  }
}

const fail = (what: string, msg: string): never => {
  throw new ModelViolation(`${what}: ${msg}`);
};

export function payloadOf(reply: TaskReply): Record<string, unknown> {
  const p = reply.payload;
  return p !== null && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : {};
}

function describe(reply: TaskReply): string {
  if (reply.failure) return clip(`transport failure ${reply.failure.kind}: ${reply.failure.message}`, 200);
  if (reply.error) return clip(`error ${reply.error.code}: ${reply.error.message}`, 200);
  return `success ${short(reply.payload, 160)}`;
}

export function expectSuccess(what: string, reply: TaskReply): Record<string, unknown> {
  if (!reply.ok || reply.isError || reply.error) fail(what, `expected success, got ${describe(reply)}`);
  return payloadOf(reply);
}

/** A refusal, whatever its code (never a success). */
export function expectRefused(what: string, reply: TaskReply): void {
  if (reply.failure) fail(what, `expected a refusal, got ${describe(reply)}`);
  if (reply.ok && !reply.error) fail(what, `expected a refusal, the change was accepted: ${describe(reply)}`);
}

/** A refusal with one of the codes the spec names (and never a success). */
export function expectError(what: string, reply: TaskReply, codes: readonly string[]): void {
  if (reply.failure) fail(what, `expected ${codes.join(' or ')}, got ${describe(reply)}`);
  if (reply.ok && !reply.error) fail(what, `expected ${codes.join(' or ')}, the change was accepted: ${describe(reply)}`);
  const code = reply.error?.code;
  if (!code || !codes.includes(code)) fail(what, `expected ${codes.join(' or ')}, got ${describe(reply)}`);
}

/** The state of a buy: `status`, or 3.1's `media_buy_status` (identical when both are sent; digest 4.5). */
export function statusOf(what: string, body: Record<string, unknown>): unknown {
  if (body.status !== undefined && body.media_buy_status !== undefined && body.status !== body.media_buy_status)
    fail(what, `status ${JSON.stringify(body.status)} and media_buy_status ${JSON.stringify(body.media_buy_status)} differ`);
  return body.status ?? body.media_buy_status;
}

/** A disagreement on valid_actions, a SHOULD-level rule (digest 4.3): judged by fuzz.model.valid-actions only. */
export class ValidActionsViolation extends ModelViolation {
  constructor(message: string) {
    super(message);
    this.name = 'ValidActionsViolation';
  }
}

/**
 * A buy as the model has it: status and revision; with `m.validActions` on, also valid_actions
 * (SHOULD-level, digest 4.3: only checked when sent).
 */
export function expectBuy(
  what: string,
  body: Record<string, unknown>,
  status: BuyStatus,
  revision: number,
  m: { readonly validActions?: boolean; readonly line?: ProtocolLine },
  source: 'reply' | 'read' = 'reply',
): void {
  const got = statusOf(what, body);
  if (got !== status) fail(what, `status ${JSON.stringify(got)}, the model says ${status}`);
  // A 3.0 create or update answer carries revision (the 3.0 specification: MUST), a buy
  // get_media_buys lists may not (required there from 3.1, digest 4.5): judged when sent.
  const revisionOptional = m.line === '3.0' && source === 'read' && body.revision === undefined;
  if (!revisionOptional && body.revision !== revision) fail(what, `revision ${JSON.stringify(body.revision)}, the model says ${revision}`);
  const actions = body.valid_actions;
  if (!m.validActions || actions === undefined) return;
  const wrong = (msg: string): never => {
    throw new ValidActionsViolation(`${what}: ${msg}`);
  };
  if (!Array.isArray(actions)) wrong(`valid_actions is not an array: ${JSON.stringify(actions)}`);
  const list = actions as unknown[];
  const table = validActionsTable(m.line)[status];
  if (table.exactly && list.length !== table.exactly.length) wrong(`valid_actions ${JSON.stringify(list)} in ${status}, expected []`);
  for (const a of table.include) if (!list.includes(a)) wrong(`valid_actions ${JSON.stringify(list)} in ${status} lacks ${a}`);
  for (const a of table.exclude ?? []) if (list.includes(a)) wrong(`valid_actions ${JSON.stringify(list)} in ${status} lists ${a}`);
}

/** A fresh execution sends replayed false or omits it (digest 3.2 rule 4). */
export function expectFresh(what: string, body: Record<string, unknown>): void {
  if (body.replayed !== undefined && body.replayed !== false) fail(what, `a fresh execution answered replayed ${JSON.stringify(body.replayed)}`);
}

/** A replay: replayed true and the stored create-time response (digest 3.2 rules 2 and 4), context aside. */
export function expectReplay(what: string, body: Record<string, unknown>, stored: Record<string, unknown>): void {
  if (body.replayed !== true) fail(what, `a same-key same-payload replay answered replayed ${JSON.stringify(body.replayed)}, expected true`);
  const strip = (b: Record<string, unknown>) => {
    const { replayed: _r, context: _c, ...rest } = b;
    return canonicalJson(rest);
  };
  if (strip(body) !== strip(stored)) fail(what, `the replay body differs from the first response: ${clip(strip(body), 200)} vs ${clip(strip(stored), 200)}`);
}

/** IDEMPOTENCY_CONFLICT carries only code, message and recovery (digest 3.6). */
export function expectConflict(what: string, reply: TaskReply): void {
  expectError(what, reply, ['IDEMPOTENCY_CONFLICT']);
  const raw = reply.error?.raw;
  if (raw && typeof raw === 'object') {
    const extra = Object.keys(raw).filter((k) => !['code', 'message', 'recovery'].includes(k));
    if (extra.length > 0) fail(what, `IDEMPOTENCY_CONFLICT carries ${extra.join(', ')} besides code, message and recovery`);
  }
}

/** A canceled buy carries cancellation {canceled_at, canceled_by} (digest 4.2). */
export function expectCancellation(what: string, body: Record<string, unknown>): void {
  const c = body.cancellation as Record<string, unknown> | undefined;
  if (!c || typeof c !== 'object' || typeof c.canceled_at !== 'string' || c.canceled_by === undefined || c.canceled_by === null)
    fail(what, `a canceled buy lacks cancellation {canceled_at, canceled_by}: ${JSON.stringify(c)}`);
}
