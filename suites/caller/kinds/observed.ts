/**
 * `observed_only`: a rule that binds the buyer and is judged only from a buyer's observed requests
 * (`proto-comply proxy`, harness/proxy/caller-audit.ts). In `run` the harness itself is the
 * buyer, so there is nothing to judge: not applicable, saying where the rule is judged.
 */
import type { StepKind } from '../../../harness/core/engine/kinds/types.js';

export const OBSERVED_ONLY_REASON =
  'a rule for the buyer: judged by `proto-comply proxy` from the requests a buyer sends through it (its caller report), not by `run`, where the harness is the buyer';

export const observedOnly: StepKind = {
  name: 'observed_only',
  fields: {},
  async run() {
    return { verdict: { status: 'not_applicable', message: OBSERVED_ONLY_REASON } };
  },
};
