/**
 * Why a storyboard step was not run, in the runner output contract's vocabulary (`skip_result`),
 * from what its result records: the step kind's own reason when it gave one (selection, a missing
 * tool or test controller, a step the harness does not run yet, a path not taken), else the
 * engine's: blocked → prerequisite_failed naming the step that did not pass; not applicable or a
 * gap taken from a prerequisite → that prerequisite's reason when it covers the whole storyboard
 * or is informative (not_applicable), else prerequisite_failed naming it; the budget running out
 * → unsatisfied_contract (the operator's limit, the contract's canonical reason for opt-outs).
 */
import type { CheckResult } from '../harness/core/engine/result.js';
import type { StoryboardSkip } from '../harness/core/engine/storyboard-step.js';

/** How a check is named in a detail: its step `<phase>.<step>` (and check id), or the transport. */
export function stepName(id: string, resultOf: (checkId: string) => CheckResult | undefined): string {
  const transport = /^transport\.(\w+)$/.exec(id)?.[1];
  if (transport) return `the ${transport} transport`;
  const step = resultOf(id)?.storyboard_step;
  return step ? `prerequisite step ${step.phase_id}.${step.step_id} (${id})` : id;
}

/** A blocked check's message without the engine's own words before the cause ("blocked by X: step 1 could not be carried out: "). */
const withoutEnginePrefix = (message: string) => message.replace(/^blocked by \S+: /, '').replace(/^(setup )?step \d+ (could not be carried out|failed): /, '');

/** The step ran to a verdict of its own (it judged a reply, or the harness broke on it). */
export function ran(check: CheckResult): boolean {
  if (check.outcome === 'pass' || check.outcome === 'fail' || check.outcome === 'warn' || check.outcome === 'info' || check.outcome === 'error') return true;
  const s = check.storyboard_step;
  return s?.skip === undefined && (s?.reply !== undefined || s?.validations !== undefined);
}

/** The skip of a step that was not run; undefined for one that ran. `resultOf`: another check on the same transport. */
export function skipOf(check: CheckResult, resultOf: (checkId: string) => CheckResult | undefined, depth = 0): StoryboardSkip | undefined {
  if (ran(check)) return undefined;
  const own = check.storyboard_step?.skip;
  if (own) return own;
  if (check.not_run)
    return { reason: 'unsatisfied_contract', detail: `not run: the run budget ran out before this step (${check.message}); supply a larger --budget-s` };
  if (check.outcome === 'blocked' && check.blocked_by)
    return { reason: 'prerequisite_failed', detail: `${stepName(check.blocked_by, resultOf)} did not pass: ${withoutEnginePrefix(check.message)}` };
  const from = check.inherited_from ? resultOf(check.inherited_from) : undefined;
  const inherited = from && depth < 100 ? skipOf(from, resultOf, depth + 1) : undefined;
  if (check.inherited_from && inherited) {
    if (inherited.whole_storyboard || inherited.reason === 'not_applicable' || inherited.reason === 'peer_branch_taken') return inherited;
    return {
      reason: 'prerequisite_failed',
      detail: `${stepName(check.inherited_from, resultOf)} was not run (${inherited.reason}: ${inherited.detail})`,
    };
  }
  if (check.inherited_from) return { reason: 'prerequisite_failed', detail: `${stepName(check.inherited_from, resultOf)} did not pass: ${check.message}` };
  // The engine's own preflight: the transport is not offered, or the step is outside the run's line
  // (the run's selection excluded it before it ran: counted apart, as steps_not_selected).
  return { reason: 'not_applicable', detail: check.message, not_selected: true };
}

/**
 * A path not taken in an optional phase whose branch set a peer step contributed is moot:
 * `peer_branch_taken`, with the contract's detail "<branch_set.id> contributed by
 * <peer_phase_id>.<peer_step_id> — <this_phase_id> is moot". `peers`: the storyboard's other
 * steps on the same transport.
 */
export function peerBranchTaken(check: CheckResult, skip: StoryboardSkip, peers: readonly CheckResult[]): StoryboardSkip {
  const step = check.storyboard_step;
  const set = step?.branch_set;
  if (!step || !set || skip.reason !== 'not_applicable') return skip;
  const peer = peers.find((p) => p.outcome === 'pass' && p.storyboard_step?.contributes === set && p.storyboard_step.phase_id !== step.phase_id);
  if (!peer?.storyboard_step) return skip;
  return {
    reason: 'peer_branch_taken',
    detail: `${set} contributed by ${peer.storyboard_step.phase_id}.${peer.storyboard_step.step_id} — ${step.phase_id} is moot`,
  };
}
