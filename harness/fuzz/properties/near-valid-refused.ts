/**
 * `fuzz.errors.near-valid-refused.<task>`: a mutating request (digest 3.2 rule 1: validated before
 * anything else) with exactly one defect the spec states (harness/fuzz/defects.ts) is refused as a
 * task error with the code of bad input (interface spec 7: INVALID_REQUEST) in the error format of
 * spec 7 ({code, message}; on MCP the JSON text of content[0].text), never accepted, never a
 * transport error, a 5xx, a non-JSON body or a timeout.
 */
import fc from 'fast-check';
import { REFUSAL_CODES, refusalShapeProblem, replyProblem, short } from '../judge.js';
import type { FuzzProperty } from '../property.js';
import { materializeKeys, MUTATING_RECORD_TASKS, NEAR_VALID_TASKS, nearValidRequests, wireTask } from '../requests.js';
import { checkProperty } from '../run-property.js';

export const nearValidRefused: FuzzProperty = {
  id: 'fuzz.errors.near-valid-refused',
  title: 'a request with one defect the spec states is refused with a documented error code',
  level: 'MUST',
  spec: { doc: 'interface-spec', section: '7', anchor: '7-errors', rule: 'INVALID_REQUEST: bad input (isError with a JSON {code, message})' },
  tasks: NEAR_VALID_TASKS,
  run(ctx, opts, task) {
    const t = task as string;
    return checkProperty({
      checkId: `${this.id}.${t}`,
      task: t,
      ctx,
      opts,
      arbitrary: nearValidRequests(t, ctx),
      async predicate({ request, defect }) {
        // A member the defect left out that the fixtures' extra arguments put back: no defect is sent.
        const extra = ctx.taskArgs?.[wireTask(t, ctx.token)] ?? {};
        fc.pre(!(defect.kind === 'missing-required' && (defect.pointer.split('/')[1] ?? '') in extra));
        const sent = materializeKeys(request, ctx);
        const reply = await ctx.transport.call(wireTask(t, ctx.token), sent, { signal: ctx.signal });
        const what = `${defect.kind} at ${defect.pointer}${'value' in defect ? ` (${short(defect.value, 60)})` : ''}`;
        const problem = replyProblem(reply);
        if (problem) return { violation: `${t} with ${what}: ${problem}`, exchanges: reply.exchanges };
        if (!reply.isError) return { violation: `${t} with ${what} was accepted: ${short(reply.payload, 200)}`, exchanges: reply.exchanges };
        const code = reply.error?.code;
        // The other mutating tasks: no valid request of theirs is shown to be taken (their values name seller
        // state the run does not find), so a refusal's code cannot be tied to the defect; only that it is refused.
        const codeJudged = !(MUTATING_RECORD_TASKS as readonly string[]).includes(t);
        if (!code || (codeJudged && !REFUSAL_CODES.has(code))) {
          return {
            violation: `${t} with ${what} was refused with ${code ? `code ${JSON.stringify(code)}` : 'no error code'}, not the code of bad input (interface spec 7: INVALID_REQUEST; VALIDATION_ERROR, as the storyboards accept; RATE_LIMITED when throttled)`,
            exchanges: reply.exchanges,
          };
        }
        const shape = refusalShapeProblem(reply);
        if (shape) return { violation: `${t} with ${what} was refused, but ${shape}`, exchanges: reply.exchanges };
        return {};
      },
    });
  },
};
