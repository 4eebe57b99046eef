/**
 * Seller-driven transitions forced through the sandbox test controller (digest 4.6,
 * force_media_buy_status), for agents that offer it: completion, rejection, start of flight, and
 * the refusals of the production rules (INVALID_TRANSITION). The spec says nothing of revision on
 * a seller-driven move, so the model takes it from a read afterwards (never lower than before).
 */
import { type ForcedStatus, type ModelState, predictForce } from './media-buy-model.js';
import type { Cmd } from './execute.js';
import { expectBuy, expectSuccess, ModelViolation, payloadOf, statusOf } from './reply-checks.js';
import { type RealRun, send } from './run-state.js';
import { short } from '../judge.js';

export class ForceCmd implements Cmd {
  constructor(
    readonly buy: number,
    readonly target: ForcedStatus,
  ) {}
  check(m: Readonly<ModelState>): boolean {
    const b = m.buys.length === 0 ? undefined : m.buys[this.buy % m.buys.length];
    return m.controller && b !== undefined && predictForce(b.status, this.target) !== undefined;
  }
  async run(m: ModelState, r: RealRun): Promise<void> {
    const what = this.toString();
    const b = m.buys[this.buy % m.buys.length]!;
    const expected = predictForce(b.status, this.target)!;
    const reply = await send(r, 'comply_test_controller', {
      scenario: 'force_media_buy_status',
      account: { ...b.account, sandbox: true },
      params: { media_buy_id: b.id, status: this.target },
    });
    const body = payloadOf(reply);
    if (expected === 'INVALID_TRANSITION') {
      const code = reply.error?.code ?? (body.success === false ? body.error : undefined);
      if (code !== 'INVALID_TRANSITION')
        throw new ModelViolation(
          `${what}: forcing ${b.status} → ${this.target} must be INVALID_TRANSITION (digest 4.6), got ${short(reply.error ?? body, 200)}`,
        );
      return;
    }
    if (!reply.ok || body.success !== true)
      throw new ModelViolation(`${what}: forcing ${b.status} → ${this.target} was not done: ${short(reply.error ?? body, 200)}`);
    const read = expectSuccess(`${what}: get_media_buys after the force`, await send(r, 'get_media_buys', { account: b.account, media_buy_ids: [b.id] }));
    const found = ((read.media_buys as Record<string, unknown>[] | undefined) ?? []).find((x) => x?.media_buy_id === b.id);
    if (!found) throw new ModelViolation(`${what}: get_media_buys no longer lists ${b.id}`);
    const status = statusOf(what, found);
    if (status !== this.target) throw new ModelViolation(`${what}: after forcing ${this.target} the buy reads as ${JSON.stringify(status)}`);
    // A 3.0 read may leave revision out (required on reads from 3.1, digest 4.5).
    const revision = found.revision === undefined && m.line === '3.0' ? b.revision : found.revision;
    if (typeof revision !== 'number' || revision < b.revision)
      throw new ModelViolation(`${what}: revision ${JSON.stringify(revision)} after a forced move, it was ${b.revision}`);
    expectBuy(what, found, this.target, revision, m, 'read');
    b.status = this.target;
    b.revision = revision;
  }
  toString(): string {
    return `force ${this.target} buy#${this.buy}`;
  }
}
