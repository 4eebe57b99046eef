/**
 * The chain of a storyboard's stateful steps (digest 6.1 `stateful`), judged as the steps run:
 * a stateful step needs the stateful steps before it to have held. The first one that fails or is
 * blocked blocks every later stateful step (blocked by that step); one that could not be verified
 * (a coverage gap) leaves them gaps too. A stateful step whose task the agent does not list
 * (missing_tool) means the state it would create never existed: the later stateful steps do not
 * apply either, unless it was the only stateful step of its phase (then the platform simply has no
 * such pathway, and the later phases run on their own merits), as the reference runner does. Any
 * other step that does not apply, and the steps of optional phases (paths, not links), leave the
 * chain whole.
 */
import type { StepVerdict } from '../engine/kinds/types.js';
import type { StoryboardPhase, StoryboardStep } from './model.js';

export type ChainBreak = { kind: 'blocked' | 'gap' | 'absent'; by: string; why: string };

/** What the chain says of a stateful step about to run, before anything is sent. */
export function chainVerdict(step: StoryboardStep, phase: StoryboardPhase, broken: ChainBreak | undefined): StepVerdict | undefined {
  if (!step.stateful || phase.optional || !broken) return undefined;
  if (broken.kind === 'gap')
    return { status: 'gap', gap: 'an earlier stateful step not verified', message: `the stateful step before it was not verified (${broken.why})` };
  if (broken.kind === 'absent') return { status: 'not_applicable', message: `needs the state of ${broken.by}, which never existed (${broken.why})` };
  return { status: 'unmet', message: `the stateful step before it did not hold (${broken.why})`, blocked_by: broken.by };
}

/** The chain after a stateful step's verdict (unchanged by a step that did not apply or passed). */
export function chainAfter(
  step: StoryboardStep,
  phase: StoryboardPhase,
  checkId: string,
  verdict: StepVerdict,
  broken: ChainBreak | undefined,
): ChainBreak | undefined {
  if (!step.stateful || phase.optional || broken) return broken;
  if (verdict.status === 'failed' || verdict.status === 'unmet') return { kind: 'blocked', by: checkId, why: verdict.message.slice(0, 300) };
  if (verdict.status === 'gap') return { kind: 'gap', by: checkId, why: verdict.message.slice(0, 300) };
  if (verdict.status === 'not_applicable' && verdict.message.startsWith('missing_tool') && phase.steps.filter((s) => s.stateful).length > 1)
    return { kind: 'absent', by: checkId, why: verdict.message.slice(0, 300) };
  return undefined;
}
