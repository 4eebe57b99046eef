/**
 * The commands of the media-buy model run: each sends one request, predicts the answer from the
 * model (media-buy-model.ts), checks the reply (reply-checks.ts) and advances the model. A
 * command whose answer the spec leaves open is not run (its check() is false).
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
  TERMINAL,
} from './media-buy-model.js';
import {
  expectBuy,
  expectCancellation,
  expectConflict,
  expectError,
  expectFresh,
  expectReplay,
  expectSuccess,
  ModelViolation,
  statusOf,
} from './reply-checks.js';
import { freshKey, type RealRun, send } from './run-state.js';

type Cmd = fc.AsyncCommand<ModelState, RealRun>;

/** Which key a fresh request uses: a new one, or (when any) the key of a request that failed. */
export type KeyChoice = { fresh: true } | { reuseFailed: number };

const MAX_BUYS = 3;
const CREATE_STATES = ['pending_creatives', 'pending_start', 'active'];

function pickKey(m: ModelState, r: RealRun | undefined, choice: KeyChoice, account: Record<string, unknown>): string | undefined {
  if ('fresh' in choice) return r ? freshKey(r) : 'fresh';
  if (!m.idempotency) return undefined;
  const own = m.failedKeys.filter((k) => k.accountKey === accountKey(account));
  if (own.length === 0) return undefined;
  return own[choice.reuseFailed % own.length]!.key;
}

