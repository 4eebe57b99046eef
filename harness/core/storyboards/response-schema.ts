/**
 * The schema a storyboard step's `response_schema` validation applies. With a released schema set
 * of the run's target line (`run --schemas`, or found beside the bundle): the set's file the step
 * names in `response_schema_ref` when the set holds it, else the set's schema of the task (an
 * interim reply's own when it has one). Otherwise, or when the set has none for the task, the
 * harness's own schema of the task at the target, saying why. A released schema that cannot be
 * compiled judges nothing: the validation is not applicable, naming the file.
 */
import type { CheckContext } from '../engine/kinds/types.js';
import { releasedFor } from '../engine/kinds/released-schemas.js';
import { SCHEMA_BASE_URI } from '../schemas/loader.js';
import type { StoryboardStep } from './model.js';
import type { SchemaJudgement, StepOutcome } from './validations.js';

export function responseSchemaOf(ctx: Pick<CheckContext, 'schemas' | 'target'>, step: StoryboardStep, o: StepOutcome): SchemaJudgement | undefined {
  if (!o.ok) return undefined;
  const { set, note } = releasedFor(ctx);
  let why = note;
  if (set) {
    const ref = typeof step.raw.response_schema_ref === 'string' ? step.raw.response_schema_ref : undefined;
    try {
      const v = set.validateTaskResponse(step.task, o.payload, ref);
      if (v)
        return {
          valid: v.valid,
          errors: v.errors,
          schema: { set: 'released', id: v.schema.id, file: v.schema.file, line: set.line, version: set.version },
          ...(v.note ? { note: v.note } : {}),
        };
    } catch (e) {
      return { problem: `the released ${set.version} schema of ${step.task} could not be used: ${(e as Error).message}` };
    }
    why = `the released ${set.version} schemas have no response schema of ${step.task}`;
  }
  if (!ctx.schemas.hasTaskSchema(step.task)) return undefined;
  const v = ctx.schemas.validateTaskResponse(step.task, o.payload);
  const name = ctx.schemas.taskSchemaName?.(step.task) ?? `${step.task}-response`;
  return {
    valid: v.valid,
    errors: v.errors,
    schema: { set: 'harness', id: `${SCHEMA_BASE_URI}${name}.json`, file: `${name}.json`, line: ctx.target },
    ...(why ? { note: why } : {}),
  };
}
