/**
 * The seller's domain model: one instance per running seller, called by both transports. The
 * dispatch pipeline is: find the task (unknown → INVALID_REQUEST naming it), validate the
 * arguments before anything else, apply idempotency, run, then add the envelope (`sandbox: true`,
 * the request `context` echoed verbatim, `replayed: true` on replays).
 */
import { z } from 'zod';
import type { SellerServices } from './services.js';
import { type ErrorBody, TaskFailure } from './errors.js';
import { IDEMPOTENCY_KEY_PATTERN, keyForLog } from './idempotency.js';
import { buildTasks } from './tasks/index.js';
import { MAJOR_VERSIONS } from './tasks/capabilities.js';
import { A2A_PUSH_FIELD, type CallerContext, type SuccessOutcome, type TaskCall, type TaskDef, type TaskOutcome, isPlainObject } from './task-def.js';
import { accountKeyOf, toValidationFailure } from './validation.js';

export interface ToolDescription {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [k: string]: unknown };
}

export class SellerModel {
  private readonly tasks: Map<string, TaskDef>;
  private descriptions?: ToolDescription[];

  constructor(private readonly s: SellerServices) {
    this.tasks = new Map(buildTasks(s).map((t) => [t.name, t]));
  }

  get services(): SellerServices {
    return this.s;
  }

  taskNames(): string[] {
    return [...this.tasks.keys()];
  }

