/**
 * Decoding an A2A `message/send` / `tasks/get` result (a Task or a Message, v0.3 shapes, with
 * tolerance for the v1.0 spellings) into the neutral reply fields. Pure: no I/O.
 *
 * Final payload: the last data part of `artifacts[0].parts`. Interim payload: the first data part
 * of `status.message.parts`. Errors: `<token>_error`, `errors[]` or a bare `{code, message}` in the
 * artifact data parts, then status-message data parts, then text parts that parse as JSON.
 */
import { isObject, tryParseJson } from './jsonrpc.js';
import { findError, toTaskError, type FoundError } from './task-error.js';
import type { ReplyFields } from './reply.js';
import type { TaskStatus } from './types.js';

export interface DecodedA2a extends ReplyFields {
  notes: string[];
}

const STATE_MAP: Record<string, TaskStatus> = {
  submitted: 'submitted',
  working: 'working',
  'input-required': 'input-required',
  completed: 'completed',
  failed: 'failed',
  canceled: 'canceled',
  cancelled: 'canceled',
  rejected: 'rejected',
  'auth-required': 'auth-required',
};

/** `completed`, `TASK_STATE_COMPLETED`, `input_required` … → TaskStatus (`unknown` otherwise). */
export function mapA2aState(state: unknown): TaskStatus {
  if (typeof state !== 'string') return 'unknown';
  const key = state
    .trim()
    .replace(/^TASK_STATE_/i, '')
    .toLowerCase()
    .replaceAll('_', '-');
  return STATE_MAP[key] ?? 'unknown';
}

type PartKind = 'data' | 'text' | 'file' | 'unknown';

function partKind(p: unknown): PartKind {
  if (!isObject(p)) return 'unknown';
  if (p.kind === 'data' || (p.kind === undefined && 'data' in p)) return 'data';
  if ((p.kind === 'text' || p.kind === undefined) && typeof p.text === 'string') return 'text';
  if (p.kind === 'file' || (p.kind === undefined && ('file' in p || 'url' in p || 'raw' in p))) return 'file';
  return 'unknown';
}

function partsOf(holder: unknown): unknown[] {
  return isObject(holder) && Array.isArray(holder.parts) ? holder.parts : [];
}

function dataOf(parts: unknown[]): unknown[] {
  return parts.filter((p) => partKind(p) === 'data').map((p) => (p as { data: unknown }).data);
}

function textOf(parts: unknown[]): string[] {
  return parts.filter((p) => partKind(p) === 'text').map((p) => (p as { text: string }).text);
}

interface ErrorHit {
  found: FoundError;
  /** The part content that held it (used as the payload of an error reply). */
  container: unknown;
}

function searchErrors(candidates: unknown[], errorMember: string, allowSelf: boolean): ErrorHit | undefined {
  for (const c of candidates) {
    const found = findError(c, errorMember, allowSelf);
    if (found) return { found, container: c };
  }
  return undefined;
}

function jsonTexts(texts: string[]): unknown[] {
  return texts.flatMap((t) => {
    const parsed = tryParseJson(t);
    return parsed.ok && isObject(parsed.value) ? [parsed.value] : [];
  });
}

