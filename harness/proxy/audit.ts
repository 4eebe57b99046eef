/**
 * The passive audit: every rule that observed traffic alone can judge, under the check id `run`
 * gives it, judged on the seller's answers only (a buyer may send anything; the seller must answer
 * it right). A verdict is only given when the traffic proves it: a replay is judged only when the
 * original answer had ended before the replay was sent, a terminal buy only after its terminal
 * answer ended, and a controller call (clock moves, forced states) clears what the audit remembers.
 */
import { isDeepStrictEqual } from 'node:util';
import canonicalize from 'canonicalize';
import { judgeErrorWellFormed } from '../core/engine/kinds/expect/reply-status.js';
import { createSchemaValidator, type SchemaValidator } from '../core/schemas/validator.js';
import { protocolIds, type ProtocolIds } from '../core/token.js';
import type { WireExchange } from '../core/transport/types.js';
import { isObject } from '../core/transport/jsonrpc.js';
import type { ObservedCall } from './observe.js';
import { RevisionAudit } from './revision-audit.js';
import { accountOf, type ActionRow, KEY_FORMAT, MEDIA_BUY_TASKS, MUTATING, remember, requestHash, TERMINAL, type Verdict } from './audit-shared.js';

export type { Verdict } from './audit-shared.js';

const CONTROLLER = 'comply_test_controller';

/** The code `run` accepts for a changed payload under a known key (suites/idempotency/idempotency.yaml, idempotency.conflict.*; interface spec 4.4 rule 3). */
const CONFLICT_CODES: readonly string[] = ['IDEMPOTENCY_CONFLICT'];

/**
 * Refusals whose reason may come before, or instead of, the payload comparison, so traffic alone
 * cannot hold them against the conflict rule: schema validation runs before the cache (digest 3.2
 * rule 1: INVALID_REQUEST, or the storyboard's VALIDATION_ERROR), the key may have aged past the
 * window (rule 6) or be held in flight (3.4), and the rate limit, credentials, the protocol version
 * and a failing seller refuse whatever is sent. Any other code on a changed payload is the wrong code.
 */
const NOT_A_CONFLICT_ANSWER: ReadonlySet<string> = new Set([
  'INVALID_REQUEST',
  'VALIDATION_ERROR',
  'IDEMPOTENCY_EXPIRED',
  'IDEMPOTENCY_IN_FLIGHT',
  'RATE_LIMITED',
  'UNAUTHORIZED',
  'AUTH_REQUIRED',
  'PERMISSION_DENIED',
  'VERSION_UNSUPPORTED',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
]);

interface KeyMemory {
  /** The account it was sent for (accountOf). */
  account: string;
  task: string;
  hash: string;
  body: Record<string, unknown>;
  tEnd: number;
  exchange: WireExchange;
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
  private readonly revisions: RevisionAudit;

  constructor(
    token: string,
    private readonly validActions: Record<string, ActionRow>,
    /** Tasks whose replies one check grades together (the schemas suite's `observed_schema` with `tasks`): task → check id. */
    private readonly responseChecks: ReadonlyMap<string, string> = new Map(),
  ) {
    this.ids = protocolIds(token);
    this.schemas = createSchemaValidator({ token });
    this.revisions = new RevisionAudit(validActions);
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
      this.revisions.forgetBuy(buy);
      return;
    }
    const account = accountOf(c.args.account);
    for (const [k, m] of this.keys) if (m.account === account) this.keys.delete(k);
    this.revisions.forgetAccount(account);
  }

  /** A request reached the proxy (what is in flight narrows the revision rules). */
  requestStarted(seq: number, tStart: number, body: string): void {
    this.revisions.requestStarted(seq, tStart, body);
  }

  /** The exchange of request `seq` ended (whatever it was). */
  requestEnded(seq: number): void {
    this.revisions.requestEnded(seq);
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
    if (Number.isInteger(buy.revision)) this.revisions.judge(c, id, status, buy.revision as number, buy.replayed === true || this.repeatsKnownRequest(c), v);
  }

  /** The call repeats an earlier accepted request (same key, task and payload, after its answer ended): a replay. */
  private repeatsKnownRequest(c: ObservedCall): boolean {
    const key = c.args.idempotency_key;
    if (typeof key !== 'string') return false;
    const seen = this.keys.get(`${canonicalize(c.args.account ?? null)}\u0000${key}`);
    return !!seen && seen.tEnd < c.tStart && seen.task === c.task && seen.hash === requestHash(c.args);
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
      else if (c.reply.error?.code !== undefined && CONFLICT_CODES.includes(c.reply.error.code))
        v(id, true, `${c.task}: changed payload refused with ${c.reply.error.code}`, { exchanges: both });
      else if (c.reply.error?.code && !NOT_A_CONFLICT_ANSWER.has(c.reply.error.code))
        v(id, false, `${c.task} reused the key of an earlier ${seen.task} with another payload and was refused with ${c.reply.error.code}`, {
          exchanges: both,
          expected: CONFLICT_CODES,
          actual: c.reply.error.code,
        });
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
