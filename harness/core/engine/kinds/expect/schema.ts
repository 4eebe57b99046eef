/** Expectations that validate payloads against JSON Schemas (fixture files or inline). */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { ExpectationKind, Judgement, SchemaVerdict } from '../types.js';
import { at, OK, PATH_FIELD, payloadOf, short } from './util.js';

export function verdictToJudgement(verdict: SchemaVerdict, what: string, basePointer = ''): Judgement {
  if (verdict.valid) return OK;
  const first = verdict.errors[0];
  const more = verdict.errors.length > 1 ? ` (+${verdict.errors.length - 1} more)` : '';
  return {
    ok: false,
    message: `${what} is not schema-valid: ${basePointer}${first?.pointer ?? ''} ${first?.message ?? ''}${more}`.trim(),
    expected: verdict.errors.map((e) => `${basePointer}${e.pointer} ${e.message} (${e.schemaPath})`),
    pointer: basePointer + (first?.pointer ?? ''),
  };
}

export const schema: ExpectationKind = {
  name: 'schema',
  fields: {
    /** A schema of fixtures/schemas by name; default: the response schema of the reply's task. */
    name: { type: 'string' },
  },
  evaluate(exp, subject, ctx) {
    const payload = payloadOf(subject);
    const task = subject.reply?.task ?? subject.record.task;
    if (exp.name !== undefined) {
      const name = ctx.ids.expand(exp.name as string);
      if (!ctx.schemas.hasSchema(name)) return { ok: false, message: `no schema named ${name}` };
      return withActual(verdictToJudgement(ctx.schemas.validate(name, payload), `the payload (schema ${name})`), payload);
    }
    if (!task || !ctx.schemas.hasTaskSchema(task)) return { ok: false, message: `no response schema for task ${task ?? '(unknown)'}` };
    return withActual(verdictToJudgement(ctx.schemas.validateTaskResponse(task, payload), `the ${task} response`), payload);
  },
};

function withActual(j: Judgement, payload: unknown): Judgement {
  return j.ok ? j : { ...j, actual: payload };
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const inlineCache = new Map<string, ValidateFunction>();

export function compileInline(schemaDef: object): ValidateFunction {
  const key = JSON.stringify(schemaDef);
  let fn = inlineCache.get(key);
  if (!fn) {
    fn = ajv.compile(schemaDef);
    inlineCache.set(key, fn);
  }
  return fn;
}

/** The value at `path` satisfies an inline JSON Schema written in the suite. */
export const matches: ExpectationKind = {
  name: 'matches',
  fields: { path: PATH_FIELD, schema: { type: 'object' }, description: { type: 'string' } },
  required: ['schema'],
  evaluate(exp, subject, ctx) {
    const r = at(payloadOf(subject), exp.path as string | string[] | undefined, ctx);
    if (!r.found)
      return { ok: false, message: `${r.pointer || '(payload)'} is missing`, expected: exp.description ?? exp.schema, actual: 'absent', pointer: r.pointer };
    const fn = compileInline(exp.schema as object);
    if (fn(r.value)) return OK;
    const errors = (fn.errors ?? []).map((e) => ({ pointer: e.instancePath, message: e.message ?? e.keyword, keyword: e.keyword, schemaPath: e.schemaPath }));
    const j = verdictToJudgement({ valid: false, errors }, (exp.description as string | undefined) ?? (r.pointer || 'the payload'), r.pointer);
    return { ...j, message: `${j.message}; it is ${short(r.value)}`, actual: r.value };
  },
};
