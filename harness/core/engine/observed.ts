/**
 * Every task reply received during a run, per transport, so the schemas suite can grade all of
 * them (not only the ones it asked for itself).
 */
import type { TaskReply, TransportKind } from '../transport/types.js';

export interface Observation {
  checkId: string;
  reply: TaskReply;
  /** The request's top-level `context`, when one was sent. */
  sentContext?: unknown;
}

export class ObservedReplies {
  private readonly byTransport = new Map<TransportKind, Observation[]>();
  /** Bound so a long run cannot grow memory without limit. */
  constructor(private readonly maxPerTransport = 5000) {}

  add(transport: TransportKind, observation: Observation): void {
    let list = this.byTransport.get(transport);
    if (!list) this.byTransport.set(transport, (list = []));
    if (list.length < this.maxPerTransport) list.push(observation);
  }

  all(transport: TransportKind): readonly Observation[] {
    return this.byTransport.get(transport) ?? [];
  }

  forTask(transport: TransportKind, task: string): Observation[] {
    return this.all(transport).filter((o) => o.reply.task === task);
  }
}

/**
 * Observations by the id of the check that made them (then in arrival order): what a step that
 * grades observed replies reports first does not depend on which concurrent check ran first, so
 * reruns give the same message.
 */
export function inCheckOrder(list: readonly Observation[]): Observation[] {
  return list
    .map((o, i) => [o, i] as const)
    .sort(([a, i], [b, j]) => (a.checkId < b.checkId ? -1 : a.checkId > b.checkId ? 1 : i - j))
    .map(([o]) => o);
}