function decodeTask(task: Record<string, unknown>, errorMember: string, notes: string[]): DecodedA2a {
  const statusObj = isObject(task.status) ? task.status : undefined;
  if (!statusObj) notes.push('task has no status object');
  const status = mapA2aState(statusObj?.state);
  if (statusObj && status === 'unknown') notes.push(`unrecognised task state ${JSON.stringify(statusObj.state)}`);

  const artifacts = Array.isArray(task.artifacts) ? task.artifacts : [];
  if (artifacts.length > 1) notes.push(`task has ${artifacts.length} artifacts; the payload is read from artifacts[0]`);
  const artifactParts = partsOf(artifacts[0]);
  const allArtifactParts = artifacts.flatMap(partsOf);
  const statusParts = partsOf(statusObj?.message);

  const out: DecodedA2a = { status, payloadSource: 'none', isError: false, notes };
  if (typeof task.id === 'string') out.taskId = task.id;
  else notes.push('task has no string id');
  if (typeof task.contextId === 'string') out.contextId = task.contextId;

  const artifactData = dataOf(artifactParts);
  const statusData = dataOf(statusParts);
  if (artifactData.length > 0) {
    out.payload = artifactData[artifactData.length - 1];
    out.payloadSource = 'artifact';
  } else if (statusData.length > 0) {
    out.payload = statusData[0];
    out.payloadSource = 'status_message';
  }
  const statusTexts = textOf(statusParts);
  if (statusTexts.length > 0) out.text = statusTexts.join('\n');

  const failed = status === 'failed' || status === 'rejected';
  const hit =
    searchErrors(dataOf(allArtifactParts), errorMember, failed) ??
    searchErrors(statusData, errorMember, failed) ??
    searchErrors(jsonTexts([...textOf(allArtifactParts), ...statusTexts]), errorMember, failed);
  if (hit) {
    out.error = toTaskError(hit.found, hit.found.shape === 'errors' ? 'payload_errors' : 'a2a_part');
    if (failed) {
      out.isError = true;
      if (out.payload === undefined) {
        out.payload = hit.container;
        notes.push('error object found in a text part that parses as JSON');
      }
    } else {
      notes.push(`task is ${status} but carries an error object (${hit.found.code})`);
    }
  } else if (failed) {
    notes.push(`task is ${status} but carries no {code, message} error object`);
    // A failed task is the A2A error flag. A data part with only a string `message` is read as a
    // codeless error, as an MCP error text that is not JSON is: the code checks still fail on
    // it, and the message is judged for what it says.
    const codeless = [...dataOf(allArtifactParts), ...statusData].find((d) => isObject(d) && typeof d.message === 'string' && d.code === undefined);
    if (isObject(codeless)) {
      out.isError = true;
      out.error = { code: '', message: String(codeless.message), source: 'a2a_part', raw: codeless };
    }
  }
  if (out.payloadSource === 'none' && !out.isError && status === 'completed') notes.push('completed task has no data part');
  return out;
}

function decodeMessage(message: Record<string, unknown>, errorMember: string, notes: string[]): DecodedA2a {
  notes.push('reply is a Message, not a Task; payload read from its data parts');
  const parts = partsOf(message);
  const data = dataOf(parts);
  const out: DecodedA2a = { status: 'completed', payloadSource: 'none', isError: false, notes };
  if (typeof message.taskId === 'string' && message.taskId !== '') out.taskId = message.taskId;
  if (typeof message.contextId === 'string') out.contextId = message.contextId;
  if (data.length > 0) {
    out.payload = data[data.length - 1];
    out.payloadSource = 'status_message';
  }
  const texts = textOf(parts);
  if (texts.length > 0) out.text = texts.join('\n');
  const hit = searchErrors([...data, ...jsonTexts(texts)], errorMember, false);
  if (hit) {
    out.error = toTaskError(hit.found, hit.found.shape === 'errors' ? 'payload_errors' : 'a2a_part');
    if (hit.found.shape === 'member') {
      out.isError = true;
      out.status = 'failed';
      notes.push(`message carries ${errorMember}; treated as a failed task`);
    }
  }
  return out;
}

/**
 * Decode a JSON-RPC `result`. Returns `undefined` when it is neither a Task nor a Message.
 */
export function decodeA2aResult(result: unknown, errorMember: string): DecodedA2a | undefined {
  const notes: string[] = [];
  if (!isObject(result)) return undefined;
  // v1.0 wraps the union: {task: {...}} or {message: {...}}.
  if (result.kind === undefined && isObject(result.task)) {
    notes.push('result uses the v1.0 {task} wrapper');
    return decodeTask(result.task, errorMember, notes);
  }
  if (result.kind === undefined && isObject(result.message)) {
    notes.push('result uses the v1.0 {message} wrapper');
    return decodeMessage(result.message, errorMember, notes);
  }
  if (result.kind === 'task' || (result.kind === undefined && 'status' in result && 'id' in result)) {
    return decodeTask(result, errorMember, notes);
  }
  if (result.kind === 'message' || (result.kind === undefined && 'messageId' in result && 'parts' in result)) {
    return decodeMessage(result, errorMember, notes);
  }
  return undefined;
}
