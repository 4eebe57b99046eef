/**
 * Verification badges (digest 6.3 `VerificationBadge`): which roles an agent is verified for, at
 * which protocol version, and each badge's state.
 *
 * - Roles come from the tasks the agent declared in its latest run (ROLE_TASKS): a role is
 *   claimed when the agent lists one of its defining tasks. The verdict is the run's as a whole:
 *   every claimed role is verified by a passing full run.
 * - State: `active` while the agent passes; `degraded` once it stops passing, for the grace period
 *   (`--badge-grace-h`, default 72 h from the first run that did not pass); `revoked` after it,
 *   and at once on opting out (until a full passing run after opting back in). A revoked badge is
 *   not listed, and neither is its token.
 */
import type { AgentRow } from './types.js';
import { BADGE_ROLES, type BadgeRole } from './badge-tokens/claims.js';

/** The roles of digest 6.3's VerificationBadge (the token's claims share the list). */
export const ROLES = BADGE_ROLES;
export type Role = BadgeRole;
export const isRole = (x: string): x is Role => (ROLES as readonly string[]).includes(x);

/** The tasks that make an agent claim a role (a seller's `list_creative_formats` or `sync_creatives` do not make it a creative agent). */
const ROLE_TASKS: Record<Role, readonly string[]> = {
  'media-buy': ['get_products', 'create_media_buy', 'update_media_buy', 'get_media_buys', 'get_media_buy_delivery'],
  creative: ['build_creative', 'preview_creative'],
  signals: ['get_signals', 'activate_signal'],
  governance: ['check_governance', 'get_plan_audit_logs'],
  brand: ['get_brand_identity'],
  'sponsored-intelligence': ['si_get_offering', 'si_initiate_session'],
};

export type BadgeState = 'active' | 'degraded' | 'revoked';

export interface BadgePolicy {
  /** How long a badge stays (degraded) after the agent stops passing. */
  graceMs: number;
}

export const DEFAULT_BADGE_GRACE_MS = 72 * 3_600_000;

export interface Badge {
  role: Role;
  /** The line judged, e.g. "3.1". */
  proto_version: string;
  /** The concrete version tested. */
  verified_protocol_version: string;
  verified_at: string;
  verified_specialisms: string[];
  verification_modes: Array<'spec' | 'live'>;
  state: BadgeState;
}

export function claimedRoles(tasks: readonly string[]): Role[] {
  return ROLES.filter((r) => ROLE_TASKS[r].some((t) => tasks.includes(t)));
}

export function badgeState(agent: AgentRow, now: number, policy: BadgePolicy): BadgeState | undefined {
  if (!agent.lastPassedAt) return undefined;
  if (agent.optOut || agent.requalificationRequired) return 'revoked';
  if (agent.status === 'passing') return 'active';
  const since = agent.regressedAt ? Date.parse(agent.regressedAt) : Date.parse(agent.lastPassedAt);
  return now - since <= policy.graceMs ? 'degraded' : 'revoked';
}

/**
 * The agent's badges that are not revoked, one per claimed role, at the version of its last
 * passing run (`versions`: the target line and concrete version that run tested).
 */
export function badgesOf(agent: AgentRow, versions: { line: string; version: string } | undefined, now: number, policy: BadgePolicy): Badge[] {
  const state = badgeState(agent, now, policy);
  if (!state || state === 'revoked' || !versions || !agent.lastPassedAt) return [];
  return claimedRoles(agent.capabilities).map((role) => ({
    role,
    proto_version: versions.line,
    verified_protocol_version: versions.version,
    verified_at: agent.lastPassedAt!,
    verified_specialisms: [],
    verification_modes: ['spec'],
    state,
  }));
}
