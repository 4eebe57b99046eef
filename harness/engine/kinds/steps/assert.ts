/** `assert`: judge what an earlier step saved, without calling the agent again. */
import type { ExpectationDef } from '../../model.js';
import type { StepKind } from '../types.js';

export const assertStep: StepKind = {
  name: 'assert',
  fields: { step: { type: 'string' }, expect: { type: 'array', minItems: 1 } },
  required: ['step', 'expect'],
  expectationFields: ['expect'],
  async run(step, ctx) {
    const record = ctx.steps[step.step as string];
    if (!record) return { verdict: { status: 'unmet', message: `no saved step "${step.step as string}"` } };
    const j = ctx.judge(step.expect as ExpectationDef[], { record });
    if (j.ok) return { verdict: { status: 'ok' } };
    return { verdict: { status: 'failed', message: `${record.task ?? step.step}: ${j.message}`, expected: j.expected, actual: j.actual, pointer: j.pointer } };
  },
};
