/**
 * How the service signs its badges (badge-tokens/): each listed badge's token is issued from the
 * badge's own facts, at the time of the pass that verified it, with an id derived from them, so
 * the same badge always reads as the same token until a new pass re-verifies it. Tokens live
 * BADGE_TOKEN_LIFETIME_S; a revoked badge is no longer listed, so neither is its token (a copy
 * already handed out stays valid until it expires: verifiers that need revocation read
 * `…/verification`).
 */
import { createHash } from 'node:crypto';
import type { Badge } from './badges.js';
import { type BadgeKeySet, issueBadgeToken } from './badge-tokens/index.js';
import type { AgentRow } from './types.js';

/** 14 days: longer than the longest probing interval (168 h), so an active badge's token never lapses between two runs. */
export const BADGE_TOKEN_LIFETIME_S = 14 * 86_400;

export function badgeSigner(keys: BadgeKeySet, issuer: () => string): (agent: AgentRow, badge: Badge) => Promise<string> {
  return (agent, b) => {
    const jti = createHash('sha256')
      .update(JSON.stringify([agent.url, b.role, b.proto_version, b.verified_protocol_version, b.verified_at]))
      .digest('hex')
      .slice(0, 32);
    return issueBadgeToken(
      keys,
      {
        iss: issuer(),
        sub: agent.url,
        role: b.role,
        verified_specialisms: b.verified_specialisms,
        verification_modes: b.verification_modes,
        proto_version: b.proto_version,
        verified_protocol_version: b.verified_protocol_version,
        jti,
      },
      { now: new Date(b.verified_at), lifetimeSeconds: Math.min(BADGE_TOKEN_LIFETIME_S, keys.maxTokenLifetimeSeconds) },
    );
  };
}
