/**
 * `assert`: judge what an earlier step saved, without calling the agent again. With
 * `else_not_applicable`, expectations that do not hold make the check not applicable (with that
 * reason) instead of failing it: for rules that bind only an optional member when it is there
 * (3.0's optional `revision`).
 */
import type { ExpectationDef } from '../../model.js';
import type { StepKind } from '../types.js';

export const assertStep: StepKind = {
  name: 'assert',
  fields: { step: { type: 'string' }, expect: { type: 'array', minItems: 1 }, else_not_applicable: { type: 'string', minLength: 1 } },
  required: ['step', 'expect'],
  expectationFields: ['expect'],
  async run(step, ctx) {
    const record = ctx.steps[step.step as string];
    if (!record) return { verdict: { status: 'unmet', message: `no saved step "${step.step as string}"` } };
    const j = ctx.judge(step.expect as ExpectationDef[], { record });
    if (j.ok) return { verdict: { status: 'ok' } };
    if (typeof step.else_not_applicable === 'string') return { verdict: { status: 'not_applicable', message: `${step.else_not_applicable} (${j.message})` } };
    return {
      verdict: {
        status: 'failed',
        message: `${record.task ?? step.step}: ${j.message}`,
        expected: j.expected,
        actual: j.actual,
        pointer: j.pointer,
        owner: j.owner,
      },
    };
  },
};
