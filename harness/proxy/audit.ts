/**
 * The passive audit: every rule that observed traffic alone can judge, under the check id `run`
 * gives it, judged on the seller's answers only (a buyer may send anything; the seller must answer
 * it right). A verdict is only given when the traffic proves it: a replay is judged only when the
 * original answer had ended before the replay was sent, a terminal buy only after its terminal
 * answer ended, and a controller call (clock moves, forced states) clears what the audit remembers.
 */
import { isDeepStrictEqual } from 'node:util';
import canonicalize from 'canonicalize';
import { judgeErrorWellFormed } from '../engine/kinds/expect/reply-status.js';
import { createSchemaValidator, type SchemaValidator } from '../schemas/validator.js';
import { protocolIds, type ProtocolIds } from '../token.js';
import type { WireExchange } from '../transport/types.js';
import { isObject, tryParseJson } from '../transport/jsonrpc.js';
import type { ObservedCall } from './observe.js';

export interface Verdict {
  checkId: string;
  ok: boolean;
  message: string;
  exchanges: WireExchange[];
  expected?: unknown;
  actual?: unknown;
}

/**
 * The mutating tasks: those whose arguments name `idempotency_key` in interface spec 4.3 (the
 * read get_media_buys aside), and update_media_buy (4.4 rule 1: every mutating request).
 */
const MUTATING = new Set([
  'create_media_buy',
  'update_media_buy',
  'sync_accounts',
  'build_creative',
  'sync_creatives',
  'sync_audiences',
  'activate_signal',
  'log_event',
  'provide_performance_feedback',
  'sync_catalogs',
]);
const MEDIA_BUY_TASKS = new Set(['create_media_buy', 'update_media_buy']);
const TERMINAL = new Set(['completed', 'canceled', 'rejected']);
/** digest 3.1: the key format a mutating request must carry (fixtures/schemas `$defs/idempotencyKey`). */
const KEY_FORMAT = /^[A-Za-z0-9_.:-]{16,255}$/;
const CONTROLLER = 'comply_test_controller';
/** What the audit remembers is bounded (a proxy may run for days): the oldest entries go first. */
const MAX_REMEMBERED = 20_000;

export function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

type ActionRow = { include?: string[]; exclude?: string[]; exactly?: string[] };

interface RevisionSeen {
  account: string;
  revision: number;
  status: string;
  tStart: number;
  tEnd: number;
  exchange: WireExchange;
}

/** The status an update leads to from `before` is the one it asks for: nothing else moved the buy meanwhile. */
function movedAsAsked(args: Record<string, unknown>, before: string, after: string): boolean {
  // A terminal buy does not move (an update accepted anyway is the terminal rules' finding).
  if (TERMINAL.has(before)) return false;
  if (args.canceled === true) return after === 'canceled';
  if (args.paused === true) return after === 'paused';
  if (args.paused === false) return before === 'paused' && after !== 'paused';
  return before === after;
}

interface KeyMemory {
  /** The account it was sent for (accountOf). */
  account: string;
  task: string;
  hash: string;
  body: Record<string, unknown>;
  tEnd: number;
  exchange: WireExchange;
}

/** An account as the controller and the buyer's calls both name it (the controller's carries `sandbox: true`). */
function accountOf(account: unknown): string {
  if (!isObject(account)) return canonicalize(account ?? null) ?? '';
  const { sandbox: _s, ...rest } = account;
  return canonicalize(rest) ?? '';
}

/** A request's payload as idempotency compares it: all but its context and key. */
function requestHash(args: Record<string, unknown>): string {
  const { context: _c, idempotency_key: _k, ...rest } = args;
  return canonicalize(rest) ?? '';
}

/** A reply's body as a replay must repeat it: without `replayed` and `context` (digest 3.1: context is not part of the payload). */
function comparable(payload: Record<string, unknown>): Record<string, unknown> {
  const { replayed: _r, context: _c, ...rest } = payload;
  return rest;
}

