/**
 * Optional phases and branch sets (digest 6.1 phase `optional`, `branch_set`; the bundle's
 * storyboard-schema "Branch sets"): peer optional phases try mutually exclusive behaviours of the
 * agent for one trigger (reject a past start_time, or accept and adjust it). A step of an optional
 * phase that does not hold is the path the agent did not take, never its failure; a step that
 * passes contributes its flag (`contributes_to`, or `contributes: true` for the phase's
 * `branch_set.id`), and the later `assert_contribution` step fails only when no path contributed.
 */
import type { StepVerdict } from '../engine/kinds/types.js';
import type { ValidationRecord } from '../engine/storyboard-step.js';
import type { StoryboardPhase, StoryboardStep, StoryboardValidation } from './model.js';
import type { StoryboardState } from './state.js';

/** The flag a passing step contributes, if any. */
export function contributionOf(phase: StoryboardPhase, step: StoryboardStep): string | undefined {
  if (typeof step.raw.contributes_to === 'string' && step.raw.contributes_to.length > 0) return step.raw.contributes_to;
  const set = phase.raw.branch_set as { id?: unknown } | undefined;
  return step.raw.contributes === true && typeof set?.id === 'string' ? set.id : undefined;
}

/**
 * Whether a passing step's contribution counts under its `contributes_if` (the one grammar the
 * schema gives: `prior_step.<id>.passed`): `yes`, `no`, or why it cannot be known (that step was
 * not judged: a gap). Any other expression contributes nothing, as the reference runner does.
 */
export function contributionIf(
  step: StoryboardStep,
  passed: ReadonlySet<string>,
  notJudged: ReadonlyMap<string, string>,
): 'yes' | 'no' | { unverified: string } {
  const expr = step.raw.contributes_if;
  if (expr === undefined) return 'yes';
  const id = typeof expr === 'string' ? /^prior_step\.([A-Za-z0-9_]+)\.passed$/.exec(expr.trim())?.[1] : undefined;
  if (id === undefined) return 'no';
  if (passed.has(id)) return 'yes';
  const why = notJudged.get(id);
  return why === undefined ? 'no' : { unverified: `contributes_if ${expr}: step ${id} was not judged (${why})` };
}

/**
 * Keeps a step's verdict for the steps after it: whether it passed or was not judged (a gap,
 * blocked), for `contributes_if`; its contribution, or why its contribution is unverified.
 */
export function recordVerdict(
  phase: StoryboardPhase,
  step: StoryboardStep,
  v: StepVerdict,
  state: Pick<StoryboardState, 'passed' | 'notJudged' | 'contributions' | 'unverifiedContributions'>,
): void {
  const notJudged = v.status === 'gap' || v.status === 'unmet';
  if (v.status === 'ok') state.passed.add(step.id);
  if (notJudged) state.notJudged.set(step.id, v.message);
  const flag = contributionOf(phase, step);
  if (!flag) return;
  if (notJudged) return void state.unverifiedContributions.set(flag, `${step.id}: ${v.message}`);
  if (v.status !== 'ok') return;
  const gate = contributionIf(step, state.passed, state.notJudged);
  if (gate === 'yes') state.contributions.add(flag);
  else if (gate !== 'no') state.unverifiedContributions.set(flag, `${step.id}: ${gate.unverified}`);
}

/** A step's verdict inside an optional phase: what did not hold is a path not taken. */
export function withinOptionalPhase(phase: StoryboardPhase, verdict: StepVerdict): StepVerdict {
  if (!phase.optional || verdict.status !== 'failed') return verdict;
  const set = (phase.raw.branch_set as { id?: unknown } | undefined)?.id;
  return {
    status: 'not_applicable',
    message: `optional phase ${phase.id}${typeof set === 'string' ? ` (branch set ${set})` : ''}: a path the agent did not take (${verdict.message}); the storyboard's assert_contribution judges the set`,
  };
}

/**
 * `assert_contribution`: its any_of validations hold when a step contributed one of their flags
 * (each is judged, for the record). When none did but a contributing step could not be verified
 * (`unverified`: flag → that step's gap or block), the assertion cannot be judged either: a gap
 * saying which path was not run.
 */
export function judgeContribution(
  step: StoryboardStep,
  contributed: ReadonlySet<string>,
  unverified: ReadonlyMap<string, string> = new Map(),
): { verdict: StepVerdict; validations: ValidationRecord[] } {
  const flagsOf = (v: StoryboardValidation) => (v.allowed_values ?? []).filter((x): x is string => typeof x === 'string');
  const anyOf = step.validations.filter((v) => v.check === 'any_of' && flagsOf(v).length > 0);
  const validations = anyOf.map((v): ValidationRecord => {
    const held = flagsOf(v).some((flag) => contributed.has(flag));
    const base = { check: v.check, severity: v.severity ?? 'required', ...(v.description ? { description: v.description } : {}) } as const;
    if (held) return { ...base, outcome: 'passed' };
    return {
      ...base,
      outcome: 'failed',
      message: `no path contributed ${flagsOf(v).join(' or ')}`,
      expected: flagsOf(v),
      actual: [...contributed],
      pointer: '',
    };
  });
  const wanted = anyOf.flatMap(flagsOf);
  if (wanted.length === 0)
    return { verdict: { status: 'not_applicable', message: 'assert_contribution names no flag (no any_of validation with allowed_values)' }, validations };
  if (wanted.some((flag) => contributed.has(flag))) return { verdict: { status: 'ok' }, validations };
  const notRun = wanted.map((flag) => unverified.get(flag)).filter((why): why is string => why !== undefined);
  if (notRun.length > 0)
    return {
      verdict: {
        status: 'gap',
        gap: 'a branch-set path the harness could not run',
        message: `no path contributed ${wanted.join(' or ')}, and not every path was verified: ${notRun.join('; ')}`,
      },
      validations,
    };
  const why = anyOf[0]?.description;
  return {
    verdict: { status: 'failed', message: `no path contributed ${wanted.join(' or ')}${why ? `: ${why}` : ''}`, expected: wanted, actual: [...contributed] },
    validations,
  };
}
