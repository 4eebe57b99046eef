/** `call`: one task call, judged by its expectations (default: a successful reply). */
import type { ExpectationDef } from '../../model.js';
import type { AuthOverride } from '../../../transport/types.js';
import type { StepKind } from '../types.js';
import { recordOf } from '../types.js';
import { AUTH_FIELD, PUSH_CHANNEL_FIELD, authOverride, judgeReply, pushOptions, refusedPushUrl } from './util.js';

export const call: StepKind = {
  name: 'call',
  fields: {
    task: { type: 'string', minLength: 1 },
    args: { type: 'object' },
    auth: AUTH_FIELD,
    /** Push notification registration (interface spec 2.7). */
    push_notification_config: { type: 'object' },
    /** How it is registered: `arguments` (default): the task argument push_notification_config on both
     *  transports (spec 6.2: the MCP envelope); `a2a-native`: A2A configuration.pushNotificationConfig
     *  (the A2A envelope; not applicable over MCP, which has no such channel). */
    push_channel: PUSH_CHANNEL_FIELD,
    /** A2A: poll tasks/get until the task is terminal. */
    poll: { type: 'boolean' },
    expect: { type: 'array' },
    /**
     * A refusal whose error code matches `codes` (a regular expression) means the run gave the
     * agent nothing it can answer (an unknown reference the spec shows no way to learn): a
     * coverage gap named `gap`, with `because` as the reason, instead of a failure.
     */
    /**
     * The step expects a refusal for another reason (a missing key, say), and the check needs the
     * push URL to be one the seller takes: an error that refuses the push URL under digest 5.9
     * makes the check a coverage gap even though a refusal was expected (nothing could have been
     * delivered, so a quiet receiver afterwards would prove nothing).
     */
    push_url_refusal_is_gap: { type: 'boolean' },
    /**
     * The step sends something the seller should refuse only to set up the check's situation (a
     * first request that fails): when the seller takes it instead, that situation never arose, so
     * the check is a coverage gap named `gap`, with `because` as the reason.
     */
    gap_if_accepted: {
      type: 'object',
      properties: { gap: { type: 'string', minLength: 1 }, because: { type: 'string', minLength: 1 } },
      required: ['gap', 'because'],
      additionalProperties: false,
    },
    gap_if_refused: {
      type: 'object',
      properties: {
        codes: { type: 'string', minLength: 1 },
        gap: { type: 'string', minLength: 1 },
        because: { type: 'string', minLength: 1 },
        /** A dotted path into the fixtures: when the certifier gave that value, a refusal is judged, not a gap. */
        unless_fixture: { type: 'string', pattern: '^[a-z_]+(\\.[a-z_]+)*$' },
      },
      required: ['codes', 'gap', 'because'],
      additionalProperties: false,
    },
    /**
     * A test-controller answer `{success: false, error}` whose error matches `errors` (a regular
     * expression, e.g. UNKNOWN_SCENARIO) means the controller does not offer what the check drives
     * (digest 4.6: an unsupported scenario is a coverage gap): a gap named `gap`, with `because`.
     */
    gap_if_controller_error: {
      type: 'object',
      properties: { errors: { type: 'string', minLength: 1 }, gap: { type: 'string', minLength: 1 }, because: { type: 'string', minLength: 1 } },
      required: ['errors', 'gap', 'because'],
      additionalProperties: false,
    },
    /**
     * The check needs the reply to show something the seller may well not do (an account recorded
     * as not a sandbox one, say): when these expectations do not hold, the situation the check
     * needs never arose, a coverage gap named `gap`, with `because` as the reason.
     */
    gap_unless: {
      type: 'object',
      properties: { expect: { type: 'array', minItems: 1 }, gap: { type: 'string', minLength: 1 }, because: { type: 'string', minLength: 1 } },
      required: ['expect', 'gap', 'because'],
      additionalProperties: false,
    },
  },
  required: ['task'],
  expectationFields: ['expect'],
  async run(step, ctx) {
    const task = String(ctx.expand(step.task));
    const args = (ctx.expand(step.args ?? {}) ?? {}) as Record<string, unknown>;
    const auth: AuthOverride = authOverride(step.auth as string | undefined, ctx);
    const push = pushOptions(step, ctx);
    if ('status' in push) return { verdict: push };
    const reply = await ctx.call(task, args, { auth, ...push, pollUntilTerminal: step.poll === true });
    const record = recordOf(reply);
    const refusedGap = step.gap_if_refused as { codes: string; gap: string; because: string; unless_fixture?: string } | undefined;
    if (
      refusedGap &&
      !fixtureGiven(ctx.run.fixtures, refusedGap.unless_fixture) &&
      reply.isError &&
      reply.error &&
      new RegExp(`^(?:${refusedGap.codes})$`).test(reply.error.code)
    ) {
      return {
        verdict: {
          status: 'gap',
          message: `${refusedGap.because}: ${task} answered ${reply.error.code}: ${reply.error.message.slice(0, 200)}`,
          gap: refusedGap.gap,
        },
        record,
      };
    }
    const controllerGap = step.gap_if_controller_error as { errors: string; gap: string; because: string } | undefined;
    const answer = reply.payload as { success?: unknown; error?: unknown } | undefined;
    if (controllerGap && answer?.success === false && typeof answer.error === 'string' && new RegExp(`^(?:${controllerGap.errors})$`).test(answer.error)) {
      return { verdict: { status: 'gap', message: `${controllerGap.because}: ${task} answered ${answer.error.slice(0, 60)}`, gap: controllerGap.gap }, record };
    }
    const acceptedGap = step.gap_if_accepted as { gap: string; because: string } | undefined;
    if (acceptedGap && !reply.failure && !reply.isError && !reply.error) {
      return {
        verdict: { status: 'gap', message: `${acceptedGap.because}: ${task} was answered ${reply.status ?? 'without an error'}`, gap: acceptedGap.gap },
        record,
      };
    }
    const verdict = judgeReply(step.expect as ExpectationDef[] | undefined, reply, record, ctx);
    const unlessGap = step.gap_unless as { expect: ExpectationDef[]; gap: string; because: string } | undefined;
    if (verdict.status === 'ok' && unlessGap) {
      const shown = judgeReply(unlessGap.expect, reply, record, ctx);
      if (shown.status !== 'ok') return { verdict: { status: 'gap', message: `${unlessGap.because}: ${shown.message}`, gap: unlessGap.gap }, record };
    }
    const hooks = { push: push.pushNotificationConfig ?? push.a2aPushNotificationConfig, args };
    if (verdict.status === 'ok' && step.push_url_refusal_is_gap === true && reply.isError) {
      const refused = refusedPushUrl(hooks, reply, { status: 'failed', message: '' }, ctx);
      if (refused.status === 'gap') return { verdict: refused, record };
    }
    return { verdict: refusedPushUrl(hooks, reply, verdict, ctx), record };
  },
};

/** Is the fixtures' value at the dotted `path` given? (No path: never.) */
function fixtureGiven(fixtures: unknown, path: string | undefined): boolean {
  if (path === undefined) return false;
  let at: unknown = fixtures;
  for (const key of path.split('.')) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return at !== undefined;
}
