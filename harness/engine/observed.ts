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
