/**
 * Decoding an MCP `tools/call` result into the neutral reply fields. Pure: no I/O.
 *
 * Payload: `result.content[0].text` JSON-encoded (the spec's way) or `result.structuredContent`
 * (real agents often put a prose summary in the text). The text wins when it parses as a JSON
 * object; otherwise structuredContent is used and the text kept in `text`.
 */
import { tooDeepMessage } from './bounded-json.js';
import { isObject, tryParseJson } from './jsonrpc.js';
import { findError, isTaskStatus, toTaskError } from './task-error.js';
import type { PayloadSource, TaskError, TaskStatus } from './types.js';

export interface DecodedToolResult {
  payload?: unknown;
  payloadSource: PayloadSource;
  text?: string;
  isError: boolean;
  error?: TaskError;
  status: TaskStatus;
  taskId?: string;
  contextId?: string;
  errorEnvelope?: Record<string, unknown>;
  notes: string[];
}

const ASYNC_STATUSES: ReadonlySet<TaskStatus> = new Set(['submitted', 'working', 'input-required']);

function firstText(content: unknown, notes: string[]): string | undefined {
  if (!Array.isArray(content)) {
    if (content !== undefined) notes.push('result.content is not an array');
    return undefined;
  }
  const first = content[0];
  if (isObject(first) && first.type === 'text' && typeof first.text === 'string') return first.text;
  const idx = content.findIndex((c) => isObject(c) && c.type === 'text' && typeof c.text === 'string');
  if (idx < 0) return undefined;
  notes.push(`result.content[0] is not a text item; used the text at content[${idx}]`);
  return (content[idx] as { text: string }).text;
}

export function decodeToolResult(result: unknown, errorMember: string): DecodedToolResult {
  const notes: string[] = [];
  if (!isObject(result)) {
    return { payloadSource: 'none', isError: false, status: 'unknown', notes: ['tools/call result is not an object'] };
  }
  const isError = result.isError === true;
  if (result.isError !== undefined && typeof result.isError !== 'boolean') {
    notes.push(`result.isError is ${JSON.stringify(result.isError)}, not a boolean; treated as false`);
  }
  const text = firstText(result.content, notes);
  const structured = result.structuredContent;
  const hasStructured = isObject(structured);
  if (structured !== undefined && !hasStructured) notes.push('result.structuredContent is present but not an object; ignored');

  const parsedText = text === undefined ? undefined : tryParseJson(text);
  const textValue = parsedText?.ok ? parsedText.value : undefined;
  if (parsedText && !parsedText.ok && parsedText.tooDeep) notes.push(tooDeepMessage('content[0].text'));
  const textIsObject = isObject(textValue);

  const out: DecodedToolResult = { payloadSource: 'none', isError, status: isError ? 'failed' : 'completed', notes };
  if (textIsObject) {
    out.payload = textValue;
    out.payloadSource = 'content_text';
    if (hasStructured) notes.push('structuredContent also present; payload read from content[0].text');
  } else if (hasStructured) {
    out.payload = structured;
    out.payloadSource = 'structured_content';
    if (text !== undefined) out.text = text;
    notes.push(
      text === undefined
        ? 'payload from structuredContent; no text content'
        : `payload from structuredContent; content text is ${parsedText?.ok ? 'JSON but not an object' : 'prose'}`,
    );
  } else if (parsedText?.ok) {
    out.payload = textValue;
    out.payloadSource = 'content_text';
    notes.push('content[0].text is JSON but not an object');
  } else if (text !== undefined) {
    out.text = text;
    notes.push('content text is not JSON and there is no structuredContent: no payload');
  } else {
    notes.push('result has no text content and no structuredContent: no payload');
  }

  if (isError) {
    if (hasStructured && out.payloadSource !== 'structured_content') out.errorEnvelope = structured;
    const inText = textIsObject ? findError(textValue, errorMember) : undefined;
    const inStructured = hasStructured ? findError(structured, errorMember) : undefined;
    if (inText) out.error = toTaskError(inText, 'is_error_text');
    else if (inStructured) {
      out.error = toTaskError(inStructured, inStructured.shape === 'errors' ? 'payload_errors' : 'structured_content');
    } else {
      out.error = { code: '', message: text ?? '', source: 'is_error_text', raw: textValue ?? text ?? null };
      notes.push(
        text === undefined
          ? 'isError result carries no text and no error object'
          : textIsObject
            ? 'isError text is JSON but holds no {code, message} error object'
            : 'isError text is not a JSON error object; message kept verbatim, code empty',
      );
    }
    return out;
  }

  // A non-error payload may still carry errors[] or a <token>_error member (partial failure).
  const embedded = findError(out.payload, errorMember, false);
  if (embedded) {
    const source = embedded.shape === 'member' && out.payloadSource === 'structured_content' ? 'structured_content' : 'payload_errors';
    out.error = toTaskError(embedded, source);
    notes.push(`payload carries an error object (${embedded.code}) although isError is not set`);
  }
  if (isObject(out.payload)) {
    const status = out.payload.status;
    const taskId = out.payload.task_id;
    if (isTaskStatus(status) && ASYNC_STATUSES.has(status) && typeof taskId === 'string') {
      out.status = status;
      out.taskId = taskId;
    }
    if (typeof out.payload.context_id === 'string') out.contextId = out.payload.context_id;
  }
  return out;
}
