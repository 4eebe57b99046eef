/**
 * Test support: an in-process agent that answers from a script (a Transport, no wire), and a run
 * of one built-in check against it through the real engine (profile, check runner, schemas). For
 * rules no fault of the mock seller can break alone; see failing-tests.ts.
 */
import type { CheckResult } from '../../harness/core/engine/result.js';
import { executeRun } from '../../harness/core/engine/run.js';
import { createSchemaValidator } from '../../harness/core/schemas/index.js';
import type { CallOptions, OpenInfo, TaskListReply, TaskReply, Transport, TransportKind } from '../../harness/core/transport/types.js';
import { builtinSuites } from '../index.js';

export type Script = (task: string, args: Record<string, unknown>, options: CallOptions) => Partial<TaskReply> | Promise<Partial<TaskReply>>;

export class ScriptedAgent implements Transport {
  readonly endpoint = 'scripted://agent';
  readonly calls: { task: string; args: Record<string, unknown> }[] = [];

  constructor(
    readonly kind: TransportKind,
    private readonly script: Script,
    private readonly tasks: string[] = [],
  ) {}

  async open(): Promise<OpenInfo> {
    return { transport: this.kind, exchanges: [] };
  }

  async listTasks(): Promise<TaskListReply> {
    return { transport: this.kind, names: [...this.tasks], source: this.kind === 'mcp' ? 'tools/list' : 'agent_card', exchanges: [] };
  }

  async call(task: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<TaskReply> {
    this.calls.push({ task, args });
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
      ...(await this.script(task, args, options)),
    };
  }

  async getTask(taskId: string): Promise<TaskReply> {
    return this.call(taskId, {});
  }

  stats() {
    return { sessionsOpened: 1, calls: this.calls.length };
  }

  async close() {}
}

/** A successful reply carrying `payload`. */
export const answer = (payload: Record<string, unknown>): Partial<TaskReply> => ({ payload });

/** A task error `{code, message}`, as the MCP transport reports an isError reply. */
export const taskError = (code: string, message = `${code} (scripted)`): Partial<TaskReply> => ({
  ok: false,
  isError: true,
  status: 'failed',
  payload: { code, message },
  error: { code, message, source: 'is_error_text', raw: { code, message } },
});

/** Runs one built-in check (by id) against `agent` through the engine, as `certify` would. */
export async function runBuiltinCheck(checkId: string, agent: Transport, opts: { authTokenSet?: boolean } = {}): Promise<CheckResult> {
  const { suites, kinds } = builtinSuites();
  const run = await executeRun({
    agentUrl: agent.endpoint,
    token: 'proto',
    transports: [agent],
    transportExplicit: true,
    suites,
    kinds,
    checkGlob: checkId,
    seed: '20261122',
    concurrency: 1,
    strict: false,
    authTokenSet: opts.authTokenSet ?? false,
    command: 'scripted',
    schemas: createSchemaValidator({ token: 'proto' }),
  });
  const result = run.checks.find((c) => c.check_id === checkId);
  if (!result) throw new Error(`no result for ${checkId}: is it a built-in check id?`);
  return result;
}
