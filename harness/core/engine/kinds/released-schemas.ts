/**
 * The released schema set a check judges with (SchemaChecker.released): the run's set when its
 * protocol line is the target; a set of another line judges nothing, and the check says so.
 */
import type { TaskReply } from '../../transport/types.js';
import type { CheckContext, ReleasedSchemaSet, ReleasedVerdict, StepVerdict } from './types.js';

export function releasedFor(ctx: Pick<CheckContext, 'schemas' | 'target'>): { set?: ReleasedSchemaSet; note?: string } {
  const set = ctx.schemas.released;
  if (!set) return {};
  if (set.line !== ctx.target) return { note: `the released ${set.version} schemas (line ${set.line}) were not applied: the run targets ${ctx.target}` };
  return { set };
}

/** `the released 3.0.6 schema media-buy/get-products-response.json`. */
export const releasedSchemaText = (set: ReleasedSchemaSet, v: Pick<ReleasedVerdict, 'schema'>) => `the released ${set.version} schema ${v.schema.file}`;

/** The first error of a failing verdict with where the schema says so: `/products/0 must have … (core/product.json#/required)`, and how many more. */
export function firstSchemaError(v: ReleasedVerdict): string {
  const e = v.errors[0];
  const more = v.errors.length > 1 ? ` (+${v.errors.length - 1} more)` : '';
  return e ? `${e.pointer || '/'} ${e.message} (${e.schemaPath})${more}` : 'invalid';
}

/**
 * Judges the successful replies one check grades against the released set, when it applies: the
 * first invalid reply fails the check, naming the pointer and the schema file. `finish` adds what
 * was judged to the notes and gives a coverage gap when a task's released schema could not be
 * compiled (the set's defect, never the agent's).
 */
export function releasedJudge(ctx: Pick<CheckContext, 'schemas' | 'target'>) {
  const { set, note } = releasedFor(ctx);
  const applied = new Map<string, number>();
  const without = new Set<string>();
  const unusable = new Map<string, string>();
  return {
    judge(reply: TaskReply, checkId: string): StepVerdict | undefined {
      if (!set || unusable.has(reply.task)) return undefined;
      let v: ReleasedVerdict | undefined;
      try {
        v = set.validateTaskResponse(reply.task, reply.payload);
      } catch (e) {
        unusable.set(reply.task, (e as Error).message);
        return undefined;
      }
      if (!v) without.add(reply.task);
      else if (v.valid) applied.set(v.schema.file, (applied.get(v.schema.file) ?? 0) + 1);
      else
        return {
          status: 'failed',
          message: `a ${reply.task} response (check ${checkId}) is not valid against ${releasedSchemaText(set, v)}: ${firstSchemaError(v)}`,
          expected: v.errors.map((e) => `${e.pointer} ${e.message} (${e.schemaPath})`),
          actual: reply.payload,
          pointer: v.errors[0]?.pointer ?? '',
        };
      return undefined;
    },
    finish(notes: string[]): StepVerdict | undefined {
      if (note) notes.push(note);
      if (!set) return undefined;
      for (const [file, n] of applied) notes.push(`${n} ${n === 1 ? 'reply' : 'replies'} also valid against the released ${set.version} schema ${file}`);
      if (without.size > 0) notes.push(`the released ${set.version} schemas have no response schema of ${[...without].join(', ')}`);
      if (unusable.size === 0) return undefined;
      return {
        status: 'gap',
        gap: 'a usable released schema',
        message: [...unusable].map(([task, why]) => `the released ${set.version} schema of ${task} could not be used: ${why}`).join('; '),
      };
    },
  };
}
