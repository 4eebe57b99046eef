/**
 * fuzz.model.media-buy: random interleavings of create, pause, resume, cancel, budget updates,
 * reads, replays and conflicting reuses of keys, checked command by command against the model of
 * the media-buy state machine (interface spec 3.1, digest 4) and of idempotency (interface spec
 * 4.4, digest 3), and a replay past the replay window where the test controller can move the
 * clock. fuzz.model.valid-actions runs the same sequences judging only valid_actions (a SHOULD).
 * fast-check shrinks a failing sequence; its seed and path replay it.
 */
import { listControllerScenarios } from '../../core/engine/profile.js';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { protocolIds } from '../../core/token.js';
import type { FuzzContext, FuzzProperty, FuzzRunOptions, PropertyOutcome } from '../property.js';
import { ConflictCmd, CreateCmd, OtherAccountCmd, ParallelCreateCmd, ReplayCmd, UpdateCmd } from './commands-change.js';
import { ForceCmd } from './commands-controller.js';
import { ListCmd, ReadCmd, RefusedCmd } from './commands-probe.js';
import type { Cmd, KeyChoice } from './execute.js';
import { beforeAging, ExpiryCmd } from './commands-expiry.js';
import { newModel } from './media-buy-model.js';
import { ModelViolation, ValidActionsViolation } from './reply-checks.js';
import { type RealRun, RunAborted, sequenceAccounts } from './run-state.js';
import { joinPath, splitPath } from './run-path.js';
import { clip } from '../judge.js';

export const MODEL_CHECK_ID = 'fuzz.model.media-buy';
export const VALID_ACTIONS_CHECK_ID = 'fuzz.model.valid-actions';
export const MAX_COMMANDS = 14;
const REQUIRED_TASKS = ['create_media_buy', 'update_media_buy', 'get_media_buys'];

const keyChoice: fc.Arbitrary<KeyChoice> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ fresh: true } as const) },
  { weight: 1, arbitrary: fc.nat(7).map((n) => ({ reuseFailed: n })) },
);
const revision = fc.constantFrom(undefined, 'current' as const, 'stale' as const);

function commandArbs(): fc.Arbitrary<Cmd>[] {
  return [...changeAndProbeArbs().map((a) => a.map(beforeAging)), fc.nat(15).map((i) => new ExpiryCmd(i))];
}

function changeAndProbeArbs(): fc.Arbitrary<Cmd>[] {
  const transitions = fc
    .tuple(fc.constantFrom('pause' as const, 'resume' as const, 'cancel' as const), revision, fc.nat(3), keyChoice)
    .map(([kind, rev, buy, k]) => new UpdateCmd({ kind, ...(rev ? { revision: rev } : {}) }, buy, k));
  const replays = fc.nat(15).map((i) => new ReplayCmd(i));
  const forces = fc
    .tuple(fc.nat(3), fc.constantFrom('completed' as const, 'rejected' as const, 'active' as const, 'pending_start' as const))
    .map(([b, t]) => new ForceCmd(b, t));
  // fc.commands picks its arbitraries uniformly: transitions and replays are listed more than once to weigh them up.
  return [
    transitions,
    transitions,
    transitions,
    replays,
    replays,
    fc.tuple(fc.nat(40), keyChoice).map(([b, k]) => new CreateCmd(b, k)),
    fc.tuple(fc.nat(40), keyChoice).map(([b, k]) => new CreateCmd(b, k, true)),
    forces,
    forces,
    fc
      .tuple(fc.integer({ min: 1, max: 60 }), revision, fc.nat(3), keyChoice)
      .map(([a, rev, buy, k]) => new UpdateCmd({ kind: 'budget', amount: a * 10 + 1, ...(rev ? { revision: rev } : {}) }, buy, k)),
    fc.tuple(fc.nat(15), fc.boolean()).map(([i, other]) => new ConflictCmd(i, other)),
    fc.tuple(fc.nat(3), fc.boolean()).map(([b, keyed]) => new ReadCmd(b, keyed)),
    fc.constant(new ListCmd()),
    fc.constant(new ParallelCreateCmd()),
    fc.nat(3).map((i) => new OtherAccountCmd(i)),
    fc
      .tuple(
        fc.constantFrom('unknown-buy' as const, 'unknown-package' as const, 'missing-key' as const, 'malformed-key' as const, 'invalid-payload' as const),
        fc.nat(3),
      )
      .map(([k, b]) => new RefusedCmd(k, b)),
  ];
}

