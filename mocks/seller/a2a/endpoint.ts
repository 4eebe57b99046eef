/**
 * The A2A endpoint (/a2a, JSON-RPC, A2A v0.3 wire shapes through the SDK's legacy-compat layer)
 * and the public agent card (/.well-known/agent-card.json) whose `url` is the /a2a endpoint and
 * whose `skills[].id` are the task names. Built on @a2a-js/sdk's express integration.
 */
import express from 'express';
import { type AgentCard, TaskState } from '@a2a-js/sdk';
import { DefaultRequestHandler } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import type { Request } from 'express';
import type { SellerModel } from '../domain/model.js';
import type { CallerContext } from '../domain/task-def.js';
import { type RouteContext, sendJson } from '../http/server.js';
import { type AsyncTaskLink, SellerExecutor, SellerUser } from './executor.js';
import { dataPart, resultArtifact } from './parts.js';
import { BoundedTaskStore } from './task-store.js';

const MAX_LINKS = 5_000;

export interface A2aEndpointOptions {
  name: string;
  version: string;
  baseUrl: string;
  a2aUrl: string;
  bearerRequired: boolean;
}

type SellerRequest = Request & { sellerCaller?: CallerContext };

const STATE_OF: Record<string, TaskState> = {
  working: TaskState.TASK_STATE_WORKING,
  'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
};

export class A2aEndpoint {
  private readonly app: express.Express;
  private readonly store = new BoundedTaskStore();
  /** Domain async task (principal + task_id) → the A2A task that answered it. */
  private readonly links = new Map<string, AsyncTaskLink>();
  private readonly unsubscribe: () => void;

  constructor(model: SellerModel, opts: A2aEndpointOptions) {
    const card = buildAgentCard(model, opts);
    // The card says push notifications are supported: a push registration in message/send
    // (configuration.pushNotificationConfig) gets signed A2A-envelope webhooks from the seller's own
    // webhook service. The SDK's handler is told otherwise, so it never posts unsigned pushes of its
    // own nor keeps configs nothing would fire (tasks/pushNotificationConfig/* are not offered).
    const handlerCard: AgentCard = { ...card, capabilities: { ...card.capabilities!, pushNotifications: false } };
    const executor = new SellerExecutor(model, (principal, taskId, link) => {
      this.links.set(`${principal}\u0000${taskId}`, link);
      while (this.links.size > MAX_LINKS) this.links.delete(this.links.keys().next().value as string);
    });
    const handler = new DefaultRequestHandler(handlerCard, this.store, executor, undefined, undefined, undefined, undefined, undefined, {
      keepBusAliveStates: [],
    });
    const userBuilder = async (req: Request) => {
      const caller = (req as SellerRequest).sellerCaller ?? { principal: 'anonymous', transport: 'a2a' as const };
      const body = req.body as { params?: { configuration?: { pushNotificationConfig?: unknown } } } | undefined;
      return new SellerUser(caller, body?.params?.configuration?.pushNotificationConfig);
    };
    this.app = express();
    this.app.disable('x-powered-by');
    this.app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card, legacyCompat: { enabled: true } }));
    this.app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder, legacyCompat: { enabled: true } }));
    this.unsubscribe = model.services.events.on('task.status_changed', (event) => this.reflect(event.task));
  }

  /** Serves a request the seller's HTTP layer already read (body parsed, caller authenticated). */
  handle(ctx: RouteContext): Promise<void> {
    const req = ctx.req as SellerRequest;
    req.body = ctx.json;
    req.sellerCaller = ctx.caller;
    return new Promise<void>((resolve) => {
      ctx.res.once('close', () => resolve());
      ctx.res.once('finish', () => resolve());
      this.app(req, ctx.res as express.Response, () => {
        sendJson(ctx.res, 404, { error: 'not_found' });
        resolve();
      });
    });
  }

  close(): void {
    this.unsubscribe();
  }

  /** Moves the A2A task that answered an async domain task when that task changes status. */
  private reflect(task: { principal: string; task_id: string; status: string; result?: unknown; updated_at: string }): void {
    const link = this.links.get(`${task.principal}\u0000${task.task_id}`);
    const state = STATE_OF[task.status];
    if (!link || state === undefined) return;
    this.store.update(link.owner, link.a2aTaskId, (t) => ({
      ...t,
      status: { state, message: undefined, timestamp: task.updated_at },
      artifacts: task.status === 'completed' && task.result !== undefined ? [resultArtifact([dataPart(task.result)])] : t.artifacts,
    }));
  }
}

function buildAgentCard(model: SellerModel, opts: A2aEndpointOptions): AgentCard {
  const skills = model.describeTasks().map((t) => ({
    id: t.name,
    name: t.name,
    description: t.description,
    tags: [t.name.split('_').slice(-1)[0]],
    examples: [],
    inputModes: ['application/json'],
    outputModes: ['application/json'],
    securityRequirements: [],
  }));
  return {
    name: opts.name,
    description: 'Reference sandbox seller of proto-comply: media buying, creative, signals, governance and brand tasks.',
    supportedInterfaces: [{ url: opts.a2aUrl, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' }],
    provider: { organization: 'proto-comply', url: opts.baseUrl },
    version: opts.version,
    capabilities: { streaming: false, pushNotifications: true, extensions: [] },
    securitySchemes: opts.bearerRequired
      ? { bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'Bearer access token', scheme: 'Bearer', bearerFormat: '' } } } }
      : {},
    securityRequirements: opts.bearerRequired ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills,
    signatures: [],
  };
}
