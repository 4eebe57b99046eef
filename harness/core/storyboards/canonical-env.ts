/**
 * What a step judging `canonical_format_satisfaction` (canonical-format.ts) needs beyond the
 * reply: the request it sent, and the v1 → canonical registry of the released schema set the run
 * applies (v1-registry.ts; none when the set is of another line or has no registry). Other steps
 * get nothing.
 */
import type { CheckContext } from '../engine/kinds/types.js';
import { releasedFor } from '../engine/kinds/released-schemas.js';
import type { ValidationEnv } from './judge.js';
import type { StoryboardStep } from './model.js';
import { v1RegistryOf } from './v1-registry.js';

export function canonicalEnv(ctx: Pick<CheckContext, 'schemas' | 'target'>, step: StoryboardStep, sent: unknown): Pick<ValidationEnv, 'sent' | 'v1Registry'> {
  if (!step.validations.some((v) => v.check === 'canonical_format_satisfaction')) return {};
  const registry = v1RegistryOf(releasedFor(ctx).set?.dir);
  return { sent, ...(registry ? { v1Registry: registry } : {}) };
}