export class PassiveAudit {
  private readonly ids: ProtocolIds;
  private readonly schemas: SchemaValidator;
  private readonly keys = new Map<string, KeyMemory>();
  /** media_buy_id → when its terminal answer ended, and which. */
  private readonly terminal = new Map<string, { status: string; tEnd: number; exchange: WireExchange }>();
  /** media_buy_id → the revision and status of its latest answer, and a replay seen since. */
  private readonly revisions = new Map<string, RevisionSeen>();
  /** media_buy_id → the latest replayed request naming it (create or update) and when its answer ended. */
  private readonly replays = new Map<string, { tEnd: number; exchange: WireExchange }>();
  /** Media-buy requests in flight: seq → task, the buy it names (updates), its account, start. */
  private readonly inFlight = new Map<number, { task: string; buy?: string; account: string; tStart: number }>();
  /** media_buy_id → accepted, not replayed updates (their request start and answer end), newest last. */
  private readonly updates = new Map<string, Array<{ seq: number; tStart: number; tEnd: number }>>();

  constructor(
    token: string,
    private readonly validActions: Record<string, ActionRow>,
    /** Tasks whose replies one check grades together (the schemas suite's `observed_schema` with `tasks`): task → check id. */
    private readonly responseChecks: ReadonlyMap<string, string> = new Map(),
  ) {
    this.ids = protocolIds(token);
    this.schemas = createSchemaValidator({ token });
  }

  /**
   * A test-controller call moved things under the audit's feet (a forced state, the clock, a
   * completed task): what it could have changed is forgotten, the named buy or else everything
   * of its account, so nothing is compared across it.
   */
  private forget(c: ObservedCall): void {
    const params = isObject(c.args.params) ? c.args.params : {};
    const buy = typeof params.media_buy_id === 'string' ? params.media_buy_id : undefined;
    if (buy) {
      this.revisions.delete(buy);
      this.replays.delete(buy);
      return;
    }
    const account = accountOf(c.args.account);
    for (const [k, m] of this.keys) if (m.account === account) this.keys.delete(k);
    for (const [id, r] of this.revisions)
      if (r.account === account) {
        this.revisions.delete(id);
        this.replays.delete(id);
      }
  }

  /** A request reached the proxy: an update of a buy is in flight until its exchange ends. */
  requestStarted(seq: number, tStart: number, body: string): void {
    const msg = tryParseJson(body);
    if (!msg.ok || !isObject(msg.value) || !isObject(msg.value.params)) return;
    const params = msg.value.params;
    let task: unknown;
    let args: unknown;
    if (msg.value.method === 'tools/call') [task, args] = [params.name, params.arguments];
    else if (msg.value.method === 'message/send' && isObject(params.message) && Array.isArray(params.message.parts)) {
      const part = params.message.parts.find((p) => isObject(p) && isObject(p.data) && typeof p.data.skill === 'string');
      if (isObject(part) && isObject(part.data)) [task, args] = [part.data.skill, part.data.parameters];
    }
    if (typeof task === 'string' && MEDIA_BUY_TASKS.has(task) && isObject(args)) {
      if (this.inFlight.size >= MAX_REMEMBERED) this.inFlight.delete(this.inFlight.keys().next().value as number);
      const buy = typeof args.media_buy_id === 'string' ? args.media_buy_id : undefined;
      this.inFlight.set(seq, { task, ...(buy ? { buy } : {}), account: canonicalize(args.account ?? null) ?? '', tStart });
    }
  }

  /** The exchange of request `seq` ended (whatever it was). */
  requestEnded(seq: number): void {
    this.inFlight.delete(seq);
  }

