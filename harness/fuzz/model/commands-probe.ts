/**
 * Commands that only observe or are refused: reads, the account list, and requests the spec
 * names an error for (unknown buy or package, missing or malformed key, invalid payload).
 */
import { accountKey, type BuyModel, type ModelState } from './media-buy-model.js';
import { expectBuy, expectCancellation, expectError, expectRefused, expectSuccess, ModelViolation } from './reply-checks.js';
import type { Cmd } from './execute.js';
import { freshKey, type RealRun, send } from './run-state.js';

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
    expectBuy(what, found[0]!, b.status, b.revision, m, 'read');
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
    const listed = ((body.media_buys as Record<string, unknown>[] | undefined) ?? []).map((x) => x?.media_buy_id);
    const extra = listed.filter((id) => !known.has(id as string));
    if (extra.length > 0)
      throw new ModelViolation(`list: get_media_buys lists ${JSON.stringify(extra)} the model never created (of ${JSON.stringify([...known])})`);
    // And every buy the sequence made in this account (interface spec 4.3: the account's media buys).
    const mine = m.buys.filter((b) => JSON.stringify(b.account) === JSON.stringify(account)).map((b) => b.id);
    const missing = mine.filter((id) => !listed.includes(id));
    if (missing.length > 0)
      throw new ModelViolation(`list: get_media_buys of the account does not list ${JSON.stringify(missing)}, which the sequence created there`);
  }
  toString(): string {
    return 'list';
  }
}

/**
 * Errors the spec names for a bad request, none of which changes anything. An update of an unknown
 * buy or package must be refused (a MUST); which code it carries is the SHOULD of the not-found
 * precedence, judged by the suite's state-machine.not-found.*-code checks, not here.
 */
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
        return expectRefused(what, await call({ idempotency_key: freshKey(r), account: m.accounts[0], media_buy_id: `pc-missing-${r.prefix}`, paused: true }));
      case 'unknown-package':
        return expectRefused(
          what,
          await call({
            idempotency_key: freshKey(r),
            account: b!.account,
            media_buy_id: b!.id,
            packages: [{ package_id: `pc-missing-${r.prefix}`, budget: m.baseBudget + 3 }],
          }),
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
