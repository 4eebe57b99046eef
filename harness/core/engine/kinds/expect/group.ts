/** Expectations over several replies (concurrent calls). */
import type { ExpectationDef } from '../../model.js';
import type { ExpectationKind } from '../types.js';
import { recordOf } from '../types.js';
import { at, OK, short } from './util.js';

export const distinctCount: ExpectationKind = {
  name: 'distinct_count',
  fields: { path: { type: 'string' }, equals: { type: 'integer' } },
  required: ['path', 'equals'],
  evaluate(exp, subject, ctx) {
    const replies = subject.replies ?? [];
    const values = new Map<string, number>();
    for (const r of replies) {
      if (!r.ok || r.isError) continue;
      const v = at(r.payload, exp.path as string, ctx);
      if (v.found) values.set(JSON.stringify(v.value), (values.get(JSON.stringify(v.value)) ?? 0) + 1);
    }
    if (values.size !== exp.equals) {
      return {
        ok: false,
        message: `${replies.length} replies carry ${values.size} distinct ${exp.path as string} values, expected ${exp.equals as number}`,
        expected: exp.equals,
        actual: Object.fromEntries(values),
        pointer: exp.path as string,
      };
    }
    return OK;
  },
};

export const each: ExpectationKind = {
  name: 'each',
  fields: { expect: { type: 'array', minItems: 1 } },
  required: ['expect'],
  expectationFields: ['expect'],
  evaluate(exp, subject, ctx) {
    const replies = subject.replies ?? [];
    for (let i = 0; i < replies.length; i++) {
      const j = ctx.judge(exp.expect as ExpectationDef[], { reply: replies[i], record: recordOf(replies[i]) });
      // Which of concurrent replies breaks the rule first is the agent's timing: the message says "one of n", the evidence which.
      if (!j.ok)
        return {
          ...j,
          message: `one of the ${replies.length} replies: ${j.message ?? 'failed'}`,
          actual: { reply: i + 1, of: replies.length, value: j.actual },
        };
    }
    return OK;
  },
};

/** At least `min` of the replies satisfy the nested expectations. */
export const some: ExpectationKind = {
  name: 'some',
  fields: { expect: { type: 'array', minItems: 1 }, min: { type: 'integer', minimum: 1 } },
  required: ['expect'],
  expectationFields: ['expect'],
  evaluate(exp, subject, ctx) {
    const replies = subject.replies ?? [];
    const min = (exp.min as number | undefined) ?? 1;
    const failures: string[] = [];
    let good = 0;
    for (const r of replies) {
      const j = ctx.judge(exp.expect as ExpectationDef[], { reply: r, record: recordOf(r) });
      if (j.ok) good++;
      else failures.push(j.message ?? 'failed');
    }
    // Each distinct reason once (two replies refused differently both show), capped.
    const reasons = [...new Set(failures.map((f) => short(f)))].slice(0, 3).join('; ');
    return good >= min ? OK : { ok: false, message: `only ${good} of ${replies.length} replies qualify (need ${min}): ${reasons}` };
  },
};
