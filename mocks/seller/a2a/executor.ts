/**
 * The A2A `AgentExecutor`: reads `{skill, parameters}` from the message's data part (the request
 * convention the harness's A2A transport uses), calls the shared domain model and publishes the
 * task. The two push registrations stay apart (interface spec 6.2: the registration channel decides
 * the envelope): `push_notification_config` in the parameters is the protocol's own (MCP envelope);
 * `params.configuration.pushNotificationConfig` is the A2A-native one (A2A envelope), handed to the
 * model with the A2A task and context ids it belongs to.
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
    const base: CallerContext = user instanceof SellerUser ? user.caller : { principal: 'anonymous', transport: 'a2a' };
    const native = user instanceof SellerUser ? user.pushConfig : undefined;
    const caller: CallerContext = {
      ...base,
      a2a: { taskId: ctx.taskId, contextId: ctx.contextId, ...(native !== undefined && native !== null ? { pushNotificationConfig: native } : {}) },
    };
    const call = readSkillCall(ctx.userMessage);
    const outcome: TaskOutcome = call.ok ? await this.model.dispatch(call.skill, call.args, caller) : call.outcome;
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
