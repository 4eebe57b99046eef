/** Expectations on how the agent answered: success, task error, refusal, crash. */
import type { TaskReply } from '../../../transport/types.js';
import type { ExpectationKind, Judgement } from '../types.js';
import { describeReply } from '../types.js';
import { OK, short } from './util.js';

export const success: ExpectationKind = {
  name: 'success',
  fields: {
    /** Task statuses accepted (default: any non-error reply). */
    statuses: { type: 'array', items: { type: 'string' }, minItems: 1 },
  },
  evaluate(exp, subject) {
    const r = subject.reply;
    if (!r) return { ok: false, message: 'no reply to judge' };
    if (!r.ok || r.isError) {
      return { ok: false, message: `expected a successful reply, got ${describeReply(r)}`, expected: 'success', actual: r.error ?? r.failure ?? r.status };
    }
    const statuses = exp.statuses as string[] | undefined;
    if (statuses && !statuses.includes(r.status)) {
      return { ok: false, message: `expected task status ${statuses.join(' or ')}, got ${r.status}`, expected: statuses, actual: r.status };
    }
    return OK;
  },
};

export const errorCode: ExpectationKind = {
  name: 'error_code',
  fields: {
    allowed_codes: { type: 'array', items: { type: 'string' }, minItems: 1 },
    /** Text the error message must contain (templates allowed). */
    message_contains: { type: 'string' },
  },
  required: ['allowed_codes'],
  evaluate(exp, subject, ctx) {
    const r = subject.reply;
    const allowed = exp.allowed_codes as string[];
    if (!r) return { ok: false, message: 'no reply to judge' };
    if (!r.error) {
      return {
        ok: false,
        message: `expected error ${allowed.join(' or ')}, got ${describeReply(r)}`,
        expected: { code: allowed },
        actual: r.failure ?? { status: r.status, payload: r.payload },
      };
    }
    if (!allowed.includes(r.error.code)) {
      return {
        ok: false,
        message: `expected error code ${allowed.join(' or ')}, got ${r.error.code ? r.error.code : '(no code)'}`,
        expected: allowed,
        actual: r.error.raw,
        pointer: '/code',
      };
    }
    if (exp.message_contains !== undefined) {
      const needle = String(ctx.expand(exp.message_contains));
      if (!r.error.message.includes(needle)) {
        return {
          ok: false,
          message: `error message does not name ${short(needle)}`,
          expected: { message_contains: needle },
          actual: r.error.message,
          pointer: '/message',
        };
      }
    }
    return OK;
  },
};

export const isError: ExpectationKind = {
  name: 'is_error',
  fields: {},
  evaluate(_exp, subject) {
    const r = subject.reply;
    if (!r) return { ok: false, message: 'no reply to judge' };
    if (r.failure) return { ok: false, message: `expected a task error reply, got ${describeReply(r)}`, expected: { isError: true }, actual: r.failure };
    // No error object at all: the request was not refused.
    if (!r.isError && !r.error)
      return { ok: false, message: `expected a refusal, got ${describeReply(r)}`, expected: { isError: true }, actual: { isError: false, status: r.status } };
    if (!r.isError) {
      return {
        ok: false,
        message: r.transport === 'mcp' ? 'the error reply is not marked isError: true' : 'the error reply is not a failed task',
        expected: { isError: true },
        actual: { isError: false, status: r.status, payload: r.payload },
        pointer: r.transport === 'mcp' ? '/result/isError' : '/result/status/state',
      };
    }
    return OK;
  },
};

export const errorWellFormed: ExpectationKind = {
  name: 'error_well_formed',
  fields: {
    /** MCP: the error must be the JSON text of content[0].text, as the spec says. */
    json_text: { type: 'boolean' },
  },
  evaluate(exp, subject) {
    const r = subject.reply;
    if (!r) return { ok: false, message: 'no reply to judge' };
    return judgeErrorWellFormed(r, exp.json_text === true);
  },
};

/**
 * The error object of a reply is `{code, message}` (string code of 1-64 characters, string
 * message) and, with `jsonText` on MCP, the JSON text of content[0].text (interface spec 7). The
 * format is judged even when the agent forgot the error flag (is_error judges the flag).
 */
