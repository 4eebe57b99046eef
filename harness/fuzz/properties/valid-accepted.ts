/**
 * `fuzz.schemas.valid-accepted.<task>`: a request the task's schema accepts gets a task answer
 * that is valid against the response schema (harness/core/schemas), echoes `context` verbatim
 * (interface spec 4.3) and carries `sandbox`, when present, as a boolean (spec 2.5).
 */
import { isDeepStrictEqual } from 'node:util';
import { createSchemaValidator } from '../../core/schemas/validator.js';
import { replyProblem, short } from '../judge.js';
import type { FuzzProperty } from '../property.js';
import { FUZZ_TASKS, materializeKeys, validRequests, wireTask, withStateChange } from '../requests.js';
import { checkProperty } from '../run-property.js';

export const validAccepted: FuzzProperty = {
  id: 'fuzz.schemas.valid-accepted',
  title: 'a valid request gets a schema-valid answer that echoes context and keeps sandbox boolean',
  level: 'MUST',
  spec: { doc: 'interface-spec', section: '4.3', anchor: '43-tasks', rule: 'the seller echoes context verbatim; responses per 2.4a / 2.5; sandbox boolean' },
  interpretation: {
    spec_text:
      'interface spec 2.4a and 2.5 (the records as sent); digest 4.5: revision "is required in create, get and update success responses"; ' +
      'the 3.0 specification (media-buy/specification.mdx): "Sales agents MUST include revision in create and update responses", ' +
      'while the 3.0.x schemas leave it optional; the 3.1.0 schemas require it in create, update and get',
    reading:
      "an answer is judged against the harness's response schema of the run's target line (harness/core/schemas): create and update " +
      'replies carry revision in every line (the 3.0 text), the buys get_media_buys lists from 3.1; a refusal of a valid request fails too',
  },
  tasks: FUZZ_TASKS,
  run(ctx, opts, task) {
    const t = task as string;
    const schemas = createSchemaValidator({ token: ctx.token, target: ctx.target });
    return checkProperty({
      checkId: `${this.id}.${t}`,
      task: t,
      ctx,
      opts,
      arbitrary: validRequests(t, ctx),
      async predicate(request) {
        const sent = materializeKeys(withStateChange(t, request, ctx), ctx);
        const wire = wireTask(t, ctx.token);
        const reply = await ctx.transport.call(wire, sent, { signal: ctx.signal });
        const fail = (violation: string) => ({ violation: `${t}: ${violation}`, exchanges: reply.exchanges });
        const problem = replyProblem(reply);
        if (problem) return fail(problem);
        if (reply.isError) return fail(`a valid request was refused: ${reply.error?.code ?? '(no code)'} ${short(reply.error?.message ?? reply.payload, 200)}`);
        if (t === 'update_media_buy' && ctx.mediaBuy) ctx.mediaBuy.paused = sent.paused === true;
        const payload = reply.payload as Record<string, unknown> | undefined;
        if (schemas.hasTaskSchema(wire)) {
          const verdict = schemas.validateTaskResponse(wire, payload);
          if (!verdict.valid) {
            const errs = verdict.errors.slice(0, 3).map((e) => `${e.pointer || '/'} ${e.message}`);
            return fail(`the answer is not valid against ${schemas.taskSchemaName(wire)}: ${errs.join('; ')}`);
          }
        }
        // Compared as JSON (what went over the wire): generated objects may have another prototype.
        if ('context' in sent && !isDeepStrictEqual(payload?.context, JSON.parse(JSON.stringify(sent.context)))) {
          return fail(`context not echoed verbatim: sent ${short(sent.context, 120)}, got ${short(payload?.context, 120)}`);
        }
        if (payload && 'sandbox' in payload && typeof payload.sandbox !== 'boolean') return fail(`sandbox is ${short(payload.sandbox, 40)}, not a boolean`);
        return {};
      },
    });
  },
};