  /** Name, description and JSON Schema of the input of every task (tools/list, agent card skills). */
  describeTasks(): ToolDescription[] {
    this.descriptions ??= [...this.tasks.values()].map((t) => {
      const { $schema: _ignored, ...schema } = z.toJSONSchema(t.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
      return { name: t.name, description: t.description, inputSchema: { ...schema, type: 'object' } };
    });
    // The buggy seller serves the test controller it declares but leaves it out of tools/list and the agent card.
    // The production-hidden-controller seller serves it on a production deployment, unlisted too.
    const unlisted = this.s.faults.has('controller-not-listed') || this.s.faults.has('controller-served-in-production');
    const listed = unlisted ? this.descriptions.filter((t) => t.name !== 'comply_test_controller') : this.descriptions;
    return structuredClone(listed);
  }

  async dispatch(name: string, rawArgs: unknown, caller: CallerContext): Promise<TaskOutcome> {
    const started = Date.now();
    let outcome = await this.dispatchInner(name, rawArgs ?? {}, caller);
    // Every refusal, however early, echoes the request's context as successes do.
    if (outcome.kind === 'error' && isPlainObject(rawArgs)) outcome = this.withEnvelope(outcome, rawArgs.context);
    // A refusal is a terminal first answer too: no webhook (spec 3.2 rule 1), unless the fault replays it.
    if (outcome.kind === 'error' && isPlainObject(rawArgs) && rawArgs.push_notification_config !== undefined) {
      this.s.webhooks.inlineCompletion({
        principal: caller.principal,
        taskType: name,
        status: 'failed',
        registration: rawArgs.push_notification_config,
        context: rawArgs.context,
        payload: outcome.error,
        at: new Date().toISOString(),
      });
    }
    const key = isPlainObject(rawArgs) && typeof rawArgs.idempotency_key === 'string' ? rawArgs.idempotency_key : undefined;
    const what = outcome.kind === 'error' ? `error ${outcome.error.code}` : outcome.kind === 'async' ? `async ${outcome.status}` : 'ok';
    const replayed = outcome.kind !== 'error' && outcome.payload.replayed === true ? ' (replay)' : '';
    this.s.log(`${caller.transport} ${name} principal=${caller.principal} key=${keyForLog(key)} -> ${what}${replayed} ${Date.now() - started}ms`);
    return outcome;
  }

  private async dispatchInner(name: string, rawArgs: unknown, caller: CallerContext): Promise<TaskOutcome> {
    const def = this.tasks.get(name);
    if (!def) {
      const error = this.unknownTask(name);
      // The buggy seller hands the error object back as an ordinary result (no isError / failed state).
      if (this.s.faults.has('error-without-is-error')) return { kind: 'completed', payload: { ...error } };
      return { kind: 'error', error };
    }
    if (!isPlainObject(rawArgs)) {
      return { kind: 'error', error: { code: 'INVALID_REQUEST', message: 'arguments must be a JSON object', field: '(arguments)', recovery: 'correctable' } };
    }
    const versionRefused = this.refuseMajorVersion(rawArgs);
    if (versionRefused) return { kind: 'error', error: versionRefused };
    // The buggy seller crashes on a push registration sent to a read it cannot register for.
    if (this.s.faults.has('push-config-crashes-sync-task') && def.idempotency === 'read' && rawArgs.push_notification_config !== undefined) {
      throw new Error(`${name} cannot register push_notification_config`);
    }
    // The buggy seller takes $schema for an unknown field (interface spec 4.3: any request may carry it).
    if (this.s.faults.has('schema-url-refused') && rawArgs.$schema !== undefined) {
      return { kind: 'error', error: { code: 'INVALID_REQUEST', message: 'unknown field $schema', recovery: 'correctable' } };
    }
    const parsed = def.schema.safeParse(rawArgs);
    if (!parsed.success) {
      const error = toValidationFailure(parsed.error).body;
      // The buggy seller runs validation under the key, so the rejection is cached (digest 3.2 rule 1).
      if (this.s.faults.has('validation-error-cached')) return this.rejectUnderKey(def, rawArgs, caller, error);
      return { kind: 'error', error };
    }
    const args = parsed.data as Record<string, unknown>;
    const accountKey = accountKeyOf(args.account);
    const call: TaskCall<unknown> = { args, caller, accountKey, clockScope: { principal: caller.principal, account: accountKey } };
    try {
      const key = this.s.idempotency.checkKey(def.idempotency, rawArgs.idempotency_key);
      const execute = () => this.execute(def, call);
      let outcome: TaskOutcome;
      // The buggy seller runs a keyed read afresh every time (digest 3.1: a read carrying a key gets replay semantics).
      if (key === undefined || (def.idempotency === 'read' && this.s.faults.has('read-key-ignored'))) {
        outcome = await execute();
      } else {
        const guarded = await this.s.idempotency.run(
          {
            task: def.name,
            idempotency: def.idempotency,
            createsResource: def.createsResource === true,
            principal: caller.principal,
            accountKey: call.accountKey,
            // An A2A-native registration is part of the request: a changed one under the same key is another payload.
            args: caller.a2a?.pushNotificationConfig !== undefined ? { ...rawArgs, [A2A_PUSH_FIELD]: caller.a2a.pushNotificationConfig } : rawArgs,
          },
          key,
          execute,
        );
        if (guarded.kind === 'error') outcome = { kind: 'error', error: guarded.error };
        else if (guarded.kind === 'fresh') outcome = guarded.outcome;
        else outcome = this.markReplayed(def.renderReplay ? def.renderReplay(guarded.stored, call) : guarded.stored);
      }
      return this.withEnvelope(outcome, rawArgs.context);
    } catch (err) {
      if (err instanceof TaskFailure) return { kind: 'error', error: err.body };
      this.s.log(`internal error in ${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return { kind: 'error', error: { code: 'INTERNAL_ERROR', message: 'internal error in the sandbox seller', recovery: 'transient' } };
    }
  }

  /** The `validation-error-cached` fault: the rejection is answered through the replay cache, which keeps it. */
  private async rejectUnderKey(def: TaskDef, rawArgs: Record<string, unknown>, caller: CallerContext, error: ErrorBody): Promise<TaskOutcome> {
    const key = rawArgs.idempotency_key;
    if (def.idempotency === 'exempt' || typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) return { kind: 'error', error };
    const req = {
      task: def.name,
      idempotency: def.idempotency,
      createsResource: false,
      principal: caller.principal,
      accountKey: accountKeyOf(rawArgs.account),
      args: rawArgs,
    };
    const guarded = await this.s.idempotency.run(req, key, async () => ({ kind: 'error', error }));
    return guarded.kind === 'error' ? guarded : { kind: 'error', error };
  }

  private async execute(def: TaskDef, call: TaskCall<unknown>): Promise<TaskOutcome> {
    try {
      return await def.run(call);
    } catch (err) {
      if (err instanceof TaskFailure) return { kind: 'error', error: err.body };
      throw err;
    }
  }

  /** A request naming a major version (`<token>_major_version`) the seller does not speak: VERSION_UNSUPPORTED. */
  private refuseMajorVersion(rawArgs: Record<string, unknown>): ErrorBody | undefined {
    const field = `${this.s.ids.token}_major_version`;
    const asked = rawArgs[field];
    if (asked === undefined) return undefined;
    if (!Number.isInteger(asked)) return { code: 'INVALID_REQUEST', message: `${field}: expected an integer`, field, recovery: 'correctable' };
    if (MAJOR_VERSIONS.includes(asked as number)) return undefined;
    return {
      code: 'VERSION_UNSUPPORTED',
      message: `${field} ${String(asked)} is not supported; this seller speaks ${MAJOR_VERSIONS.join(', ')}`,
      field,
      recovery: 'correctable',
    };
  }

  /** Unknown tool: INVALID_REQUEST naming the tool (interface spec 7). */
  private unknownTask(name: string): ErrorBody {
    const code = this.s.faults.has('unknown-tool-wrong-code') ? 'NOT_FOUND' : 'INVALID_REQUEST';
    // The buggy seller's message does not say which tool it did not find.
    const message = this.s.faults.has('unknown-tool-unnamed') ? 'unknown tool' : `unknown tool ${JSON.stringify(name)}`;
    return { code, message, recovery: 'correctable' };
  }

  private markReplayed(stored: SuccessOutcome): SuccessOutcome {
    if (this.s.faults.has('replay-not-flagged')) return stored;
    return { ...stored, payload: { ...stored.payload, replayed: true } };
  }

  /** Adds `sandbox: true` and the task `status` on every success and echoes `context` verbatim on every answer, errors included. */
  private withEnvelope(outcome: TaskOutcome, context: unknown): TaskOutcome {
    const echoed = context !== undefined && !this.s.faults.has('context-not-echoed');
    if (outcome.kind === 'error') return echoed ? { ...outcome, context } : outcome;
    // The buggy seller sends the sandbox flag as the string "true" (interface spec 2.5: a boolean).
    const payload: Record<string, unknown> = { ...outcome.payload, sandbox: this.s.faults.has('sandbox-flag-string') ? 'true' : true };
    // The protocol envelope's task status (3.0 core/protocol-envelope.json), flattened into the result as replayed is;
    // a 3.0 media-buy answer's own `status` (the buy's) keeps its place.
    if (outcome.kind === 'completed' && payload.status === undefined) payload.status = 'completed';
    if (echoed) payload.context = context;
    return { ...outcome, payload };
  }
}
