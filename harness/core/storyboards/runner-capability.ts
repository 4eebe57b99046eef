/**
 * The runner capability version (digest 6.1: `run_summary.runner_capability_version`, and a
 * validation's `expires_after_version`: an advisory validation is judged as required once the
 * runner's capability version reaches it). It is the version of the reference runner (@adcp/sdk)
 * whose storyboard behaviour this engine is held to, step by step, in the side-by-side tables
 * (suites/interop/storyboards-<agent>.md); suites/interop/storyboards.test.ts fails when the pinned
 * SDK is another version, so a newer runner's promotions are taken only once the tables are.
 */
import semver from 'semver';
import type { StoryboardValidation } from './model.js';

export const RUNNER_CAPABILITY_VERSION = '6.11.0';

/**
 * The severity a validation is judged at: `advisory` until the runner capability version reaches
 * its `expires_after_version` (a version that is not semver never promotes: the storyboard's defect).
 */
export function severityOf(v: Pick<StoryboardValidation, 'severity' | 'expires_after_version'>): 'required' | 'advisory' {
  if (v.severity !== 'advisory') return 'required';
  const expires = v.expires_after_version === undefined ? null : semver.valid(semver.coerce(v.expires_after_version, { includePrerelease: true }));
  return expires !== null && semver.gte(RUNNER_CAPABILITY_VERSION, expires) ? 'required' : 'advisory';
}
