/**
 * A storyboard bundle as suites of the engine (`run --storyboards`): one suite per storyboard,
 * one check per step with the id `storyboard.<storyboard>.<phase>.<step>`, and for a step with
 * advisory validations a second, SHOULD-level check `….advisory`. The checks of a storyboard run
 * one after another (serial), a stateful step after the stateful step before it (its
 * prerequisite, so it is blocked by that step's failure). Storyboards seed and create under
 * fixed fixture ids and accounts, so they run one at a time and the transports one after another
 * (the reference runner runs them in sequence too). A
 * storyboard that seeds its fixtures through the test controller starts with the check
 * `storyboard.<storyboard>.controller-seeding`, which every step needs. Which
 * storyboards apply is decided at run time from each transport's agent (select.ts).
 */
import type { SuiteCatalog } from '../engine/loader.js';
import { KindRegistry } from '../engine/kinds/registry.js';
import type { CheckDef, SuiteDef } from '../engine/model.js';
import type { StoryboardBundle, StoryboardStep } from './model.js';
import { seedsFixtures } from './seeding.js';
import { storyboardStepKind } from './step-kind.js';
import { contributionOf } from './branch-sets.js';
import { type KitOf, taskOf, testKitOf } from './test-kits.js';
import { UnresolvedSubstitution } from './substitute.js';
import { CONTROLLER_TASK } from '../protocol/tasks.js';
import type { StoryboardStepRef } from '../engine/storyboard-step.js';

import { idPart, stepCheckId } from './check-ids.js';

export { idPart, stepCheckId };

const prerequisiteOf = (id: string | undefined) => (id ? { prerequisite: id } : {});

export function compileStoryboards(bundle: StoryboardBundle): SuiteCatalog {
  const kind = storyboardStepKind(bundle);
  const kinds = new KindRegistry([{ id: 'storyboards', file: new URL('file:///storyboards'), stepKinds: [kind] }]);
  const suites: SuiteDef[] = [];
  for (const sb of bundle.storyboards.values()) {
    const checks: CheckDef[] = [];
    // A storyboard that seeds its fixtures through the controller does that first; every step needs it.
    const seeding = seedsFixtures(sb) ? `storyboard.${idPart(sb.id)}.controller-seeding` : undefined;
    if (seeding)
      checks.push({
        id: seeding,
        title: `${sb.title}: controller seeding of the storyboard's fixtures`,
        level: 'MUST',
        // Never failed (seeding.ts): a refusal is a coverage gap.
        spec: {
          doc: 'digest',
          section: '6.1',
          rule: `controller seeding: the fixtures of storyboard ${sb.id} (${sb.file}) through comply_test_controller seed_* scenarios`,
        },
        serial: true,
        storyboard_step: { storyboard_id: sb.id, phase_id: 'prerequisites', step_id: 'controller_seeding', task: CONTROLLER_TASK, seeding: true },
        steps: [{ kind: kind.name, storyboard: sb.id, seed: true }],
      });
    const checkOf = new Map(sb.phases.flatMap((p) => p.steps.map((st) => [st.id, stepCheckId(sb.id, p.id, st.id)] as const)));
    for (const phase of sb.phases) {
      const branchSet = phase.optional ? (phase.raw.branch_set as { id?: unknown } | undefined)?.id : undefined;
      for (const step of phase.steps) {
        const id = stepCheckId(sb.id, phase.id, step.id);
        // A webhook assertion judges what its trigger caused: it needs that step (webhook-steps.ts).
        const trigger = typeof step.raw.triggered_by === 'string' ? checkOf.get(step.raw.triggered_by) : undefined;
        const contributes = contributionOf(phase, step);
        const ref: StoryboardStepRef = {
          storyboard_id: sb.id,
          phase_id: phase.id,
          step_id: step.id,
          // The task it calls: a test kit's, when the storyboard names one (test-kits.ts).
          task: taskNamed(step, testKitOf(bundle, sb)),
          ...(typeof branchSet === 'string' ? { branch_set: branchSet } : {}),
          ...(contributes ? { contributes } : {}),
        };
        const spec = {
          doc: 'digest' as const,
          section: '6.1',
          rule: `storyboard ${sb.id} (${sb.file}), phase ${phase.id}, step ${step.id}: ${step.title ?? step.task}`,
        };
        checks.push({
          id,
          title: `${sb.title}: ${step.title ?? step.id}`,
          level: 'MUST',
          spec,
          serial: true,
          storyboard_step: ref,
          steps: [
            // Any step needs the seeding, a webhook assertion its trigger; a stateful step needs the
            // stateful steps before it, judged as they run (stateful-chain.ts), since one that does not
            // apply leaves the chain whole.
            { kind: kind.name, storyboard: sb.id, phase: phase.id, step: step.id, ...prerequisiteOf(trigger ?? seeding) },
          ],
        });
        if (step.validations.some((v) => v.severity === 'advisory'))
          checks.push({
            id: `${id}.advisory`,
            title: `${sb.title}: ${step.title ?? step.id} (advisory validations)`,
            level: 'SHOULD',
            spec,
            serial: true,
            storyboard_step: { ...ref, advisory: true },
            steps: [{ kind: kind.name, storyboard: sb.id, phase: phase.id, step: step.id, advisory: true, prerequisite: id }],
          });
      }
    }
    if (checks.length > 0)
      // order `first`: a transport runs its storyboards one at a time, as the reference runner does,
      // since storyboards seed and create under the same fixture ids and accounts.
      suites.push({
        id: `storyboard.${idPart(sb.id)}`,
        title: sb.title,
        order: 'first',
        storyboard_id: sb.id,
        ...(sb.track ? { track: sb.track } : {}),
        checks,
      });
  }
  // The transports share that agent-side state too: one after another.
  return { suites, kinds, transportsInTurn: true };
}

/** The task a step calls, a test kit's when it names one; the authored name when the kit lacks it (the step says why when it runs). */
function taskNamed(step: StoryboardStep, kit: KitOf): string {
  try {
    return taskOf(step, kit);
  } catch (e) {
    if (e instanceof UnresolvedSubstitution) return step.task;
    throw e;
  }
}
