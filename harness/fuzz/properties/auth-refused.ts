/**
 * `fuzz.errors.auth-refused`: a valid call of a fuzzed task sent without the bearer token, or with
 * a wrong one, is refused (interface spec 5: HTTP 401 / 403, or a task error UNAUTHORIZED), never
 * answered. Wrong tokens include near misses of the real one (one character changed, cut short by
 * one, one character longer, a letter's case changed), which catch prefix and case-insensitive
 * comparisons. The counterexample names how the token was made, never the token; every token sent
 * is registered as a secret, so none is written anywhere.
 *
 * Applies only when the run has an --auth-token: without one the harness cannot tell what the
 * agent protects.
 */
import fc from 'fast-check';
import { judgeAuthRefused } from '../../core/engine/kinds/expect/reply-status.js';
import type { AuthOverride } from '../../core/transport/types.js';
import { replyProblem } from '../judge.js';
import type { FuzzContext, FuzzProperty } from '../property.js';
import { FUZZ_TASKS, materializeKeys, missingState, validRequests, wireTask, withStateChange } from '../requests.js';
import { checkProperty } from '../run-property.js';

type How = { how: 'none' } | { how: 'random'; token: string } | { how: 'one-char-changed' | 'case-changed'; at: number } | { how: 'cut-short' | 'one-longer' };

const HOW: fc.Arbitrary<How> = fc.oneof(
  fc.constant({ how: 'none' as const }),
  fc.stringMatching(/^[A-Za-z0-9._~+/-]{8,64}$/).map((token) => ({ how: 'random' as const, token })),
  fc.record({ how: fc.constantFrom('one-char-changed' as const, 'case-changed' as const), at: fc.nat({ max: 4096 }) }),
  fc.constantFrom({ how: 'cut-short' as const }, { how: 'one-longer' as const }),
);

/** The credentials a case sends: none, or a token that is not the real one. */
export function wrongAuth(h: How, real: string): AuthOverride {
  if (h.how === 'none') return { mode: 'none' };
  let token: string;
  if (h.how === 'random') token = h.token;
  else if (h.how === 'cut-short') token = real.slice(0, -1);
  else if (h.how === 'one-longer') token = `${real}A`;
  else if (h.how === 'one-char-changed' || h.how === 'case-changed') {
    const i = h.at % real.length;
    const c = real[i];
    const flipped =
      h.how === 'case-changed' && c.toLowerCase() !== c.toUpperCase() ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c === 'A' ? 'B' : 'A';
    token = `${real.slice(0, i)}${flipped}${real.slice(i + 1)}`;
  } else token = `${real}A`;
  if (token === real || token.length === 0) token = `${real}A`;
  return { mode: 'bearer', token };
}

function cases(ctx: FuzzContext) {
  const tasks = FUZZ_TASKS.filter((t) => (ctx.tasks ?? []).includes(wireTask(t, ctx.token)) && !missingState(t, ctx));
  return fc.record({
    auth: HOW,
    call: fc.oneof(...tasks.map((task) => validRequests(task, ctx).map((request) => ({ task, request })))),
  });
}

export const authRefused: FuzzProperty = {
  id: 'fuzz.errors.auth-refused',
  title: 'a call without the bearer token, or with a wrong one, is refused',
  level: 'MUST',
  spec: { doc: 'interface-spec', section: '5', anchor: '5-authentication', rule: 'agent calls: Authorization: Bearer <ACCESS_TOKEN>' },
  appliesTo(ctx) {
    if (!ctx.authToken) return 'no --auth-token was given, so the harness cannot tell what the agent protects';
    if (!FUZZ_TASKS.some((t) => (ctx.tasks ?? []).includes(wireTask(t, ctx.token)) && !missingState(t, ctx))) return 'the agent lists none of the fuzzed tasks';
    return undefined;
  },
  run(ctx, opts) {
    const real = ctx.authToken as string;
    return checkProperty({
      checkId: this.id,
      ctx,
      opts,
      arbitrary: cases(ctx),
      async predicate({ auth, call }) {
        const sent = materializeKeys(withStateChange(call.task, call.request, ctx), ctx);
        const reply = await ctx.transport.call(wireTask(call.task, ctx.token), sent, { signal: ctx.signal, auth: wrongAuth(auth, real) });
        const what = `${call.task} with ${auth.how === 'none' ? 'no bearer token' : `a wrong bearer token (${auth.how})`}`;
        const verdict = judgeAuthRefused(reply);
        if (verdict.ok) return {};
        // A refusal the network broke is no answer to judge; anything else that is no 401 / UNAUTHORIZED is.
        const problem = reply.failure?.kind === 'http_status' ? undefined : replyProblem(reply);
        return { violation: `${what}: ${problem ?? verdict.message}`, exchanges: reply.exchanges };
      },
    });
  },
};
