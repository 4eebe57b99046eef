/**
 * Renders task outcomes as A2A tasks (interface spec 6.2, A2A v0.3 shapes after the SDK's
 * translation): completed → `artifacts[0].parts` ending with the payload data part; async →
 * state submitted / input-required with the payload as the first data part of
 * `status.message.parts`; errors → state failed, `{<token>_error: {code, message}}` as the
 * artifact data part and `<CODE>: <message>` as text in `status.message.parts`.
 */
import { randomUUID } from 'node:crypto';
import { type Artifact, type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import type { ProtocolIds } from '../../../harness/core/token.js';
import type { TaskOutcome } from '../domain/task-def.js';

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

export function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export function resultArtifact(parts: Part[]): Artifact {
  return { artifactId: randomUUID(), name: 'result', description: '', parts, metadata: undefined, extensions: [] };
}

const ASYNC_STATE: Record<string, TaskState> = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
};

export function outcomeToTask(outcome: TaskOutcome, ids: { taskId: string; contextId: string }, protocol: ProtocolIds, at: string): Task {
  const base = { id: ids.taskId, contextId: ids.contextId, history: [], metadata: undefined };
  if (outcome.kind === 'completed') {
    return {
      ...base,
      status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: at },
      artifacts: [resultArtifact([dataPart(outcome.payload)])],
    };
  }
  if (outcome.kind === 'async') {
    const message = typeof outcome.payload.message === 'string' ? outcome.payload.message : outcome.status;
    return {
      ...base,
      status: {
        state: ASYNC_STATE[outcome.status],
        message: agentMessage(ids.taskId, ids.contextId, [dataPart(outcome.payload), textPart(message)]),
        timestamp: at,
      },
      artifacts: [],
    };
  }
  const error = outcome.error;
  return {
    ...base,
    status: {
      state: TaskState.TASK_STATE_FAILED,
      message: agentMessage(ids.taskId, ids.contextId, [textPart(`${error.code}: ${error.message}`)]),
      timestamp: at,
    },
    artifacts: [resultArtifact([dataPart({ [protocol.errorMember]: error, ...(outcome.context !== undefined ? { context: outcome.context } : {}) })])],
  };
}
