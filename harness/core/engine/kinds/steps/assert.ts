/**
 * `assert`: judge what an earlier step saved, without calling the agent again. With
 * `else_not_applicable`, expectations that do not hold make the check not applicable (with that
 * reason) instead of failing it: for rules that bind only an optional member when it is there
 * (3.0's optional `revision`). With `else_gap`, they make it a coverage gap instead: for a state the
 * check needs in order to observe its rule and that the agent does not show (a buy that must read
 * pending before a forced start can be seen to start it).
 */
import type { ExpectationDef } from '../../model.js';
import type { StepKind } from '../types.js';

export const assertStep: StepKind = {
  name: 'assert',
  fields: {
    step: { type: 'string' },
    expect: { type: 'array', minItems: 1 },
    else_not_applicable: { type: 'string', minLength: 1 },
    else_gap: {
      type: 'object',
      properties: { gap: { type: 'string', minLength: 1 }, reason: { type: 'string', minLength: 1 } },
      required: ['gap', 'reason'],
      additionalProperties: false,
    },
  },
  required: ['step', 'expect'],
  expectationFields: ['expect'],
  async run(step, ctx) {
    const record = ctx.steps[step.step as string];
    if (!record) return { verdict: { status: 'unmet', message: `no saved step "${step.step as string}"` } };
    const j = ctx.judge(step.expect as ExpectationDef[], { record });
    if (j.ok) return { verdict: { status: 'ok' } };
    if (typeof step.else_not_applicable === 'string') return { verdict: { status: 'not_applicable', message: `${step.else_not_applicable} (${j.message})` } };
    const gap = step.else_gap as { gap: string; reason: string } | undefined;
    if (gap) return { verdict: { status: 'gap', gap: gap.gap, message: `${gap.reason} (${j.message})` } };
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
