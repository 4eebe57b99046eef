/** `list_tasks`: MCP tools/list or the A2A agent card's skills. */
import type { ExpectationDef } from '../../model.js';
import type { StepKind } from '../types.js';

export const listTasks: StepKind = {
  name: 'list_tasks',
  fields: { expect: { type: 'array' } },
  expectationFields: ['expect'],
  async run(step, ctx) {
    const list = await ctx.listTasks();
    const record = { names: list.names };
    if (list.failure) {
      const verdict =
        list.failure.kind === 'network' || list.failure.kind === 'refused'
          ? ({ status: 'unmet', message: `the agent could not be reached: ${list.failure.message}`, blocked_by: `transport.${ctx.kind}` } as const)
          : ({ status: 'failed', message: `listing tasks (${list.source}) failed: ${list.failure.message}`, actual: list.failure } as const);
      return { verdict, record };
    }
    const j = ctx.judge(step.expect as ExpectationDef[] | undefined, { list, record });
    if (j.ok) return { verdict: { status: 'ok' }, record };
    return { verdict: { status: 'failed', message: `${list.source}: ${j.message}`, expected: j.expected, actual: j.actual }, record };
  },
};
