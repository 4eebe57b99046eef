/**
 * `{{signal_destinations:_}}`: where activate_signal sends a segment (interface spec 4.3:
 * destinations[] {type, platform}): the fixtures' `signals.destinations` when the certifier gave
 * them, else one platform of the harness's own (`proto-comply-test-dsp`). A seller with a closed
 * list of destinations refuses that one; its activation checks are then coverage gaps (the call
 * steps' `gap_if_refused` with `unless_fixture: signals.destinations`), not failures.
 */
import type { TemplateFunction } from '../../harness/core/engine/plugin.js';
import { fixturesOf } from '../../harness/core/fixtures/fixtures.js';

export const DEFAULT_SIGNAL_DESTINATIONS = [{ type: 'platform', platform: 'proto-comply-test-dsp' }];

export const signalDestinationsFunction: TemplateFunction = {
  resolve(_alias, scope) {
    return structuredClone(fixturesOf(scope).signals?.destinations ?? DEFAULT_SIGNAL_DESTINATIONS);
  },
};
