/**
 * The A2A `AgentExecutor`: reads `{skill, parameters}` from the message's data part (the request
 * convention the harness's A2A transport uses), merges a push registration sent in
 * `params.configuration.pushNotificationConfig` into the arguments as `push_notification_config`
 * (interface spec 2.7: identical contents), calls the shared domain model and publishes the task.
 */
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext, type User } from '@a2a-js/sdk/server';
import type { Message } from '@a2a-js/sdk';
import type { SellerModel } from '../domain/model.js';
import type { CallerContext, TaskOutcome } from '../domain/task-def.js';
import { isPlainObject } from '../domain/task-def.js';
import { outcomeToTask } from './parts.js';

/** The authenticated caller as the A2A SDK sees it; `userName` scopes the SDK's task store. */
export class SellerUser implements User {
  constructor(
    readonly caller: CallerContext,
    /** `params.configuration.pushNotificationConfig` exactly as sent (the SDK's translation drops fields). */
    readonly pushConfig: unknown,
  ) {}

  get isAuthenticated(): boolean {
    return this.caller.principal !== 'anonymous';
  }

  get userName(): string {
    return this.caller.principal;
  }
}

export interface AsyncTaskLink {
  owner: string;
  a2aTaskId: string;
  contextId: string;
}

type SkillCall = { ok: true; skill: string; args: Record<string, unknown> } | { ok: false; outcome: TaskOutcome };

function invalid(field: string, message: string): SkillCall {
  return { ok: false, outcome: { kind: 'error', error: { code: 'INVALID_REQUEST', message: `${field}: ${message}`, field, recovery: 'correctable' } } };
}

export function readSkillCall(message: Message): SkillCall {
  for (const part of message.parts) {
    if (part.content?.$case !== 'data') continue;
    const data: unknown = part.content.value;
    if (!isPlainObject(data) || !('skill' in data)) continue;
    if (typeof data.skill !== 'string' || data.skill === '') return invalid('skill', 'must name the task');
    const parameters = data.parameters ?? {};
    if (!isPlainObject(parameters)) return invalid('parameters', 'must be a JSON object');
    return { ok: true, skill: data.skill, args: parameters };
  }
  return invalid('message.parts', 'expected a data part {kind: "data", data: {skill, parameters}}');
}

export class SellerExecutor implements AgentExecutor {
  constructor(
    private readonly model: SellerModel,
    private readonly onAsync: (principal: string, domainTaskId: string, link: AsyncTaskLink) => void,
  ) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const user = ctx.context.user;
    const caller: CallerContext = user instanceof SellerUser ? user.caller : { principal: 'anonymous', transport: 'a2a' };
    const call = readSkillCall(ctx.userMessage);
    let outcome: TaskOutcome;
    if (!call.ok) {
      outcome = call.outcome;
    } else {
      const args = { ...call.args };
      if (user instanceof SellerUser && isPlainObject(user.pushConfig) && args.push_notification_config === undefined) {
        args.push_notification_config = user.pushConfig;
      }
      outcome = await this.model.dispatch(call.skill, args, caller);
    }
    if (outcome.kind === 'async') {
      this.onAsync(caller.principal, outcome.taskId, { owner: caller.principal, a2aTaskId: ctx.taskId, contextId: ctx.contextId });
    }
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    const services = this.model.services;
    bus.publish(AgentEvent.task(outcomeToTask(outcome, ids, services.ids, new Date().toISOString())));
    bus.finished();
  }

  async cancelTask(_taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.finished();
  }
}