  /** Every verdict one observed call gives. */
  judge(c: ObservedCall): Verdict[] {
    const out: Verdict[] = [];
    const r = c.reply;
    const v = (checkId: string, ok: boolean, message: string, more: Partial<Verdict> = {}): void => {
      out.push({ checkId, ok, message, exchanges: [c.exchange], ...more });
    };
    if (c.task === CONTROLLER) {
      // The clock or a buy's state moved under the audit's feet: forget what it would compare against.
      this.forget(c);
      return out;
    }
    if (r.failure && !r.error) return out; // no task answer to judge (transport trouble is the caller's to see)
    // A polled A2A task (tasks/get) is judged on its final answer only: the reply rules, not the request's.
    if (c.poll && r.status !== 'completed' && r.status !== 'failed') return out;
    const task = c.task === this.ids.capabilitiesTask ? 'capabilities' : c.task;
    const payload = isObject(r.payload) ? r.payload : undefined;

    if (r.isError) {
      const j = judgeErrorWellFormed(r, true);
      v('errors.error-text.json', j.ok, j.ok ? `${c.task}: well-formed error ${r.error?.code}` : `${c.task}: ${j.message}`, { actual: j.actual });
    }
    if (!r.failure && this.schemas.hasTaskSchema(c.task)) {
      // As the schemas suite grades every task reply: an error object against the error
      // schema, anything else against the task's response schema.
      const verdict = r.isError
        ? r.error?.raw !== undefined
          ? this.schemas.validate('error', r.error.raw)
          : undefined
        : this.schemas.validateTaskResponse(c.task, r.payload);
      if (verdict) {
        const what = r.isError ? `${c.task} error object` : `${c.task} answer`;
        const errs = verdict.errors.slice(0, 3).map((e) => `${e.pointer || '/'} ${e.message}`);
        v(this.responseChecks.get(task) ?? `schemas.response.${task}`, verdict.valid, verdict.valid ? `${what} valid` : `${what}: ${errs.join('; ')}`, {
          actual: verdict.valid ? undefined : verdict.errors.slice(0, 5),
        });
      }
    }
    if (r.ok && payload) {
      // A polled task's result is not the answer to the request that carried the context.
      if ('context' in c.args && !c.poll) {
        const same = isDeepStrictEqual(payload.context, c.args.context);
        v('schemas.context.echoed', same, same ? `${c.task}: context echoed` : `${c.task}: context not echoed verbatim`, {
          expected: c.args.context,
          actual: payload.context,
        });
      }
      if ('sandbox' in payload) {
        const ok = typeof payload.sandbox === 'boolean';
        v('schemas.sandbox.boolean', ok, ok ? `${c.task}: sandbox is a boolean` : `${c.task}: sandbox is ${JSON.stringify(payload.sandbox)}`);
      }
      for (const buy of this.buysIn(task, payload)) this.judgeBuy(c, buy, v);
    }
    if (c.poll) return out;
    if (task === 'update_media_buy') this.judgeTerminalRefusal(c, v);
    if (MUTATING.has(task)) this.judgeIdempotency(c, payload, v);
    return out;
  }

  private buysIn(task: string, payload: Record<string, unknown>): Record<string, unknown>[] {
    if (task === 'get_media_buys') return Array.isArray(payload.media_buys) ? payload.media_buys.filter(isObject) : [];
    return MEDIA_BUY_TASKS.has(task) && typeof payload.media_buy_id === 'string' ? [payload] : [];
  }

  private judgeBuy(c: ObservedCall, buy: Record<string, unknown>, v: (id: string, ok: boolean, m: string, more?: Partial<Verdict>) => void): void {
    const status = buy.status;
    const id = buy.media_buy_id;
    if (typeof status === 'string' && Array.isArray(buy.valid_actions)) {
      const row = this.validActions[status];
      const have = buy.valid_actions as unknown[];
      if (row) {
        const wrong =
          (row.exactly && (row.exactly.length !== have.length || row.exactly.some((a) => !have.includes(a)))) ||
          (row.include ?? []).some((a) => !have.includes(a)) ||
          (row.exclude ?? []).some((a) => have.includes(a));
        v(
          'state-machine.valid-actions.match-state',
          !wrong,
          `${c.task}: valid_actions ${JSON.stringify(have)} for ${status}`,
          wrong ? { expected: row, actual: have } : {},
        );
      }
    }
    if (typeof id !== 'string' || typeof status !== 'string' || c.poll) return;
    const before = this.terminal.get(id);
    // A cancel of a terminal buy is the cancel rule's (NOT_CANCELLABLE, digest 4.4), not audited here.
    if (c.task === 'update_media_buy' && c.args.canceled !== true && before && before.tEnd < c.tStart && buy.replayed !== true) {
      const which = c.args.paused === true ? 'pause' : c.args.paused === false ? 'resume' : 'update';
      v(`state-machine.terminal.${which}-rejected`, false, `update_media_buy of ${id} was accepted after the buy was ${before.status}`, {
        exchanges: [before.exchange, c.exchange],
        expected: 'an error (the buy is terminal)',
        actual: status,
      });
    }
    if (TERMINAL.has(status) && !before) remember(this.terminal, id, { status, tEnd: c.tEnd, exchange: c.exchange });
    if (Number.isInteger(buy.revision)) this.judgeRevision(c, id, status, buy.revision as number, buy.replayed === true, v);
  }

  /** The call repeats an earlier accepted request (same key, task and payload, after its answer ended): a replay. */
  private repeatsKnownRequest(c: ObservedCall): boolean {
    const key = c.args.idempotency_key;
    if (typeof key !== 'string') return false;
    const seen = this.keys.get(`${canonicalize(c.args.account ?? null)}\u0000${key}`);
    return !!seen && seen.tEnd < c.tStart && seen.task === c.task && seen.hash === requestHash(c.args);
  }

