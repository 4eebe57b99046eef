/**
 * `fuzz.errors.push-config-well-formed.<task>`: a valid call of a read task that also carries a
 * `push_notification_config` (generated from its schema, fixtures/schemas/push-notification-config.json)
 * is answered, or refused as a well-formed {code, message} task error (interface spec 7: "may be
 * rejected as a well-formed runtime error"); never a crash, a 5xx or a protocol error. The
 * webhook URL is on `buyer.invalid`, which resolves nowhere (RFC 6761).
 */
import fc from 'fast-check';
import { judgeWellFormed } from '../../core/engine/kinds/expect/reply-status.js';
import { replyProblem } from '../judge.js';
import type { FuzzProperty } from '../property.js';
import { materializeKeys, schemaNamed, validRequests, wireTask } from '../requests.js';
import { checkProperty } from '../run-property.js';
import { validArbitrary } from '../schema-arbitrary.js';

/** The read tasks of the fuzzer: sync-only operations (spec 4.3), where the rule is stated. */
export const SYNC_READ_TASKS = ['capabilities', 'get_products', 'get_media_buys'] as const;

/**
 * Registrations without `authentication`: registering webhook credentials is a request the seller
 * must sign (digest 1.9, pre-check P1), refused with 401 when it is not; that rule belongs to the
 * signature checks, not to this one.
 */
export function pushConfigs(): fc.Arbitrary<Record<string, unknown>> {
  const arb = validArbitrary(schemaNamed('push-notification-config'), {
    '/url': fc.uuid({ version: 4 }).map((id) => `https://buyer.invalid/webhooks/${id}`),
  }) as fc.Arbitrary<Record<string, unknown>>;
  return arb.map(({ authentication: _a, ...rest }) => rest);
}

export const pushConfigWellFormed: FuzzProperty = {
  id: 'fuzz.errors.push-config-well-formed',
  title: 'a read task sent a push_notification_config answers, or refuses with a well-formed error',
  level: 'MUST',
  spec: {
    doc: 'interface-spec',
    section: '7',
    anchor: '7-errors',
    rule: 'push_notification_config on a sync-only operation may be rejected as a well-formed runtime error',
  },
  tasks: SYNC_READ_TASKS,
  run(ctx, opts, task) {
    const t = task as string;
    return checkProperty({
      checkId: `${this.id}.${t}`,
      task: t,
      ctx,
      opts,
      arbitrary: fc.record({ request: validRequests(t, ctx), push: pushConfigs() }),
      async predicate({ request, push }) {
        const reply = await ctx.transport.call(wireTask(t, ctx.token), materializeKeys(request, ctx), { signal: ctx.signal, pushNotificationConfig: push });
        const problem = replyProblem(reply);
        const verdict = judgeWellFormed(reply);
        if (!problem && verdict.ok) return {};
        return { violation: `${t} with a push_notification_config: ${problem ?? verdict.message}`, exchanges: reply.exchanges };
      },
    });
  },
};
