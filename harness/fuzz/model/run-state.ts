/** The real side of a model run: the transport, the sequence's accounts and its key source. */
import type { TaskReply } from '../../core/transport/types.js';
import type { FuzzContext } from '../property.js';

export interface RealRun {
  ctx: FuzzContext;
  /** Unique per sequence: derived from the seed, a run nonce and the sequence number. */
  prefix: string;
  counter: number;
  /** True when the sequence's accounts are its own (natural keys derived for it): list reads are exact. */
  privateAccounts: boolean;
}

/** A fresh idempotency key (digest 3.1: ^[A-Za-z0-9_.:-]{16,255}$), unique to the run. */
export function freshKey(real: RealRun): string {
  real.counter += 1;
  return `${real.prefix}.${real.counter.toString().padStart(4, '0')}`;
}

/**
 * The sequence's accounts: natural keys derived from the context's (interface spec 2.5a) so runs
 * against a long-lived seller never share buys or keys; an account the agent assigned by id is
 * reused as it is. Two natural keys need not be two accounts (a seller may map several to one, as
 * the setup suite's other_account says): only when sync_accounts showed they are (ctx.distinctKeys)
 * is a derived key the sequence's own account (`private`: a list read then shows only its buys) and
 * a second derived key a second account for the per-account key scope (digest 3.1); otherwise the
 * list read is skipped and the second account is the fixtures' second_account, if any.
 */
export function sequenceAccounts(ctx: FuzzContext, tag: string): { accounts: Record<string, unknown>[]; private: boolean } {
  const a = ctx.account;
  const second = ctx.secondAccount ? [ctx.secondAccount] : [];
  if (typeof a.operator === 'string' && a.brand && typeof a.brand === 'object') {
    const derive = (n: number) => ({ ...a, operator: `fz${tag}${n}.${a.operator}` });
    if (ctx.distinctKeys) return { accounts: [derive(0), derive(1)], private: true };
    return { accounts: [derive(0), ...second], private: false };
  }
  return { accounts: [a, ...second], private: false };
}

/** Thrown when the run's budget ran out mid-sequence: not a disagreement with the model. */
export class RunAborted extends Error {
  override name = 'RunAborted';
}

/** One call of the run; an aborted call ends the sequence as RunAborted. */
export async function send(real: RealRun, task: string, args: Record<string, unknown>): Promise<TaskReply> {
  if (real.ctx.signal.aborted) throw new RunAborted('the run budget ran out');
  const reply = await real.ctx.transport.call(task, args, { signal: real.ctx.signal });
  if (reply.failure?.kind === 'aborted' || real.ctx.signal.aborted) throw new RunAborted('the run budget ran out');
  return reply;
}