  /**
   * Something else may have moved `buy` during (from, to): another update of it in flight or
   * accepted then, or a create for its account still in flight (a replay of the buy's own create
   * whose answer has not come yet).
   */
  private updatedDuring(buy: string, account: unknown, from: number, to: number, seq: number): boolean {
    const acct = canonicalize(account ?? null) ?? '';
    for (const u of this.inFlight.values()) if (u.tStart < to && (u.buy === buy || (u.task === 'create_media_buy' && u.account === acct))) return true;
    return (this.updates.get(buy) ?? []).some((u) => u.seq !== seq && u.tStart < to && u.tEnd > from);
  }

  /**
   * revision (digest 4.5, spec 3.1): 1 on a created buy; +1 on each update that changed the buy
   * (judged only when nothing else could have moved it: the previous answer ended before the update
   * started, no other update of the buy overlapped, and the status moved as the update says); the
   * same on a read as on the answer before it when no update came between and the status is the
   * same, and the same after a replayed update (the replay itself is not a change).
   */
  private judgeRevision(
    c: ObservedCall,
    id: string,
    status: string,
    revision: number,
    replayed: boolean,
    v: (id: string, ok: boolean, m: string, more?: Partial<Verdict>) => void,
  ): void {
    const prev = this.revisions.get(id);
    const known = prev && prev.tEnd < c.tStart ? prev : undefined;
    const both = known ? [known.exchange, c.exchange] : [c.exchange];
    // A replay, flagged or not (the replay rules judge the flag), changes nothing: a later read must show the same revision.
    if (c.task !== 'get_media_buys' && (replayed || this.repeatsKnownRequest(c))) {
      remember(this.replays, id, { tEnd: c.tEnd, exchange: c.exchange });
      return;
    }
    if (c.task === 'create_media_buy') {
      const ok = revision === 1 && status in this.validActions;
      v(
        'state-machine.create.initial-state',
        ok,
        `create_media_buy: ${id} created ${status} with revision ${revision}`,
        ok ? {} : { expected: { revision: 1 } },
      );
    } else if (c.task === 'update_media_buy') {
      const list = this.updates.get(id) ?? [];
      list.push({ seq: c.seq, tStart: c.tStart, tEnd: c.tEnd });
      if (list.length > 20) list.shift();
      remember(this.updates, id, list);
      if (known && !this.updatedDuring(id, c.args.account, known.tEnd, c.tEnd, c.seq) && movedAsAsked(c.args, known.status, status)) {
        const ok = revision === known.revision + 1;
        v('state-machine.revision.increments', ok, `update_media_buy of ${id}: revision ${known.revision} -> ${revision}`, {
          exchanges: both,
          ...(ok ? {} : { expected: known.revision + 1, actual: revision }),
        });
      }
    } else if (c.task === 'get_media_buys' && known && known.status === status && !this.updatedDuring(id, c.args.account, known.tEnd, c.tEnd, c.seq)) {
      const ok = revision === known.revision;
      // A replay the seller may have handled after the known answer (its answer ended after that request started).
      const replay = this.replays.get(id);
      const since = replay && replay.tEnd > known.tStart ? replay.exchange : undefined;
      const checkId = since ? 'state-machine.revision.not-on-replay' : 'state-machine.revision.read-stable';
      const why = since ? 'after a replayed request' : 'on a read';
      v(checkId, ok, `get_media_buys: ${id} revision ${known.revision} -> ${revision} ${why}`, {
        exchanges: since ? [known.exchange, since, c.exchange] : both,
        ...(ok ? {} : { expected: known.revision, actual: revision }),
      });
    }
    remember(this.revisions, id, { account: accountOf(c.args.account), revision, status, tStart: c.tStart, tEnd: c.tEnd, exchange: c.exchange });
  }

