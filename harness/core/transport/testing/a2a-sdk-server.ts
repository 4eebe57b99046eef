/**
 * Test-only A2A agent built on the official SDK (`DefaultRequestHandler` + express JSON-RPC with
 * the v0.3 legacy-compat layer), on loopback with an ephemeral port.
 *
 * Skills (named by the data part's `skill`):
 * - `get_products`: completed task, data artifact `{products}`, text status message
 * - `fail_task`: failed task whose artifact holds `<token>_error` plus a text status message
 * - `slow_task`: answers `working`; completes on the second `tasks/get` of that task
 * - `message_reply`: answers with a Message (no task)
 * - anything else: completed task echoing `{skill, parameters}`
 */
import type { AddressInfo } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import express, { type Request, type Response } from 'express';
import { Role, TaskState, type Part } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ServerCallContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { protocolIds } from '../../token.js';

type Task = Parameters<typeof AgentEvent.task>[0];
type Message = Task['history'][number];

export interface A2aTestServer {
  /** Origin (`http://127.0.0.1:<port>`). */
  base: string;
  /** JSON-RPC endpoint announced in the card. */
  rpcUrl: string;
  /** Raw JSON-RPC request bodies received at the endpoint. */
  rpcBodies: unknown[];
  /** Request headers received at the endpoint. */
  rpcHeaders: Array<Record<string, string | string[] | undefined>>;
  close(): Promise<void>;
}

export const A2A_PRODUCTS = { products: [{ product_id: 'p1', name: 'Premium CTV' }] };

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: '' };
}
function textPart(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' };
}
function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return {
    messageId: `m-${Math.random().toString(16).slice(2)}`,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
function task(id: string, contextId: string, state: TaskState, artifactParts: Part[], statusParts: Part[] = []): Task {
  return {
    id,
    contextId,
    status: {
      state,
      timestamp: new Date().toISOString(),
      message: statusParts.length > 0 ? agentMessage(id, contextId, statusParts) : undefined,
    },
    artifacts:
      artifactParts.length > 0 ? [{ artifactId: `a-${id}`, name: 'result', description: '', parts: artifactParts, metadata: undefined, extensions: [] }] : [],
    history: [],
    metadata: undefined,
  };
}

export async function startA2aServer(opts: { token?: string } = {}): Promise<A2aTestServer> {
  const ids = protocolIds(opts.token ?? 'proto');
  const app = express();
  const http: HttpServer = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = http.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const rpcUrl = `${base}/a2a`;
  const store = new InMemoryTaskStore();
  const slow = new Map<string, { ctx: ServerCallContext; contextId: string; polls: number }>();

  const card = {
    name: 'test-a2a-seller',
    description: 'A2A test agent',
    version: '7.7.7',
    supportedInterfaces: [{ url: rpcUrl, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' }],
    provider: undefined,
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: ['get_products', 'fail_task', 'slow_task', 'message_reply', 'echo'].map((id) => ({
      id,
      name: id,
      description: id,
      tags: [],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
    signatures: [],
  } as unknown as ConstructorParameters<typeof DefaultRequestHandler>[0];

  const executor: AgentExecutor = {
    async execute(rc, bus) {
      const first = rc.userMessage.parts[0]?.content;
      const data = first?.$case === 'data' ? (first.value as { skill?: string; parameters?: unknown }) : {};
      const { taskId, contextId } = rc;
      switch (data.skill) {
        case 'get_products':
          bus.publish(AgentEvent.task(task(taskId, contextId, TaskState.TASK_STATE_COMPLETED, [dataPart(A2A_PRODUCTS)], [textPart('1 product')])));
          break;
        case 'fail_task':
          bus.publish(
            AgentEvent.task(
              task(
                taskId,
                contextId,
                TaskState.TASK_STATE_FAILED,
                [dataPart({ [ids.errorMember]: { code: 'INVALID_REQUEST', message: 'brief is required' } })],
                [textPart('INVALID_REQUEST: brief is required')],
              ),
            ),
          );
          break;
        case 'slow_task':
          slow.set(taskId, { ctx: rc.context, contextId, polls: 0 });
          bus.publish(AgentEvent.task(task(taskId, contextId, TaskState.TASK_STATE_WORKING, [], [dataPart({ percentage: 10 })])));
          break;
        case 'message_reply':
          bus.publish(AgentEvent.message(agentMessage('', contextId, [textPart('hello'), dataPart({ greeting: 'hi' })])));
          break;
        default:
          bus.publish(AgentEvent.task(task(taskId, contextId, TaskState.TASK_STATE_COMPLETED, [dataPart({ skill: data.skill, parameters: data.parameters })])));
      }
      bus.finished();
    },
    async cancelTask() {},
  };

  const handler = new DefaultRequestHandler(card, store, executor);
  const rpcBodies: unknown[] = [];
  const rpcHeaders: A2aTestServer['rpcHeaders'] = [];
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  app.use(
    '/a2a',
    express.json(),
    async (req: Request, _res: Response, next) => {
      rpcBodies.push(req.body);
      rpcHeaders.push({ ...req.headers });
      // A slow task finishes in the background: on its second poll the store holds the result.
      if (req.body?.method === 'tasks/get') {
        const id = req.body?.params?.id as string;
        const entry = slow.get(id);
        if (entry && ++entry.polls === 2) {
          await store.save(task(id, entry.contextId, TaskState.TASK_STATE_COMPLETED, [dataPart({ media_buy_id: 'mb-1' })]), entry.ctx);
        }
      }
      next();
    },
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }),
  );

  return {
    base,
    rpcUrl,
    rpcBodies,
    rpcHeaders,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
