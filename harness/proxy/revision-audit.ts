/**
 * The revision rules of the passive audit (digest 4.5, spec 3.1): 1 on a created buy; +1 on each
 * update that changed the buy; the same on a read as on the answer before it; the same after a
 * replay, flagged or not. A verdict is given only when nothing else could have moved the buy: the
 * requests in flight are tracked (an update of the buy, or a create for its account whose answer
 * has not come yet, suppresses the verdict), the status must have moved as the update asked, and a
 * test-controller call forgets its buy or account (audit.ts).
 */
import canonicalize from 'canonicalize';
import type { WireExchange } from '../core/transport/types.js';
import { isObject, tryParseJson } from '../core/transport/jsonrpc.js';
import { accountOf, type ActionRow, MAX_REMEMBERED, MEDIA_BUY_TASKS, remember, TERMINAL, type Verdict } from './audit-shared.js';
import type { ObservedCall } from './observe.js';

type Judge = (id: string, ok: boolean, m: string, more?: Partial<Verdict>) => void;

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

export class RevisionAudit {
  /** media_buy_id → the revision and status of its latest answer. */
  private readonly revisions = new Map<string, RevisionSeen>();
  /** media_buy_id → the latest replayed request naming it (create or update) and when its answer ended. */
  private readonly replays = new Map<string, { tEnd: number; exchange: WireExchange }>();
  /** Media-buy requests in flight: seq → task, the buy it names (updates), its account, start. */
  private readonly inFlight = new Map<number, { task: string; buy?: string; account: string; tStart: number }>();
  /** media_buy_id → accepted, not replayed updates (their request start and answer end), newest last. */
  private readonly updates = new Map<string, Array<{ seq: number; tStart: number; tEnd: number }>>();

  constructor(private readonly validActions: Record<string, ActionRow>) {}

  /** A request reached the proxy: a media-buy request is in flight until its exchange ends. */
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

  forgetBuy(buy: string): void {
    this.revisions.delete(buy);
    this.replays.delete(buy);
  }

  /** `account` as accountOf gives it. */
  forgetAccount(account: string): void {
    for (const [id, r] of this.revisions) if (r.account === account) this.forgetBuy(id);
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

  /** One buy in an answer: `replay` when the answer is a replay (flagged, or the repeat of a known request). */
  judge(c: ObservedCall, id: string, status: string, revision: number, replay: boolean, v: Judge): void {
    const prev = this.revisions.get(id);
    const known = prev && prev.tEnd < c.tStart ? prev : undefined;
    const both = known ? [known.exchange, c.exchange] : [c.exchange];
    // A replay, flagged or not (the replay rules judge the flag), changes nothing: a later read must show the same revision.
    if (c.task !== 'get_media_buys' && replay) {
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
      const replayed = this.replays.get(id);
      const since = replayed && replayed.tEnd > known.tStart ? replayed.exchange : undefined;
      const checkId = since ? 'state-machine.revision.not-on-replay' : 'state-machine.revision.read-stable';
      const why = since ? 'after a replayed request' : 'on a read';
      v(checkId, ok, `get_media_buys: ${id} revision ${known.revision} -> ${revision} ${why}`, {
        exchanges: since ? [known.exchange, since, c.exchange] : both,
        ...(ok ? {} : { expected: known.revision, actual: revision }),
      });
    }
    remember(this.revisions, id, { account: accountOf(c.args.account), revision, status, tStart: c.tStart, tEnd: c.tEnd, exchange: c.exchange });
  }
}
