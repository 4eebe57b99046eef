/**
 * Finding the protocol's error object (`{code, message}`) in a reply, wherever the agent put it:
 * the object itself, a `<token>_error` member, or the first entry of an `errors[]` array.
 */
import { isObject } from './jsonrpc.js';
import type { TaskError, TaskStatus } from './types.js';

export type ErrorShape = 'self' | 'member' | 'errors';

export interface FoundError {
  code: string;
  message: string;
  raw: unknown;
  shape: ErrorShape;
}

function asError(x: unknown): { code: string; message: string } | undefined {
  if (!isObject(x)) return undefined;
  const code = typeof x.code === 'string' ? x.code : typeof x.code === 'number' ? String(x.code) : undefined;
  if (code === undefined) return undefined;
  return { code, message: typeof x.message === 'string' ? x.message : '' };
}

/**
 * Look for an error object in `value`: the `<token>_error` member, then `errors[0]`, then (when
 * `allowSelf`, i.e. the reply is known to be an error) the value itself.
 */
export function findError(value: unknown, errorMember: string, allowSelf = true): FoundError | undefined {
  if (!isObject(value)) return undefined;
  const member = asError(value[errorMember]);
  if (member) return { ...member, raw: value[errorMember], shape: 'member' };
  if (Array.isArray(value.errors) && value.errors.length > 0) {
    const first = asError(value.errors[0]);
    if (first) return { ...first, raw: value.errors[0], shape: 'errors' };
  }
  if (!allowSelf) return undefined;
  const self = asError(value);
  if (self) return { ...self, raw: value, shape: 'self' };
  return undefined;
}

export function toTaskError(found: FoundError, source: TaskError['source']): TaskError {
  return { code: found.code, message: found.message, source, raw: found.raw };
}

const STATUSES: ReadonlySet<string> = new Set(['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled', 'rejected', 'auth-required']);

export function isTaskStatus(x: unknown): x is Exclude<TaskStatus, 'unknown'> {
  return typeof x === 'string' && STATUSES.has(x);
}
