/** How a fuzzed call's reply is judged: the reply problems no request may cause, and documented refusals. */
import { judgeErrorWellFormed } from '../core/engine/kinds/expect/reply-status.js';
import type { TaskReply } from '../core/transport/types.js';

/** Codes a seller refuses bad input with: interface spec 7 (INVALID_REQUEST; RATE_LIMITED, retry later) and digest 3.2 rule 1 (VALIDATION_ERROR). */
export const REFUSAL_CODES: ReadonlySet<string> = new Set(['INVALID_REQUEST', 'VALIDATION_ERROR', 'RATE_LIMITED']);

/** A reply that is no task answer at all: a transport error, a 5xx, a non-JSON body, a timeout. */
export function replyProblem(reply: TaskReply): string | undefined {
  const f = reply.failure;
  if (!f) return undefined;
  switch (f.kind) {
    case 'timeout':
      return `no answer in time (${f.message})`;
    case 'http_status':
      return `HTTP ${f.httpStatus ?? '?'} instead of a task answer${f.httpStatus !== undefined && f.httpStatus >= 500 ? ' (a server error)' : ''}: ${f.message}`;
    case 'protocol':
      return `not a JSON-RPC / JSON answer: ${f.message}`;
    default:
      return `transport error (${f.kind}): ${f.message}`;
  }
}

/** Why a refusal is not in the error format of interface spec 7 ({code, message}; on MCP the JSON text of content[0].text); undefined when it is. */
export function refusalShapeProblem(reply: TaskReply): string | undefined {
  const j = judgeErrorWellFormed(reply, true);
  return j.ok ? undefined : (j.message ?? 'the error is not well-formed');
}

/** `text` cut to `max` characters, marked with … when cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function short(value: unknown, max = 300): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
