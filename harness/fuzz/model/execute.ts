/**
 * The core of the media-buy model run: rendering requests, planning the answer the model expects
 * (a replay, a conflict, or the fresh answer of the state machine) and checking one reply against it.
 */
import type fc from 'fast-check';
import {
  accountKey,
  type BuyModel,
  cacheKey,
  type Expectation,
  type ModelState,
  type Op,
  payloadHash,
  predictUpdate,
  type SentRequest,
} from './media-buy-model.js';
import { expectBuy, expectConflict, expectError, expectFresh, expectReplay, expectSuccess, ModelViolation, statusOf } from './reply-checks.js';
import { freshKey, type RealRun, send } from './run-state.js';

export type Cmd = fc.AsyncCommand<ModelState, RealRun>;

/** Which key a fresh request uses: a new one, or (when any) the key of a request that failed. */
export type KeyChoice = { fresh: true } | { reuseFailed: number };

export const MAX_BUYS = 3;
export const CREATE_STATES = ['pending_creatives', 'pending_start', 'active'];
export const FUTURE_CREATE_STATES = ['pending_creatives', 'pending_start'];

export function pickKey(m: ModelState, r: RealRun | undefined, choice: KeyChoice, account: Record<string, unknown>): string | undefined {
  if ('fresh' in choice) return r ? freshKey(r) : 'fresh';
  if (!m.idempotency) return undefined;
  const own = m.failedKeys.filter((k) => k.accountKey === accountKey(account));
  if (own.length === 0) return undefined;
  return own[choice.reuseFailed % own.length]!.key;
}

function isoIn(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function createArgs(r: RealRun, key: string, account: Record<string, unknown>, budget: number, future = false): Record<string, unknown> {
  const p = r.ctx.product!;
  return {
    idempotency_key: key,
    account,
    brand: (account.brand as Record<string, unknown> | undefined) ?? { domain: 'example.com' },
    // A flight starting in a week stays pending until the seller starts it (digest 4.2).
    start_time: future ? isoIn(7) : 'asap',
    end_time: isoIn(future ? 37 : 30),
    packages: [{ product_id: p.product_id, pricing_option_id: p.pricing_option_id, budget }],
    context: { correlation_id: `${key}-first` },
  };
}

export function updateArgs(buy: BuyModel, key: string | undefined, op: Op): Record<string, unknown> {
  const args: Record<string, unknown> = { ...(key !== undefined ? { idempotency_key: key } : {}), account: buy.account, media_buy_id: buy.id };
  if (op.kind === 'pause') args.paused = true;
  if (op.kind === 'resume') args.paused = false;
  if (op.kind === 'cancel') args.canceled = true;
  if (op.kind === 'budget') args.packages = [{ package_id: buy.packageId, budget: op.amount }];
  if (op.kind !== 'create' && op.revision) {
    const rev = op.revision === 'current' ? buy.revision : buy.revision - 1;
    if (rev >= 1) args.revision = rev;
  }
  return args;
}

/** The expectation of sending `args` now: a replay, a conflict, or the fresh answer (undefined: open). */
export type Plan = { kind: 'replay'; stored: Record<string, unknown>; buy: number } | { kind: 'conflict' } | { kind: 'fresh'; expect: Expectation | 'create' };

export function plan(m: ModelState, task: string, args: Record<string, unknown>, op: Op, buyIdx: number): Plan | undefined {
  const key = args.idempotency_key as string;
  const entry = m.cache.get(cacheKey(args.account as Record<string, unknown>, key));
  if (entry)
    return entry.hash === payloadHash(task, args) && entry.task === task ? { kind: 'replay', stored: entry.body, buy: entry.buy } : { kind: 'conflict' };
  if (op.kind === 'create') return m.buys.length < MAX_BUYS ? { kind: 'fresh', expect: 'create' } : undefined;
  const buy = m.buys[buyIdx];
  if (!buy) return undefined;
  const expect = predictUpdate(buy, op, typeof args.revision === 'number' ? args.revision : undefined);
  return expect ? { kind: 'fresh', expect } : undefined;
}

/** Sends one request and checks the reply against the plan; advances the model. */
export async function execute(m: ModelState, r: RealRun, what: string, task: string, args: Record<string, unknown>, op: Op, buyIdx: number): Promise<void> {
  const p = plan(m, task, args, op, buyIdx);
  if (!p) throw new Error(`${what}: no prediction (a command ran whose check() was false)`);
  const reply = await send(r, task, args);
  const key = args.idempotency_key as string;
  const account = args.account as Record<string, unknown>;
  const sent: SentRequest = { task, args, key, accountKey: accountKey(account), buy: buyIdx, op };
  if (p.kind === 'conflict') return expectConflict(what, reply);
  if (p.kind === 'replay') {
    expectReplay(what, expectSuccess(what, reply), p.stored);
    m.sent.push({ ...sent, buy: p.buy });
    return;
  }
  if (p.expect === 'create') {
    const body = expectSuccess(what, reply);
    expectFresh(what, body);
    const status = statusOf(what, body);
    if (typeof body.media_buy_id !== 'string') throw new ModelViolation(`${what}: no media_buy_id in ${JSON.stringify(body).slice(0, 160)}`);
    if (m.buys.some((b) => b.id === body.media_buy_id)) throw new ModelViolation(`${what}: a fresh create answered the existing buy ${body.media_buy_id}`);
    const states = op.kind === 'create' && op.future ? FUTURE_CREATE_STATES : CREATE_STATES;
    if (typeof status !== 'string' || !states.includes(status))
      throw new ModelViolation(`${what}: a created buy is in ${JSON.stringify(status)}, expected one of ${states.join(', ')}`);
    if (body.revision !== 1) throw new ModelViolation(`${what}: a created buy has revision ${JSON.stringify(body.revision)}, expected 1`);
    expectBuy(what, body, status as BuyModel['status'], 1, m);
    const pkg = (body.packages as Record<string, unknown>[] | undefined)?.[0]?.package_id;
    const budget = (args.packages as Record<string, unknown>[])[0]!.budget as number;
    m.buys.push({
      id: body.media_buy_id,
      account,
      status: status as BuyModel['status'],
      revision: 1,
      budget,
      ...(typeof pkg === 'string' ? { packageId: pkg } : {}),
    });
    const idx = m.buys.length - 1;
    m.cache.set(cacheKey(account, key), { task, hash: payloadHash(task, args), body, buy: idx });
    m.sent.push({ ...sent, buy: idx });
    return;
  }
  const expect = p.expect;
  m.sent.push(sent);
  if (expect.kind === 'error') {
    expectError(what, reply, expect.codes);
    m.failedKeys.push({ key, accountKey: sent.accountKey });
    return;
  }
  const body = expectSuccess(what, reply);
  expectFresh(what, body);
  expectBuy(what, body, expect.status, expect.revision, m);
  const buy = m.buys[buyIdx]!;
  buy.status = expect.status;
  buy.revision = expect.revision;
  if (op.kind === 'budget') buy.budget = op.amount;
  m.cache.set(cacheKey(account, key), { task, hash: payloadHash(task, args), body, buy: buyIdx });
  m.failedKeys = m.failedKeys.filter((k) => !(k.key === key && k.accountKey === sent.accountKey));
}
