/**
 * `session_reuse`: several calls in a row must all be served on the run's one MCP session.
 * The transport re-initializes once when a server forgets a session; a re-initialization during
 * these calls means the server does not keep the session it handed out.
 */
import type { StepKind } from '../types.js';
import { describeReply, recordOf } from '../types.js';
import { unreachable } from './util.js';

export const sessionReuse: StepKind = {
  name: 'session_reuse',
  fields: { task: { type: 'string', minLength: 1 }, calls: { type: 'integer', minimum: 2, maximum: 10 } },
  required: ['task', 'calls'],
  async run(step, ctx) {
    const task = String(ctx.expand(step.task));
    const open = await ctx.transport.open(ctx.signal);
    if (open.failure) {
      return {
        verdict:
          open.failure.kind === 'network'
            ? { status: 'unmet', message: `could not open a session: ${open.failure.message}`, blocked_by: `transport.${ctx.kind}` }
            : { status: 'failed', message: `could not open a session: ${open.failure.message}`, actual: open.failure },
      };
    }
    const before = ctx.transport.stats().sessionsOpened;
    const replies = [];
    for (let i = 0; i < (step.calls as number); i++) {
      const reply = await ctx.call(task, {});
      replies.push(reply);
      const down = unreachable(reply);
      if (down) return { verdict: down };
      if (!reply.ok) {
        return {
          verdict: {
            status: 'failed',
            message: `call ${i + 1} of ${step.calls as number} on the session failed: ${describeReply(reply)}`,
            expected: 'every call served on the same session',
            actual: reply.failure ?? reply.error,
          },
          record: { replies: replies.map(recordOf) },
        };
      }
    }
    const after = ctx.transport.stats().sessionsOpened;
    if (after > before) {
      return {
        verdict: {
          status: 'failed',
          message: `the server dropped its session: the harness had to initialize ${after - before} new session(s) during ${step.calls as number} calls`,
          expected: { new_sessions: 0 },
          actual: { new_sessions: after - before, session: open.sessionId ? 'stateful' : 'stateless' },
        },
        record: { replies: replies.map(recordOf) },
      };
    }
    return { verdict: { status: 'ok' }, record: { replies: replies.map(recordOf) } };
  },
};
