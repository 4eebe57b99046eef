/**
 * Test support for the engine: an in-process agent answering from a script (a Transport with no
 * wire). The suites' richer one is suites/testing/scripted-agent.ts; the engine may not import it.
 */
import type { CallOptions, OpenInfo, TaskListReply, TaskReply, Transport, TransportKind } from '../../transport/types.js';

export type Script = (task: string, args: Record<string, unknown>, options: CallOptions) => Partial<TaskReply> | Promise<Partial<TaskReply>>;

export class ScriptedAgent implements Transport {
  readonly endpoint = 'scripted://agent';
  calls: { task: string; args: Record<string, unknown>; options: CallOptions }[] = [];
  constructor(
    readonly kind: TransportKind,
    private readonly script: Script,
  ) {}
  async open(): Promise<OpenInfo> {
    return { transport: this.kind, exchanges: [] };
  }
  async listTasks(): Promise<TaskListReply> {
    return { transport: this.kind, names: ['get_products'], source: 'tools/list', exchanges: [] };
  }
  async call(task: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<TaskReply> {
    this.calls.push({ task, args, options });
    if (options.signal?.aborted) return this.reply(task, { ok: false, failure: { kind: 'aborted', message: 'aborted' } });
    return this.reply(task, await this.script(task, args, options));
  }
  private reply(task: string, r: Partial<TaskReply>): TaskReply {
    return {
      transport: this.kind,
      task,
      ok: true,
      status: 'completed',
      payloadSource: 'content_text',
      isError: false,
      durationMs: 1,
      exchanges: [],
      notes: [],
      ...r,
    };
  }
  async getTask(taskId: string): Promise<TaskReply> {
    return this.reply(taskId, { ok: false, failure: { kind: 'protocol', message: 'no' } });
  }
  stats() {
    return { sessionsOpened: 1, calls: this.calls.length };
  }
  async close() {}
}
