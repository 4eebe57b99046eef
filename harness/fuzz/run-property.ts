/**
 * Runs one property with fast-check against a live agent: the seed, and for a replay the path of
 * a shrunk counterexample (`endOnFailure`: exactly that case). The last failing call is the
 * shrunk counterexample (fast-check moves to every failing candidate), so its message and wire
 * exchanges are the evidence.
 */
import fc from 'fast-check';
import type { WireExchange } from '../core/transport/types.js';
import type { FuzzContext, FuzzRunOptions, PropertyOutcome } from './property.js';
import type { SentCall } from './wire-log.js';

export interface Verdict {
  /** Undefined: the case holds. */
  violation?: string;
  exchanges?: WireExchange[];
}

export async function checkProperty<T>(o: {
  checkId: string;
  task?: string;
  arbitrary: fc.Arbitrary<T>;
  ctx: FuzzContext;
  opts: FuzzRunOptions;
  predicate: (value: T) => Promise<Verdict>;
}): Promise<PropertyOutcome> {
  let runs = 0;
  let aborted = false;
  let last: Verdict | undefined;
  let lastSent: SentCall[] | undefined;
  const wire = o.ctx.wire;
  // A replay with recorded bodies: the case at the path re-sends them (wire-log.ts).
  if (o.opts.sent?.length && o.opts.path !== undefined) wire?.replay(o.opts.sent);
  const property = fc.asyncProperty(o.arbitrary, async (value) => {
    if (o.ctx.signal.aborted) {
      aborted = true;
      return true;
    }
    runs++;
    o.ctx.onCase?.();
    wire?.begin();
    const verdict = await o.predicate(value);
    if (o.ctx.signal.aborted && verdict.violation) {
      aborted = true;
      return true;
    }
    if (verdict.violation) {
      last = verdict;
      lastSent = wire?.sent()?.slice();
      return false;
    }
    return true;
  });
  const replay = o.opts.path !== undefined;
  const details = await fc.check(property, {
    seed: o.opts.seed,
    numRuns: o.opts.numRuns,
    ...(replay ? { path: o.opts.path, endOnFailure: true } : {}),
  });
  const base = { check_id: o.checkId, task: o.task, runs, seed: o.opts.seed, ...(o.opts.sent?.length && wire ? { diverged: wire.diverged() } : {}) };
  if (details.failed && details.counterexample) {
    return {
      ...base,
      outcome: 'violated',
      path: details.counterexamplePath ?? undefined,
      counterexample: details.counterexample[0],
      message: last?.violation ?? (details.errorInstance instanceof Error ? details.errorInstance.message : 'the property failed'),
      exchanges: last?.exchanges,
      ...(lastSent?.length ? { sent: lastSent } : {}),
    };
  }
  if (aborted)
    return { ...base, outcome: 'gap', gap: 'run budget', not_run: true, message: `the budget ran out after ${runs} case(s), none of them violating the rule` };
  return { ...base, outcome: 'pass', message: `${runs} case(s), none violating the rule` };
}
