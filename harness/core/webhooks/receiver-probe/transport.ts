/**
 * Receiver-only runs (`run --receiver URL` without `--agent`): there is no agent to call, only a
 * buyer's webhook receiver to certify. The engine still iterates transports; here a transport
 * stands for the webhook envelope the harness sends (MCP envelope / A2A envelope), so the
 * webhook-receiver results sit side by side exactly as with an agent. Any task call fails
 * with a clear protocol failure; only suites that need no agent may run (RECEIVER_ONLY_SUITES).
 */
import { noTaskReply } from '../../transport/reply.js';
import type { OpenInfo, TaskListReply, TaskReply, Transport, TransportKind, TransportStats } from '../../transport/types.js';

/** Suites that run without an agent. */
export const RECEIVER_ONLY_SUITES: readonly string[] = ['webhook-receiver'];

const NO_AGENT = 'receiver-only run: there is no agent to call (give --agent URL to certify an agent too)';

export class ReceiverOnlyTransport implements Transport {
  constructor(
    readonly kind: TransportKind,
    /** The receiver under test. */
    readonly endpoint: string,
  ) {}

  async open(): Promise<OpenInfo> {
    return { transport: this.kind, exchanges: [], serverName: 'webhook receiver (no agent)' };
  }

  async listTasks(): Promise<TaskListReply> {
    return { transport: this.kind, names: [], source: this.kind === 'mcp' ? 'tools/list' : 'agent_card', exchanges: [] };
  }

  async call(task: string): Promise<TaskReply> {
    return noTaskReply(this.kind, task, NO_AGENT);
  }

  getTask(taskId: string): Promise<TaskReply> {
    return this.call(`tasks/get ${taskId}`);
  }

  stats(): TransportStats {
    return { sessionsOpened: 0, calls: 0 };
  }

  async close(): Promise<void> {}
}
