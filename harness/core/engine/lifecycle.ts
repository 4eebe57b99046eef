/**
 * The agent's lifecycle stage (digest 6.3 `lifecycle_stage`): what the user says it is
 * (`run --lifecycle-stage`), or else what its declaration shows. A production deployment offers no
 * sandbox test controller and no `compliance_testing` block (digest 4.6), so an agent declaring one
 * is `testing` and one declaring none is taken for `production`. Rules that bind production
 * deployments only are judged when the stage is `production` (the `lifecycle_stage` condition).
 */
export const LIFECYCLE_STAGES = ['development', 'testing', 'production', 'deprecated'] as const;
export type LifecycleStage = (typeof LIFECYCLE_STAGES)[number];

export function isLifecycleStage(x: unknown): x is LifecycleStage {
  return typeof x === 'string' && (LIFECYCLE_STAGES as readonly string[]).includes(x);
}

/** The stage the user gave, or the one the capability declarations show. */
export function lifecycleStageOf(given: LifecycleStage | undefined, declarations: ReadonlyArray<Record<string, unknown> | undefined>): LifecycleStage {
  if (given) return given;
  return declarations.some((c) => c?.compliance_testing !== undefined) ? 'testing' : 'production';
}
