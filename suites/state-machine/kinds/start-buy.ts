/**
 * `start_buy`: make the buy of step `from` delivering. A create may answer `pending_creatives` or
 * `pending_start` (digest 4.2) instead of `active`; checks that walk an active buy then start it
 * the only way a run can, through the sandbox test controller's `force_media_buy_status`
 * (digest 4.6), and read it back with get_media_buys to be sure it moved. A buy created active
 * needs nothing, nor one that already reads active; one awaiting creatives is moved to
 * pending_start first, as the seller's own lifecycle would (a controller that refuses that step is
 * still asked for the start); a pending one on a seller without that scenario is a coverage gap. A read-back
 * that does not answer or list the buy at all fails the rule of `read_owner` (when given), not
 * the start: the check is then blocked by that check.
 */
import { evaluateCondition } from '../../../harness/core/engine/conditions.js';
import { describeReply, recordOf, type StepKind, type StepRecord, type StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import { unreachable } from '../../../harness/core/engine/kinds/steps/util.js';

const PENDING = ['pending_creatives', 'pending_start'];

function statusOf(payload: unknown): unknown {
  const p = payload as { status?: unknown; media_buy_status?: unknown } | undefined;
  return p?.media_buy_status ?? p?.status;
}

export const startBuy: StepKind = {
  name: 'start_buy',
  fields: {
    /** The id of the step whose reply is the created buy. */
    from: { type: 'string', minLength: 1 },
    /** The account the buy was created in (a template, e.g. `{{account:account}}`). */
    account: {},
    /** The check whose rule a read-back that lists no such buy breaks (get_media_buys reads a created buy back). */
    read_owner: { type: 'string', minLength: 1 },
  },
  required: ['from', 'account'],
  async run(step, ctx) {
    const created: StepRecord | undefined = ctx.steps[String(step.from)];
    const id = (created?.payload as { media_buy_id?: unknown } | undefined)?.media_buy_id;
    const status = statusOf(created?.payload);
    if (typeof id !== 'string') return { verdict: { status: 'unmet', message: `step ${String(step.from)} left no media_buy_id` } };
    if (status === 'active') return { verdict: { status: 'ok' }, record: created };
    if (!PENDING.includes(String(status))) {
      return {
        verdict: {
          status: 'failed',
          message: `the created buy is ${JSON.stringify(status)}, neither active nor pending`,
          expected: ['active', ...PENDING],
          actual: status,
        },
      };
    }
    // The scenario declared is what the checks that need it require (a controller left out of
    // tools/list is capabilities.tasks.listed's defect, and still callable).
    const controller = evaluateCondition({ controller_scenario: 'force_media_buy_status' }, ctx.profile, ctx.ids);
    if (!controller) {
      return {
        verdict: {
          status: 'gap',
          gap: 'test controller (force_media_buy_status)',
          message: `the seller creates buys ${String(status)} and offers no sandbox test controller with force_media_buy_status, so a buy cannot be started within a run`,
        },
      };
    }
    const account = ctx.expand(step.account) as Record<string, unknown>;
    const force = (to: string) =>
      ctx.call('comply_test_controller', {
        scenario: 'force_media_buy_status',
        account: { ...account, sandbox: true },
        params: { media_buy_id: id, status: to },
      });
    const readBack = async () => {
      const read = await ctx.call('get_media_buys', { media_buy_ids: [id], account });
      const buys = (read.payload as { media_buys?: Array<Record<string, unknown>> } | undefined)?.media_buys;
      return { read, item: Array.isArray(buys) ? buys.find((b) => b?.media_buy_id === id) : undefined };
    };
    // A read-back that does not answer or list the buy is read_owner's defect, not the start's.
    const unread = (r: Awaited<ReturnType<typeof readBack>>): { verdict: StepVerdict; record?: StepRecord } | undefined => {
      if (step.read_owner === undefined || (r.read.ok && !r.read.isError && r.item !== undefined)) return undefined;
      const down = unreachable(r.read);
      if (down) return { verdict: down, record: recordOf(r.read) };
      return {
        verdict: {
          status: 'failed',
          message: `get_media_buys did not read the buy back: ${r.read.ok && !r.read.isError ? 'it is not listed' : describeReply(r.read)}`,
          owner: String(step.read_owner),
        },
        record: recordOf(r.read),
      };
    };
    const started = (item: Record<string, unknown>) => ({ ...created, payload: { ...(created?.payload as object), ...item } }) as StepRecord;

    // A buy the seller has already started needs no force.
    const before = await readBack();
    const notRead = unread(before);
    if (notRead) return notRead;
    if (before.item?.status === 'active') {
      ctx.notes.push(`the buy was created ${String(status)} and already reads active, before any force`);
      return { verdict: { status: 'ok' }, record: started(before.item) };
    }
    // Awaiting creatives: first to pending_start, the way a seller's own lifecycle goes (digest 4.2);
    // a controller that refuses that step may still take the start itself.
    if ((before.item?.status ?? status) === 'pending_creatives') {
      const step1 = await force('pending_start');
      const down = unreachable(step1);
      if (down) return { verdict: down, record: recordOf(step1) };
    }
    const forced = await force('active');
    const down = unreachable(forced);
    if (down) return { verdict: down, record: recordOf(forced) };
    if (!forced.ok || forced.isError || (forced.payload as { success?: unknown } | undefined)?.success !== true) {
      return { verdict: { status: 'failed', message: `force_media_buy_status to active: ${describeReply(forced)}` }, record: recordOf(forced) };
    }
    const after = await readBack();
    const notReadAfter = unread(after);
    if (notReadAfter) return notReadAfter;
    const now = after.item?.status;
    if (now !== 'active') {
      return {
        verdict: {
          status: 'failed',
          message: `force_media_buy_status answered success, but get_media_buys ${after.read.ok && !after.read.isError ? `shows the buy ${JSON.stringify(now ?? '(absent)')}` : `gave ${describeReply(after.read)}`}`,
          expected: 'active',
          actual: now,
        },
        record: recordOf(after.read),
      };
    }
    ctx.notes.push(`the buy was created ${String(status)}; after force_media_buy_status to active it reads active`);
    return { verdict: { status: 'ok' }, record: started(after.item as Record<string, unknown>) };
  },
};
