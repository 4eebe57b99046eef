/**
 * The replay window (interface spec 4.4 rule 4): a key older than `replay_ttl_seconds` is
 * IDEMPOTENCY_EXPIRED, never replayed and never executed again. Only for agents whose sandbox test
 * controller offers `advance_clock` (an extension the spec does not define, as
 * idempotency.expiry.expired-key uses it): the clock of the request's account is moved past the
 * window, then the request is sent again exactly.
 *
 * After the clock moved, the model's flight times no longer hold (buys may start or end), so the
 * command ends its sequence: every other command is wrapped by `beforeAging`.
 */
import type { Cmd } from './execute.js';
import { cacheKey, type ModelState, type SentRequest } from './media-buy-model.js';
import { expectError, payloadOf } from './reply-checks.js';
import { type RealRun, send } from './run-state.js';

/** Seconds past the window the clock is moved (the idempotency suite's margin). */
const MARGIN_S = 120;

export function beforeAging(cmd: Cmd): Cmd {
  return {
    check: (m) => !m.aged && cmd.check(m),
    run: (m, r) => cmd.run(m, r),
    toString: () => cmd.toString(),
  };
}

export class ExpiryCmd implements Cmd {
  constructor(readonly index: number) {}
  private pick(m: Readonly<ModelState>): SentRequest | undefined {
    const cached = m.sent.filter((s) => m.cache.has(cacheKey(s.args.account as Record<string, unknown>, s.key)));
    return cached.length === 0 ? undefined : cached[this.index % cached.length];
  }
  check(m: Readonly<ModelState>): boolean {
    return m.idempotency && m.replayTtlS !== undefined && !m.aged && this.pick(m) !== undefined;
  }
  async run(m: ModelState, r: RealRun): Promise<void> {
    const s = this.pick(m)!;
    m.aged = true;
    const what = this.toString();
    const moved = await send(r, 'comply_test_controller', {
      scenario: 'advance_clock',
      account: { ...(s.args.account as Record<string, unknown>), sandbox: true },
      params: { seconds: (m.replayTtlS as number) + MARGIN_S },
    });
    // The extension is not the spec's: a controller that does not move the clock asserts nothing.
    if (!moved.ok || moved.isError || payloadOf(moved).success !== true) return;
    const args = { ...s.args, context: { correlation_id: `${s.key}-expired-${r.counter++}` } };
    expectError(`${what} (${s.task}, ${m.replayTtlS} s window + ${MARGIN_S} s)`, await send(r, s.task, args), ['IDEMPOTENCY_EXPIRED']);
  }
  toString(): string {
    return `expire sent#${this.index}`;
  }
}