/** The commands that ran, from fast-check's rendering of a command sequence (`a,b /*replayPath="…"*\/`). */
export function ranCommands(rendered: string): { commands: string[]; replayPath?: string } {
  const m = /\/\*replayPath="([^"]*)"\*\//.exec(rendered);
  const list = rendered.replace(/\s*\/\*replayPath="[^"]*"\*\//, '').trim();
  return { commands: list ? list.split(',') : [], ...(m ? { replayPath: m[1] } : {}) };
}

/**
 * The model as a property. `validActions` off: the MUST rules (status, revision, refusals,
 * replays). On: only valid_actions (SHOULD, digest 4.3) is judged; a sequence that breaks a MUST
 * rule first ends there without a verdict, since that rule is the other property's to report.
 */
function modelProperty(
  def: Pick<FuzzProperty, 'id' | 'title' | 'level' | 'spec' | 'sameRuleAs'>,
  validActions: boolean,
): FuzzProperty & { run(ctx: FuzzContext, opts: FuzzRunOptions): Promise<PropertyOutcome> } {
  return { ...def, run: (ctx, opts) => runModel(def.id, validActions, ctx, opts) };
}

export const stateMachineModel = modelProperty(
  {
    id: MODEL_CHECK_ID,
    title: 'media-buy state and replay cache agree with the model over random command sequences',
    level: 'MUST',
    spec: {
      doc: 'digest',
      section: '4',
      rule: 'status, revision and refusals follow the state machine (digest 4.2-4.5), a forced transition reads back as forced (digest 4.6); replays and conflicts follow idempotency (digest 3.2)',
    },
  },
  false,
);

export const validActionsModel = modelProperty(
  {
    id: VALID_ACTIONS_CHECK_ID,
    title: 'valid_actions follows the model state over random command sequences',
    level: 'SHOULD',
    spec: {
      doc: 'digest',
      section: '4.3',
      anchor: '43-which-actions-are-valid-in-which-state-should-level-valid_actions-on-getcreateupdate',
      rule: 'valid_actions per state (SHOULD-level on get, create and update)',
    },
    sameRuleAs: 'state-machine.valid-actions.match-state',
  },
  true,
);

