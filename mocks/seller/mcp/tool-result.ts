/**
 * Renders a task outcome as an MCP tools/call result: the payload JSON-encoded in
 * `content[0].text` (interface spec 4.2) and mirrored in `structuredContent`; errors as
 * `isError: true` with the `{code, message}` object as JSON text (interface spec 7) and the same
 * object under `<token>_error` in `structuredContent` (digest 3.6).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ProtocolIds } from '../../../harness/core/token.js';
import type { FaultSet } from '../faults.js';
import type { TaskOutcome } from '../domain/task-def.js';

export function toCallToolResult(outcome: TaskOutcome, ids: ProtocolIds, faults: FaultSet): CallToolResult {
  if (outcome.kind !== 'error') {
    return { content: [{ type: 'text', text: JSON.stringify(outcome.payload) }], structuredContent: outcome.payload };
  }
  const error = outcome.error;
  const text = faults.has('error-text-not-json') ? `${error.code}: ${error.message}` : JSON.stringify(error);
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { [ids.errorMember]: error, ...contextOf(outcome) } };
}

function contextOf(outcome: TaskOutcome): { context?: unknown } {
  return outcome.kind === 'error' && outcome.context !== undefined ? { context: outcome.context } : {};
}