function isoIn(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function createArgs(r: RealRun, key: string, account: Record<string, unknown>, budget: number): Record<string, unknown> {
  const p = r.ctx.product!;
  return {
    idempotency_key: key,
    account,
    brand: (account.brand as Record<string, unknown> | undefined) ?? { domain: 'example.com' },
    start_time: 'asap',
    end_time: isoIn(30),
    packages: [{ product_id: p.product_id, pricing_option_id: p.pricing_option_id, budget }],
    context: { correlation_id: `${key}-first` },
  };
}

function updateArgs(buy: BuyModel, key: string | undefined, op: Op): Record<string, unknown> {
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
type Plan = { kind: 'replay'; stored: Record<string, unknown>; buy: number } | { kind: 'conflict' } | { kind: 'fresh'; expect: Expectation | 'create' };

function plan(m: ModelState, task: string, args: Record<string, unknown>, op: Op, buyIdx: number): Plan | undefined {
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
async function execute(m: ModelState, r: RealRun, what: string, task: string, args: Record<string, unknown>, op: Op, buyIdx: number): Promise<void> {
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
    if (typeof status !== 'string' || !CREATE_STATES.includes(status))
      throw new ModelViolation(`${what}: a created buy is in ${JSON.stringify(status)}, expected one of ${CREATE_STATES.join(', ')}`);
    if (body.revision !== 1) throw new ModelViolation(`${what}: a created buy has revision ${JSON.stringify(body.revision)}, expected 1`);
    expectBuy(what, body, status as BuyModel['status'], 1);
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
  expectBuy(what, body, expect.status, expect.revision);
  const buy = m.buys[buyIdx]!;
  buy.status = expect.status;
  buy.revision = expect.revision;
  if (op.kind === 'budget') buy.budget = op.amount;
  m.cache.set(cacheKey(account, key), { task, hash: payloadHash(task, args), body, buy: buyIdx });
  m.failedKeys = m.failedKeys.filter((k) => !(k.key === key && k.accountKey === sent.accountKey));
}

export class CreateCmd implements Cmd {
  constructor(
    readonly budgetStep: number,
    readonly key: KeyChoice,
  ) {}
  check(m: Readonly<ModelState>): boolean {
    return m.buys.length < MAX_BUYS && pickKey(m as ModelState, undefined, this.key, m.accounts[0]!) !== undefined;
  }
  async run(m: ModelState, r: RealRun): Promise<void> {
    const account = m.accounts[0]!;
    const key = pickKey(m, r, this.key, account)!;
    await execute(
      m,
      r,
      this.toString(),
      'create_media_buy',
      createArgs(r, key, account, m.baseBudget + this.budgetStep * 10),
      { kind: 'create', budget: this.budgetStep },
      m.buys.length,
    );
  }
  toString(): string {
    return `create budget+${this.budgetStep * 10} key=${'fresh' in this.key ? 'fresh' : `failed#${this.key.reuseFailed}`}`;
  }
}

export class UpdateCmd implements Cmd {
  constructor(
    readonly op: Exclude<Op, { kind: 'create' }>,
    readonly buy: number,
    readonly key: KeyChoice,
  ) {}
  private target(m: Readonly<ModelState>): number {
    return m.buys.length === 0 ? -1 : this.buy % m.buys.length;
  }
  check(m: Readonly<ModelState>): boolean {
    const i = this.target(m);
    const buy = m.buys[i];
    if (!buy || (this.op.kind === 'budget' && !buy.packageId)) return false;
    const key = pickKey(m as ModelState, undefined, this.key, buy.account);
    if (key === undefined) return false;
    if (this.op.kind === 'budget' && buy.budget === m.baseBudget + this.op.amount) return false; // no change: the spec is silent on revision
    const args = updateArgs(buy, key, this.op);
    return plan(m as ModelState, 'update_media_buy', args, this.op, i) !== undefined;
  }
  async run(m: ModelState, r: RealRun): Promise<void> {
    const i = this.target(m);
    const buy = m.buys[i]!;
    const op = this.op.kind === 'budget' ? { ...this.op, amount: m.baseBudget + this.op.amount } : this.op;
    await execute(m, r, this.toString(), 'update_media_buy', updateArgs(buy, pickKey(m, r, this.key, buy.account), op), op, i);
  }
  toString(): string {
    const rev = this.op.revision ? ` revision=${this.op.revision}` : '';
    const amount = this.op.kind === 'budget' ? ` budget+${this.op.amount}` : '';
    return `${this.op.kind} buy#${this.buy}${amount}${rev} key=${'fresh' in this.key ? 'fresh' : `failed#${this.key.reuseFailed}`}`;
  }
}

/** Resends an earlier request exactly (same key, same payload), with another context (excluded from the hash). */
export class ReplayCmd implements Cmd {
  constructor(readonly index: number) {}
  private pick(m: Readonly<ModelState>): SentRequest | undefined {
    return m.sent.length === 0 ? undefined : m.sent[this.index % m.sent.length];
  }
  check(m: Readonly<ModelState>): boolean {
    const s = this.pick(m);
    return m.idempotency && s !== undefined && plan(m as ModelState, s.task, s.args, s.op, s.buy) !== undefined;
  }
  async run(m: ModelState, r: RealRun): Promise<void> {
    const s = this.pick(m)!;
    const args = { ...s.args, context: { correlation_id: `${s.key}-replay-${r.counter++}` } };
    await execute(m, r, this.toString(), s.task, args, s.op, s.buy);
  }
  toString(): string {
    return `replay sent#${this.index}`;
  }
}

/** Reuses the key of a cached success with another payload, on the same task or another: IDEMPOTENCY_CONFLICT. */
export class ConflictCmd implements Cmd {
  constructor(
    readonly index: number,
    readonly otherTask: boolean,
  ) {}
  private pick(m: Readonly<ModelState>): SentRequest | undefined {
    const cached = m.sent.filter((s) => m.cache.has(cacheKey(s.args.account as Record<string, unknown>, s.key)));
    return cached.length === 0 ? undefined : cached[this.index % cached.length];
  }
  check(m: Readonly<ModelState>): boolean {
    return m.idempotency && this.pick(m) !== undefined;
  }
  async run(m: ModelState, r: RealRun): Promise<void> {
    const s = this.pick(m)!;
    const buy = m.buys[s.buy];
    let task = s.task;
    let args: Record<string, unknown>;
    if (this.otherTask) {
      task = s.task === 'create_media_buy' ? 'update_media_buy' : 'create_media_buy';
      args =
        task === 'create_media_buy'
          ? createArgs(r, s.key, s.args.account as Record<string, unknown>, m.baseBudget + 7)
          : updateArgs(buy!, s.key, { kind: 'cancel' });
    } else if (s.op.kind === 'create') {
      const pkgs = s.args.packages as Record<string, unknown>[];
      args = { ...s.args, packages: [{ ...pkgs[0], budget: (pkgs[0]!.budget as number) + 1 }] };
    } else if (s.op.kind === 'budget') {
      const pkgs = s.args.packages as Record<string, unknown>[];
      args = { ...s.args, packages: [{ ...pkgs[0], budget: (pkgs[0]!.budget as number) + 1 }] };
    } else {
      // The same intent with another payload: with a revision when it had none, without when it had one.
      const { revision, ...rest } = s.args;
      args = revision === undefined ? { ...rest, revision: buy?.revision ?? 1 } : rest;
    }
    const what = this.toString();
    if (payloadHash(task, args) === payloadHash(s.task, s.args)) throw new Error(`${what}: the variant payload equals the original`);
    expectConflict(what, await send(r, task, args));
  }
  toString(): string {
    return `conflict cached#${this.index}${this.otherTask ? ' other-task' : ''}`;
  }
}

/** Reads one buy (optionally with a fresh idempotency_key, which reads accept: digest 3.1). */
export class ReadCmd implements Cmd {
  constructor(
    readonly buy: number,
    readonly keyed: boolean,
  ) {}
  check(m: Readonly<ModelState>): boolean {
    return m.buys.length > 0;
  }
  async run(m: ModelState, r: RealRun): Promise<void> {
    const b = m.buys[this.buy % m.buys.length]!;
    const what = this.toString();
    const args = { account: b.account, media_buy_ids: [b.id], ...(this.keyed ? { idempotency_key: freshKey(r) } : {}) };
    const body = expectSuccess(what, await send(r, 'get_media_buys', args));
    const found = ((body.media_buys as Record<string, unknown>[] | undefined) ?? []).filter((x) => x?.media_buy_id === b.id);
    if (found.length !== 1) throw new ModelViolation(`${what}: get_media_buys lists ${found.length} entries for ${b.id}`);
    expectBuy(what, found[0]!, b.status, b.revision);
    if (b.status === 'canceled') expectCancellation(what, found[0]!);
  }
  toString(): string {
    return `read buy#${this.buy}${this.keyed ? ' keyed' : ''}`;
  }
}

/**
 * Lists the sequence's own account: no buy the model did not create (a replay creates nothing new,
 * interface spec 4.4 rule 2). The spec sets no default filter, so a buy left out is not asserted.
 */
export class ListCmd implements Cmd {
  check(m: Readonly<ModelState>): boolean {
    return m.buys.length > 0;
  }
  async run(m: ModelState, r: RealRun): Promise<void> {
    if (!r.privateAccounts) return;
    const account = m.accounts[0]!;
    const body = expectSuccess('list', await send(r, 'get_media_buys', { account }));
    const known = new Set(m.buys.map((b) => b.id));
    const extra = ((body.media_buys as Record<string, unknown>[] | undefined) ?? []).map((x) => x?.media_buy_id).filter((id) => !known.has(id as string));
    if (extra.length > 0)
      throw new ModelViolation(`list: get_media_buys lists ${JSON.stringify(extra)} the model never created (of ${JSON.stringify([...known])})`);
  }
  toString(): string {
    return 'list';
  }
}

/**
 * The same create sent twice at once under one fresh key (digest 3.4): one buy; each reply is
 * that buy (the other flagged replayed) or IDEMPOTENCY_IN_FLIGHT.
 */
export class ParallelCreateCmd implements Cmd {
  check(m: Readonly<ModelState>): boolean {
    return m.idempotency && m.buys.length < MAX_BUYS;
  }
  async run(m: ModelState, r: RealRun): Promise<void> {
    const what = this.toString();
    const account = m.accounts[0]!;
    const key = freshKey(r);
    const args = createArgs(r, key, account, m.baseBudget + 3);
    const replies = await Promise.all([0, 1].map(() => send(r, 'create_media_buy', args)));
    const bodies: Record<string, unknown>[] = [];
    for (const reply of replies) {
      if (reply.error?.code === 'IDEMPOTENCY_IN_FLIGHT') continue;
      bodies.push(expectSuccess(what, reply));
    }
    const ids = [...new Set(bodies.map((b) => b.media_buy_id))];
    if (ids.length !== 1)
      throw new ModelViolation(`${what}: concurrent same-key creates answered ${ids.length} buys ${JSON.stringify(ids)}, expected exactly one`);
    const fresh = bodies.filter((b) => b.replayed !== true);
    if (fresh.length !== 1)
      throw new ModelViolation(
        `${what}: ${fresh.length} of the concurrent replies are unflagged fresh executions, expected one (the other replayed or IDEMPOTENCY_IN_FLIGHT)`,
      );
    const body = fresh[0]!;
    const status = statusOf(what, body);
    if (typeof status !== 'string' || !CREATE_STATES.includes(status)) throw new ModelViolation(`${what}: a created buy is in ${JSON.stringify(status)}`);
    expectBuy(what, body, status as BuyModel['status'], 1);
    const pkg = (body.packages as Record<string, unknown>[] | undefined)?.[0]?.package_id;
    m.buys.push({
      id: ids[0] as string,
      account,
      status: status as BuyModel['status'],
      revision: 1,
      budget: m.baseBudget + 3,
      ...(typeof pkg === 'string' ? { packageId: pkg } : {}),
    });
    m.cache.set(cacheKey(account, key), { task: 'create_media_buy', hash: payloadHash('create_media_buy', args), body, buy: m.buys.length - 1 });
    m.sent.push({ task: 'create_media_buy', args, key, accountKey: accountKey(account), buy: m.buys.length - 1, op: { kind: 'create', budget: 3 } });
  }
  toString(): string {
    return 'parallel-create';
  }
}

/** The key of a cached create, sent with the same payload under the second account: a fresh create (digest 3.1 scope). */
export class OtherAccountCmd implements Cmd {
  constructor(readonly index: number) {}
  private pick(m: Readonly<ModelState>): SentRequest | undefined {
    const creates = m.sent.filter(
      (s) =>
        s.task === 'create_media_buy' &&
        m.cache.has(cacheKey(m.accounts[0]!, s.key)) &&
        accountKey(s.args.account as Record<string, unknown>) === accountKey(m.accounts[0]!),
    );
    return creates.length === 0 ? undefined : creates[this.index % creates.length];
  }
  check(m: Readonly<ModelState>): boolean {
    const s = this.pick(m);
    return m.idempotency && m.accounts.length > 1 && s !== undefined && !m.cache.has(cacheKey(m.accounts[1]!, s.key)) && m.buys.length < MAX_BUYS;
  }
  async run(m: ModelState, r: RealRun): Promise<void> {
    const s = this.pick(m)!;
    const account = m.accounts[1]!;
    const args = { ...s.args, account, brand: (account.brand as Record<string, unknown> | undefined) ?? s.args.brand };
    await execute(m, r, this.toString(), 'create_media_buy', args, s.op, m.buys.length);
  }
  toString(): string {
    return `create-in-second-account with-key-of create#${this.index}`;
  }
}

/** Errors the spec names for a bad request, none of which changes anything. */
export class RefusedCmd implements Cmd {
  constructor(
    readonly kind: 'unknown-buy' | 'unknown-package' | 'missing-key' | 'malformed-key' | 'invalid-payload',
    readonly buy: number,
  ) {}
  private target(m: Readonly<ModelState>): BuyModel | undefined {
    return m.buys.length === 0 ? undefined : m.buys[this.buy % m.buys.length];
  }
  check(m: Readonly<ModelState>): boolean {
    const b = this.target(m);
    if (this.kind === 'unknown-buy') return true;
    if (!b) return false;
    if ((this.kind === 'missing-key' || this.kind === 'malformed-key') && !m.idempotency) return false;
    // PACKAGE_NOT_FOUND on a buy that can change (on a terminal buy INVALID_STATE may come first).
    if (this.kind === 'unknown-package') return b.status === 'active' || b.status === 'paused';
    return true;
  }
  async run(m: ModelState, r: RealRun): Promise<void> {
    const what = this.toString();
    const b = this.target(m);
    const call = (args: Record<string, unknown>) => send(r, 'update_media_buy', args);
    switch (this.kind) {
      case 'unknown-buy':
        return expectError(what, await call({ idempotency_key: freshKey(r), account: m.accounts[0], media_buy_id: `pc-missing-${r.prefix}`, paused: true }), [
          'MEDIA_BUY_NOT_FOUND',
        ]);
      case 'unknown-package':
        return expectError(
          what,
          await call({
            idempotency_key: freshKey(r),
            account: b!.account,
            media_buy_id: b!.id,
            packages: [{ package_id: `pc-missing-${r.prefix}`, budget: m.baseBudget + 3 }],
          }),
          ['PACKAGE_NOT_FOUND'],
        );
      case 'missing-key':
        // Digest 3.2 rule 1: a mutating request without a key is INVALID_REQUEST (the storyboard also accepts VALIDATION_ERROR).
        return expectError(what, await call({ account: b!.account, media_buy_id: b!.id, canceled: true }), ['INVALID_REQUEST', 'VALIDATION_ERROR']);
      case 'malformed-key':
        return expectError(what, await call({ idempotency_key: 'short!key', account: b!.account, media_buy_id: b!.id, canceled: true }), [
          'INVALID_REQUEST',
          'VALIDATION_ERROR',
        ]);
      case 'invalid-payload': {
        // A schema error under a valid key: never cached (digest 3.2 rules 1, 3), so the key stays free.
        const key = freshKey(r);
        expectError(what, await call({ idempotency_key: key, account: b!.account, media_buy_id: b!.id, paused: 'yes' }), [
          'INVALID_REQUEST',
          'VALIDATION_ERROR',
        ]);
        m.failedKeys.push({ key, accountKey: accountKey(b!.account) });
        return;
      }
    }
  }
  toString(): string {
    return `${this.kind}${this.kind === 'unknown-buy' ? '' : ` buy#${this.buy}`}`;
  }
}

export function isTerminal(b: BuyModel): boolean {
  return TERMINAL.includes(b.status);
}
