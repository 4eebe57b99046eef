/**
 * Webhook POST bodies in the A2A envelope (interface spec 6.2, digest 5.2), sent only to an
 * A2A-native registration (`configuration.pushNotificationConfig` of the A2A call): a native
 * `Task` for a final state, with the full result as the last data part of `artifacts[0].parts`,
 * or a `TaskStatusUpdateEvent` for progress, with the interim data as the first data part of
 * `status.message.parts`. `id` / `taskId` and `contextId` are those of the A2A task that answered
 * the call; the event's `idempotency_key` and the registration's `operation_id` travel in
 * `metadata` (the envelope has no top-level members of its own for them). Shapes are A2A v0.3
 * JSON, the wire version the mock's A2A endpoint speaks. Built once per event, like the MCP
 * envelope, and re-sent unchanged on retries.
 */
import { randomUUID } from 'node:crypto';
import type { A2aPushRecord, AsyncTaskRecord } from '../../domain/async-task-record.js';
import type { FaultSet } from '../../faults.js';
import type { WebhookRegistration } from '../registration.js';
import { type Envelope, taskResult } from './mcp.js';

const FINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);

function metadata(task: AsyncTaskRecord, reg: WebhookRegistration): Record<string, unknown> {
  return {
    idempotency_key: randomUUID(),
    operation_id: reg.operation_id,
    task_type: task.task_type,
    ...(reg.token !== undefined ? { token: reg.token } : {}),
  };
}

function textPart(text: string) {
  return { kind: 'text', text };
}

function dataPart(data: unknown) {
  return { kind: 'data', data };
}

function agentMessage(link: A2aPushRecord, parts: unknown[]) {
  return { kind: 'message', role: 'agent', messageId: randomUUID(), taskId: link.task_id, contextId: link.context_id, parts };
}

/** The A2A envelope of an async task's status change (interface spec 6.2). */
export function a2aTaskEnvelope(task: AsyncTaskRecord, link: A2aPushRecord, status: string, at: string, reg: WebhookRegistration, faults: FaultSet): Envelope {
  const result = taskResult(task, status) ?? {};
  const text = task.message && status !== 'completed' ? task.message : `task ${task.task_id} is ${status}`;
  if (!FINAL.has(status)) {
    return {
      kind: 'status-update',
      taskId: link.task_id,
      contextId: link.context_id,
      status: { state: status, timestamp: at, message: agentMessage(link, [dataPart(result), textPart(text)]) },
      final: false,
      metadata: metadata(task, reg),
    };
  }
  // Fault: the final result sits where interim data goes (status.message), not in artifacts[0].
  const misplaced = faults.has('webhook-a2a-result-misplaced');
  return {
    kind: 'task',
    id: link.task_id,
    contextId: link.context_id,
    status: {
      state: status,
      timestamp: at,
      ...(misplaced ? { message: agentMessage(link, [dataPart(result), textPart(text)]) } : {}),
    },
    artifacts: misplaced ? [] : [{ artifactId: randomUUID(), name: 'result', parts: [textPart(text), dataPart(result)] }],
    history: [],
    metadata: metadata(task, reg),
  };
}
