/**
 * Task-level errors (interface spec 7, digest 3.6). A handler throws `TaskFailure`; the model turns
 * it into the error outcome that the transports render (MCP isError text, A2A failed task).
 */

export type Recovery = 'transient' | 'correctable' | 'terminal';

/** The error object of interface spec 7 (`code`, `message`) with the optional fields of digest 3.6. */
export interface ErrorBody {
  code: string;
  message: string;
  /** JSONPath-lite location of the offending field (`packages[0].budget`). */
  field?: string;
  recovery?: Recovery;
  details?: Record<string, unknown>;
  retry_after?: number;
}

export class TaskFailure extends Error {
  constructor(readonly body: ErrorBody) {
    super(`${body.code}: ${body.message}`);
    this.name = 'TaskFailure';
  }
}

/** Bad input: always names the field (digest 3.2 rule 1 / interface spec 7). */
export function invalidRequest(field: string, message: string): TaskFailure {
  return new TaskFailure({ code: 'INVALID_REQUEST', message: `${field}: ${message}`, field, recovery: 'correctable' });
}

export function failure(code: string, message: string, extra: Omit<ErrorBody, 'code' | 'message'> = {}): TaskFailure {
  return new TaskFailure({ code, message, ...extra });
}