export function judgeErrorWellFormed(r: TaskReply, jsonText: boolean): Judgement {
  const flagless = !r.error && !r.failure && r.payloadSource !== 'none' ? errorLike(r.payload) : undefined;
  if (!r.error && !flagless) return { ok: false, message: `expected an error object {code, message}, got ${describeReply(r)}` };
  const raw = (r.error ? r.error.raw : r.payload) as Record<string, unknown> | undefined;
  const code = raw && typeof raw === 'object' ? raw.code : undefined;
  const message = raw && typeof raw === 'object' ? raw.message : undefined;
  if (typeof code !== 'string' || code.length < 1 || code.length > 64 || typeof message !== 'string') {
    return {
      ok: false,
      message: 'the error is not a JSON object with string code (1-64 chars) and string message',
      expected: { code: 'string', message: 'string' },
      actual: raw,
    };
  }
  if (jsonText && r.transport === 'mcp' && r.error && r.error.source !== 'is_error_text') {
    return {
      ok: false,
      message: `the error object is not the JSON text of content[0].text (found in ${r.error.source})`,
      expected: 'content[0].text = JSON {code, message}',
      actual: r.error?.source,
      pointer: '/result/content/0/text',
    };
  }
  return OK;
}

export const errorMessage: ExpectationKind = {
  name: 'error_message',
  fields: { contains: { type: 'string', minLength: 1 } },
  required: ['contains'],
  evaluate(exp, subject, ctx) {
    const r = subject.reply;
    if (!r) return { ok: false, message: 'no reply to judge' };
    const message = r.error?.message ?? errorLike(r.payload)?.message;
    if (message === undefined) return { ok: false, message: `expected an error message, got ${describeReply(r)}`, actual: r.payload ?? r.failure };
    const needle = String(ctx.expand(exp.contains));
    if (!message.includes(needle)) {
      return { ok: false, message: `the error message does not name ${short(needle)}`, expected: { contains: needle }, actual: message, pointer: '/message' };
    }
    return OK;
  },
};

/** A payload that is an error object sent without the error flag. */
function errorLike(payload: unknown): { code: string; message: string } | undefined {
  if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
    const p = payload as Record<string, unknown>;
    if (typeof p.code === 'string' && typeof p.message === 'string') return { code: p.code, message: p.message };
  }
  return undefined;
}

export const authRefused: ExpectationKind = {
  name: 'auth_refused',
  fields: { allowed_codes: { type: 'array', items: { type: 'string' }, minItems: 1 } },
  evaluate(exp, subject) {
    const r = subject.reply;
    if (!r) return { ok: false, message: 'no reply to judge' };
    return judgeAuthRefused(r, (exp.allowed_codes as string[] | undefined) ?? ['UNAUTHORIZED']);
  },
};

/** A call without valid credentials is refused: HTTP 401 / 403, or a task error with one of `codes` (interface spec 5). */
export function judgeAuthRefused(r: TaskReply, codes: readonly string[] = ['UNAUTHORIZED']): Judgement {
  const status = r.failure?.httpStatus;
  if (r.failure?.kind === 'http_status' && (status === 401 || status === 403)) return OK;
  if (r.error && codes.includes(r.error.code)) return OK;
  if (r.ok && !r.isError) {
    return {
      ok: false,
      message: 'the agent answered the call normally without valid credentials',
      expected: `HTTP 401 or error ${codes.join('/')}`,
      actual: { status: r.status },
    };
  }
  return {
    ok: false,
    message: `expected HTTP 401 or error ${codes.join('/')}, got ${describeReply(r)}`,
    expected: `HTTP 401 or error ${codes.join('/')}`,
    actual: r.error?.raw ?? r.failure,
  };
}

export const wellFormed: ExpectationKind = {
  name: 'well_formed',
  fields: {},
  evaluate(_exp, subject) {
    const r = subject.reply;
    if (!r) return { ok: false, message: 'no reply to judge' };
    return judgeWellFormed(r);
  },
};

/** A task result or a well-formed task error; never a crash, a 5xx or a protocol error. */
export function judgeWellFormed(r: TaskReply): Judgement {
  if (r.failure) return { ok: false, message: `expected a task result or a well-formed task error, got ${describeReply(r)}`, actual: r.failure };
  // A2A: a failed task without a {code, message} object (e.g. an SDK's "Agent execution error"
  // text after a crash) is not flagged isError by the transport, but it is no well-formed error.
  if (r.isError || (r.transport === 'a2a' && r.status === 'failed')) {
    const raw = r.error?.raw as Record<string, unknown> | undefined;
    if (!raw || typeof raw.code !== 'string' || !raw.code || typeof raw.message !== 'string') {
      return {
        ok: false,
        message: `the ${r.isError ? 'error reply' : 'failed task'} is not a well-formed {code, message} object`,
        expected: { code: 'string', message: 'string' },
        actual: r.error?.raw ?? r.payload ?? r.text,
      };
    }
  }
  return OK;
}
