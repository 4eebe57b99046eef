/**
 * `fuzz.errors.unknown-task-refused`: a call of a task the agent does not have, with any
 * arguments, is refused as a task error with INVALID_REQUEST whose message names the task, in the
 * error format of interface spec 7 ({code, message}; on MCP the JSON text of content[0].text);
 * never answered, never a transport error, a 5xx or a timeout.
 *
 * Every name is plainly no task of the protocol (it carries `proto_comply` and is not listed by the
 * agent), so an agent with unlisted tasks of its own is never asked to refuse one. Names keep to
 * letters, digits and `_ . -`, so a message that quotes the name still contains it verbatim.
 */
import fc from 'fast-check';
import { refusalShapeProblem, replyProblem, short } from '../judge.js';
import type { FuzzProperty } from '../property.js';
import { checkProperty } from '../run-property.js';
import { jsonObjectArb } from '../schema-arbitrary.js';

const MARK = 'proto_comply';

/** Unknown task names: the mark with a random suffix, a listed task's name extended by the mark, upper-case forms. */
function unknownNames(listed: readonly string[]): fc.Arbitrary<string> {
  const suffix = fc.stringMatching(/^[a-z0-9_.-]{1,32}$/);
  const shapes: fc.Arbitrary<string>[] = [
    suffix.map((s) => `${MARK}_${s}`),
    suffix.map((s) => `${MARK}_${s}`.toUpperCase()),
    fc.constant(`${MARK}_no_such_task`),
  ];
  const real = listed.filter((t) => /^[A-Za-z0-9_.-]+$/.test(t));
  if (real.length) {
    shapes.push(fc.tuple(fc.constantFrom(...real), suffix).map(([t, s]) => `${t}_${MARK}_${s}`));
    shapes.push(fc.tuple(fc.constantFrom(...real), suffix).map(([t, s]) => `${MARK}_${s}_${t}`));
  }
  return fc.oneof(...shapes).filter((name) => name.length <= 128 && !listed.includes(name));
}

export const unknownTaskRefused: FuzzProperty = {
  id: 'fuzz.errors.unknown-task-refused',
  title: 'a call of a task the agent does not have is refused with INVALID_REQUEST naming the task',
  level: 'MUST',
  spec: { doc: 'interface-spec', section: '7', anchor: '7-errors', rule: 'unknown tool name yields INVALID_REQUEST with a message naming the tool' },
  sameRuleAs: 'errors.unknown-task.invalid-request',
  run(ctx, opts) {
    return checkProperty({
      checkId: this.id,
      ctx,
      opts,
      arbitrary: fc.record({ task: unknownNames(ctx.tasks ?? []), args: jsonObjectArb() }),
      async predicate({ task, args }) {
        const reply = await ctx.transport.call(task, args, { signal: ctx.signal });
        const fail = (why: string) => ({ violation: `unknown task ${JSON.stringify(task)}: ${why}`, exchanges: reply.exchanges });
        const problem = replyProblem(reply);
        if (problem) return fail(problem);
        if (!reply.isError) return fail(`answered, not refused: ${short(reply.payload ?? reply.text ?? reply.status, 200)}`);
        const code = reply.error?.code;
        // RATE_LIMITED refuses any call (interface spec 7: retry later); it names no task.
        if (code !== 'INVALID_REQUEST' && code !== 'RATE_LIMITED') {
          return fail(`refused with ${code ? `code ${JSON.stringify(code)}` : 'no error code'}, not INVALID_REQUEST`);
        }
        const shape = refusalShapeProblem(reply);
        if (shape) return fail(`refused, but ${shape}`);
        if (code === 'INVALID_REQUEST' && !reply.error?.message.includes(task)) {
          return fail(`the error message does not name the task: ${short(reply.error?.message, 200)}`);
        }
        return {};
      },
    });
  },
};
