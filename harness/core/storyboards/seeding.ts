/**
 * Controller seeding (digest 6.1; the storyboard schema's `fixtures:` and
 * `prerequisites.controller_seeding`): before a storyboard's steps run, each fixture is seeded
 * through the sandbox test controller, `comply_test_controller` with `seed_product`,
 * `seed_pricing_option`, `seed_creative`, `seed_plan` or `seed_media_buy` and
 * `params: {<id>, fixture}`, in the order the foreign keys need (products before pricing options,
 * plans and buys; creatives and plans before buys), under the storyboard's own account, sandboxed.
 * The outcome is the storyboard's seeding check: passed, or a coverage gap (no controller, a
 * controller that does not take a fixture, no account to seed under): which seed scenarios a
 * controller offers is its own choice, so a refusal is never the agent's failure.
 */
import type { CheckContext, StepVerdict } from '../engine/kinds/types.js';
import { recordOf, type StepRecord } from '../engine/kinds/types.js';
import { unreachable } from '../engine/kinds/steps/util.js';
import type { Storyboard } from './model.js';
import { replyRecord, type RunnerSkipReason, type StoryboardStepFindings } from '../engine/storyboard-step.js';
import type { TaskReply } from '../transport/types.js';
import { CONTROLLER_TASK } from '../protocol/tasks.js';

/** Fixture kinds, in seeding order, with their scenario and id member. */
const SEEDS = [
  ['products', 'seed_product', 'product_id'],
  ['pricing_options', 'seed_pricing_option', 'pricing_option_id'],
  ['creatives', 'seed_creative', 'creative_id'],
  ['plans', 'seed_plan', 'plan_id'],
  ['media_buys', 'seed_media_buy', 'media_buy_id'],
] as const;

export interface SeedCall {
  scenario: string;
  params: Record<string, unknown>;
  label: string;
}

/** Whether the storyboard asks the runner to seed its fixtures. */
export function seedsFixtures(sb: Storyboard): boolean {
  if ((sb.raw.prerequisites as { controller_seeding?: unknown } | undefined)?.controller_seeding !== true) return false;
  try {
    return seedCalls(sb).length > 0;
  } catch {
    return true; // fixtures authored wrongly: the seeding check says so (seedStoryboard)
  }
}

/** The seed calls of the storyboard's fixtures; throws naming an entry without its id (the storyboard's defect). */
export function seedCalls(sb: Storyboard): SeedCall[] {
  const fixtures = sb.raw.fixtures;
  if (!fixtures || typeof fixtures !== 'object') return [];
  const calls: SeedCall[] = [];
  for (const [kind, scenario, idKey] of SEEDS) {
    const list = (fixtures as Record<string, unknown>)[kind];
    if (!Array.isArray(list)) continue;
    list.forEach((entry, i) => {
      const { [idKey]: id, ...rest } = (entry ?? {}) as Record<string, unknown>;
      const ids: Record<string, unknown> = { [idKey]: id };
      // A pricing option belongs to a product: both ids are its key.
      if (kind === 'pricing_options') {
        const { product_id, ...fixture } = rest;
        Object.assign(ids, { product_id });
        if (typeof product_id !== 'string' || typeof id !== 'string') throw new Error(`fixtures.${kind}[${i}] needs product_id and ${idKey}`);
        calls.push({ scenario, params: { ...ids, fixture }, label: `${product_id}:${id}` });
        return;
      }
      if (typeof id !== 'string' || id === '') throw new Error(`fixtures.${kind}[${i}] needs ${idKey}`);
      calls.push({ scenario, params: { ...ids, fixture: rest }, label: id });
    });
  }
  return calls;
}

/** The account the storyboard's own requests use (the first `account` of a sample request), sandboxed. */
function storyboardAccount(sb: Storyboard): Record<string, unknown> | undefined {
  for (const p of sb.phases)
    for (const s of p.steps) {
      const acc = (s.sampleRequest as { account?: unknown } | undefined)?.account;
      if (acc && typeof acc === 'object' && !Array.isArray(acc)) return { ...(acc as Record<string, unknown>), sandbox: true };
    }
  return undefined;
}

/** The seeding not done, with the runner output contract's reason (and what to supply); every step of the storyboard takes it. */
const unseeded = (verdict: Exclude<StepVerdict, { status: 'ok' }>, reason: RunnerSkipReason, supply = '') => ({
  verdict,
  storyboard: { skip: { reason, detail: `${verdict.message}${supply}`, whole_storyboard: true as const } },
});

export async function seedStoryboard(
  sb: Storyboard,
  ctx: CheckContext,
): Promise<{ verdict: StepVerdict; record?: StepRecord; storyboard?: StoryboardStepFindings }> {
  let calls: SeedCall[];
  try {
    calls = seedCalls(sb);
  } catch (e) {
    return unseeded({ status: 'not_applicable', message: `the storyboard's fixtures cannot be seeded: ${(e as Error).message}` }, 'not_applicable');
  }
  if (!ctx.profile.tasks.includes(CONTROLLER_TASK))
    return unseeded(
      {
        status: 'gap',
        gap: 'test controller',
        message: `missing_test_controller: the agent offers no ${CONTROLLER_TASK} to seed the storyboard fixtures with`,
      },
      'missing_test_controller',
      `; supply a sandbox ${CONTROLLER_TASK} that takes the seed_* scenarios`,
    );
  const account = storyboardAccount(sb);
  if (!account)
    return unseeded(
      { status: 'gap', gap: 'an account to seed under', message: 'no step of the storyboard names an account to seed its fixtures under' },
      'not_applicable',
    );
  let last: TaskReply | undefined;
  for (const call of calls) {
    const reply = await ctx.call(CONTROLLER_TASK, { account, scenario: call.scenario, params: call.params });
    last = reply;
    const down = unreachable(reply);
    if (down) return { verdict: down, record: recordOf(reply), storyboard: { reply: replyRecord(reply) } };
    // Which seed scenarios a controller offers is its choice (the 3.0 enum of declared scenarios
    // has no seed_*): a refusal leaves the storyboard unverifiable, a gap, never a failure.
    if (!reply.ok || reply.isError || (reply.payload as { success?: unknown } | undefined)?.success !== true) {
      const answer = reply.error ? `${reply.error.code}: ${reply.error.message}` : JSON.stringify(reply.payload)?.slice(0, 200);
      // Not the whole storyboard's reason: its steps are skipped because this prerequisite did not pass.
      return {
        verdict: {
          status: 'gap',
          gap: 'test controller seed scenarios',
          message: `${call.scenario} ${call.label}: the controller did not take the fixture (${answer}), so the steps, which name the seeded ids, cannot be judged`,
        },
        record: recordOf(reply),
        storyboard: {
          reply: replyRecord(reply),
          skip: {
            reason: 'missing_test_controller',
            detail: `${CONTROLLER_TASK} did not take ${call.scenario} ${call.label} (${answer}); supply a controller that takes ${call.scenario}`,
          },
        },
      };
    }
  }
  ctx.notes.push(`${calls.length} fixtures seeded through ${CONTROLLER_TASK}`);
  return { verdict: { status: 'ok' }, ...(last ? { storyboard: { reply: replyRecord(last) } } : {}) };
}