async function runModel(checkId: string, validActions: boolean, ctx: FuzzContext, opts: FuzzRunOptions): Promise<PropertyOutcome> {
  const base = { check_id: checkId, seed: opts.seed };
  const listed = (await ctx.transport.listTasks(ctx.signal)).names;
  const missing = REQUIRED_TASKS.filter((t) => !listed.includes(t));
  // As the state-machine suite: an agent without the media-buy tasks is not judged on them.
  if (missing.length > 0)
    return { ...base, outcome: 'not_applicable', runs: 0, message: `the agent does not list ${missing.join(', ')}, which the media-buy model drives` };
  if (!ctx.product)
    return { ...base, outcome: 'gap', gap: 'a product to buy', runs: 0, message: 'the agent offers no product with a pricing option to create a buy of' };
  const caps = await ctx.transport.call(protocolIds(ctx.token).capabilitiesTask, {}, { signal: ctx.signal });
  // Digest 3.5: replay semantics are the seller's only with <token>.idempotency.supported: true
  // (read at the top level too, as suites/idempotency does).
  const payload = (caps.payload ?? {}) as Record<string, { idempotency?: { supported?: unknown } } | undefined> & { idempotency?: { supported?: unknown } };
  const idempotency = payload[ctx.token]?.idempotency?.supported === true || payload.idempotency?.supported === true;
  const declared = (caps.payload as { compliance_testing?: { scenarios?: unknown } } | undefined)?.compliance_testing?.scenarios;
  // Declared, or named by list_scenarios (the 3.0 capability admits only six names), as conditions.ts controller_scenario.
  const scenarios = [...(Array.isArray(declared) ? declared : []), ...((await listControllerScenarios(ctx.transport, caps.payload, ctx.signal)) ?? [])];
  const controller = listed.includes('comply_test_controller') && scenarios.includes('force_media_buy_status');
  const ttl = (payload[ctx.token]?.idempotency ?? payload.idempotency) as { replay_ttl_seconds?: unknown } | undefined;
  const canAge = listed.includes('comply_test_controller') && scenarios.includes('advance_clock');
  const replayTtlS = canAge && typeof ttl?.replay_ttl_seconds === 'number' && ttl.replay_ttl_seconds > 0 ? ttl.replay_ttl_seconds : undefined;
  const nonce = randomBytes(4).toString('hex');
  const seedTag = (opts.seed >>> 0).toString(36);
  const baseBudget = Math.max(5000, Math.ceil(ctx.product.min_budget ?? 0));
  const { path, replayPath } = splitPath(opts.path);
  let sequence = 0;
  let runs = 0;
  let inconclusive = 0;
  const property = fc.asyncProperty(
    fc.commands(commandArbs(), { maxCommands: MAX_COMMANDS, size: '+1', ...(replayPath ? { replayPath } : {}) }),
    async (cmds) => {
      if (ctx.signal.aborted) return;
      runs += 1;
      ctx.onCase?.();
      sequence += 1;
      const tag = `${seedTag}${nonce}s${sequence}`;
      const { accounts, private: privateAccounts } = sequenceAccounts(ctx, tag);
      // Every sequence starts from one created buy (the first command of its counterexample).
      const setup = async () => {
        const model = { ...newModel(accounts, baseBudget, idempotency, controller, replayTtlS), validActions, ...(ctx.target ? { line: ctx.target } : {}) };
        const real: RealRun = { ctx, prefix: `pcfz.${tag}`, counter: 0, privateAccounts };
        await new CreateCmd(0, { fresh: true }).run(model, real);
        return { model, real };
      };
      try {
        await fc.asyncModelRun(setup, cmds);
      } catch (e) {
        if (e instanceof RunAborted) return; // the budget ran out: not a counterexample
        if (validActions && e instanceof ModelViolation && !(e instanceof ValidActionsViolation)) {
          inconclusive += 1; // fuzz.model.media-buy reports it
          return;
        }
        throw e;
      }
    },
  );
  const details = await fc.check(property, { seed: opts.seed, numRuns: opts.numRuns, ...(path ? { path } : {}), endOnFailure: false });
  if (!details.failed) {
    const note = idempotency ? '' : 'idempotency.supported is not declared true, so replays and key rules were not checked';
    const stopped = ctx.signal.aborted ? `the run budget ran out after ${runs} of ${opts.numRuns} sequences` : '';
    const early = inconclusive
      ? `${inconclusive} sequence(s) ended at a disagreement of fuzz.model.media-buy before valid_actions could be judged further`
      : '';
    const message = [stopped, note, early].filter(Boolean).join('; ');
    return { ...base, outcome: 'pass', runs: ctx.signal.aborted ? runs : details.numRuns, ...(message ? { message } : {}) };
  }
  const rendered = String(details.counterexample?.[0] ?? '');
  const ran = ranCommands(rendered);
  const error = details.errorInstance;
  const message = error instanceof Error ? error.message : String(error);
  return {
    ...base,
    outcome: 'violated',
    runs: details.numRuns,
    ...(details.counterexamplePath ? { path: joinPath(details.counterexamplePath, ran.replayPath) } : {}),
    counterexample: ['create budget+0 key=fresh (setup)', ...ran.commands],
    message: clip(message.split('\n')[0]!, 400),
  };
}
