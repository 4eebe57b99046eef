/**
 * Commands that change the model run: creates, updates (pause, resume, cancel, budget), replays,
 * conflicting key reuse, a create under the second account and concurrent same-key creates.
 */
import { accountKey, type BuyModel, cacheKey, type ModelState, type Op, payloadHash, type SentRequest } from './media-buy-model.js';
import { expectBuy, expectConflict, expectSuccess, ModelViolation, statusOf } from './reply-checks.js';
import { CREATE_STATES, type Cmd, createArgs, execute, type KeyChoice, MAX_BUYS, pickKey, plan, updateArgs } from './execute.js';
import { freshKey, type RealRun, send } from './run-state.js';

export class CreateCmd implements Cmd {
  constructor(
    readonly budgetStep: number,
    readonly key: KeyChoice,
    readonly future = false,
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
      createArgs(r, key, account, m.baseBudget + this.budgetStep * 10, this.future),
      { kind: 'create', budget: this.budgetStep, ...(this.future ? { future: true } : {}) },
      m.buys.length,
    );
  }
  toString(): string {
    return `create${this.future ? ' future' : ''} budget+${this.budgetStep * 10} key=${'fresh' in this.key ? 'fresh' : `failed#${this.key.reuseFailed}`}`;
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

/**
 * The same create sent twice at once under one fresh key (digest 3.4): one buy; each reply is
 * that buy (the other flagged replayed) or, from 3.1, IDEMPOTENCY_IN_FLIGHT (at 3.0, any refusal).
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
    // One copy booked and the other refused: the refused one met the key in flight. How it is
    // answered is rule 9's, new in 3.1 (the buy or IDEMPOTENCY_IN_FLIGHT); at 3.0 any refusal stands.
    const refused = replies.filter((x) => x.error && x.error.code !== 'IDEMPOTENCY_IN_FLIGHT');
    const oneBooked = refused.length < replies.length;
    if (oneBooked && refused.length > 0 && m.line !== '3.0')
      throw new ModelViolation(
        `${what}: the copy that met its key in flight must be the buy or IDEMPOTENCY_IN_FLIGHT (digest 3.4 rule 9), got ${refused[0]!.error!.code}: ${refused[0]!.error!.message.slice(0, 160)}`,
      );
    for (const reply of replies) {
      if (reply.error && (reply.error.code === 'IDEMPOTENCY_IN_FLIGHT' || oneBooked)) continue;
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
    expectBuy(what, body, status as BuyModel['status'], 1, m);
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