  /** An update of a buy seen terminal before the update was sent, refused with INVALID_STATE (digest 4.4): the rule holding. */
  private judgeTerminalRefusal(c: ObservedCall, v: (id: string, ok: boolean, m: string, more?: Partial<Verdict>) => void): void {
    const id = c.args.media_buy_id;
    const before = typeof id === 'string' ? this.terminal.get(id) : undefined;
    if (!before || before.tEnd >= c.tStart || c.args.canceled === true || c.reply.error?.code !== 'INVALID_STATE') return;
    const which = c.args.paused === true ? 'pause' : c.args.paused === false ? 'resume' : 'update';
    v(`state-machine.terminal.${which}-rejected`, true, `update_media_buy of ${String(id)} (${before.status}) refused with INVALID_STATE`, {
      exchanges: [before.exchange, c.exchange],
    });
  }

  private judgeIdempotency(
    c: ObservedCall,
    payload: Record<string, unknown> | undefined,
    v: (id: string, ok: boolean, m: string, more?: Partial<Verdict>) => void,
  ): void {
    const key = c.args.idempotency_key;
    const accepted = c.reply.ok && payload !== undefined;
    if (key === undefined) {
      v(
        'idempotency.key.missing-rejected',
        !accepted,
        accepted ? `${c.task} without idempotency_key was accepted` : `${c.task} without idempotency_key refused`,
      );
      return;
    }
    if (typeof key !== 'string' || !KEY_FORMAT.test(key)) {
      v(
        'idempotency.key.malformed-rejected',
        !accepted,
        accepted ? `${c.task} with a malformed idempotency_key was accepted` : `${c.task} with a malformed idempotency_key refused`,
        { actual: key },
      );
      return;
    }
    const hash = requestHash(c.args);
    const scope = `${canonicalize(c.args.account ?? null)}\u0000${key}`;
    const seen = this.keys.get(scope);
    if (!seen || seen.tEnd >= c.tStart) {
      if (accepted && !seen && payload.replayed !== true)
        remember(this.keys, scope, { account: accountOf(c.args.account), task: c.task, hash, body: comparable(payload), tEnd: c.tEnd, exchange: c.exchange });
      return;
    }
    const both = [seen.exchange, c.exchange];
    if (seen.task !== c.task || seen.hash !== hash) {
      const id = seen.task !== c.task ? 'idempotency.conflict.other-task' : 'idempotency.conflict.changed-payload';
      if (accepted)
        v(id, false, `${c.task} reused the key of an earlier ${seen.task} with another payload and was accepted`, {
          exchanges: both,
          expected: 'IDEMPOTENCY_CONFLICT',
        });
      else if (c.reply.error?.code === 'IDEMPOTENCY_CONFLICT') v(id, true, `${c.task}: changed payload refused with IDEMPOTENCY_CONFLICT`, { exchanges: both });
      return;
    }
    if (!accepted) return; // an expired or in-flight key may be refused; the audit cannot tell which from traffic alone
    v('idempotency.replay.flagged', payload.replayed === true, `${c.task}: replay answered with replayed=${JSON.stringify(payload.replayed)}`, {
      exchanges: both,
    });
    const same = isDeepStrictEqual(comparable(payload), seen.body);
    v(
      'idempotency.replay.identical-body',
      same,
      same ? `${c.task}: replay repeats the original answer` : `${c.task}: replay differs from the original answer`,
      {
        exchanges: both,
        ...(same ? {} : { expected: seen.body, actual: comparable(payload) }),
      },
    );
  }
}

/** The check ids the passive audit can give a verdict on (the report lists each, a gap when traffic never exercised it). */
export const AUDITED_CHECKS: readonly string[] = [
  'errors.error-text.json',
  'schemas.response.capabilities',
  'schemas.response.get_products',
  'schemas.response.create_media_buy',
  'schemas.response.update_media_buy',
  'schemas.response.get_media_buys',
  'schemas.response.get_media_buy_delivery',
  'schemas.response.list_creative_formats',
  'schemas.response.list_accounts',
  'schemas.response.get_signals',
  'schemas.response.get_brand_identity',
  'schemas.response.mutations',
  'schemas.context.echoed',
  'schemas.sandbox.boolean',
  'idempotency.key.missing-rejected',
  'idempotency.key.malformed-rejected',
  'idempotency.replay.flagged',
  'idempotency.replay.identical-body',
  'idempotency.conflict.changed-payload',
  'idempotency.conflict.other-task',
  'state-machine.valid-actions.match-state',
  'state-machine.create.initial-state',
  'state-machine.revision.increments',
  'state-machine.revision.read-stable',
  'state-machine.revision.not-on-replay',
  'state-machine.terminal.pause-rejected',
  'state-machine.terminal.resume-rejected',
  'state-machine.terminal.update-rejected',
];
