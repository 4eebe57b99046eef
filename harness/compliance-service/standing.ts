/**
 * An agent's standing after a finished run, the same for both stores: when it last passed and
 * failed, since when it has been passing without a break (the streak), and whether it still has to
 * requalify after opting out (a full passing run while opted in clears it). Also the rate-limit
 * arithmetic of manual refreshes.
 */
import type { AgentStatus, RefreshLimits } from './types.js';

export interface Standing {
  last_passed_at: string | null;
  last_failed_at: string | null;
  passing_since: string | null;
  /** When it stopped passing (the first run after a pass that did not pass); null while passing or never passed. */
  regressed_at: string | null;
  requalification_required: boolean;
}

/** A database row (as rows.ts reads them). */
type Row = Record<string, unknown>;

/** The standing columns in the order stores write them (rows.ts standingSet). */
export const STANDING_KEYS = ['last_passed_at', 'last_failed_at', 'passing_since', 'regressed_at', 'requalification_required'] as const satisfies ReadonlyArray<
  keyof Standing
>;

/** `before` is the agent's row as it was (its standing columns). */
export function standingAfter(before: Row, status: AgentStatus, at: string): Standing {
  const prev = (k: string) => (before[k] === null || before[k] === undefined ? null : String(before[k]));
  const optedOut = before.opt_out === true || before.opt_out === 1;
  const requalifying = before.requalification_required === true || before.requalification_required === 1;
  return {
    last_passed_at: status === 'passing' ? at : prev('last_passed_at'),
    last_failed_at: status === 'failing' ? at : prev('last_failed_at'),
    passing_since: status === 'passing' ? (prev('passing_since') ?? at) : null,
    regressed_at: status === 'passing' ? null : (prev('regressed_at') ?? (before.status === 'passing' ? at : null)),
    requalification_required: requalifying && !(status === 'passing' && !optedOut),
  };
}

/** The standing columns read before a run is finished. */
export const STANDING_COLUMNS = `${STANDING_KEYS.join(', ')}, opt_out`;

/** Whole seconds until `at` (at least 1). */
export const retryAfter = (at: number, now: number): number => Math.max(1, Math.ceil((at - now) / 1000));

export type RefreshDecision = { ok: true } | { ok: false; retryAfterS: number; limit: 'agent' | 'caller' };

/**
 * Whether a manual refresh may run now: `lastForAgent` is the agent's latest refresh within its
 * window (or none), `callerTimes` the caller's refreshes within theirs, oldest first.
 */
export function refreshDecision(lastForAgent: number | undefined, callerTimes: readonly number[], now: number, l: RefreshLimits): RefreshDecision {
  if (lastForAgent !== undefined) return { ok: false, retryAfterS: retryAfter(lastForAgent + l.agentWindowMs, now), limit: 'agent' };
  if (callerTimes.length >= l.perCaller)
    return { ok: false, retryAfterS: retryAfter(callerTimes[callerTimes.length - l.perCaller]! + l.callerWindowMs, now), limit: 'caller' };
  return { ok: true };
}

/** Whole days of an unbroken passing streak (digest 6.3 `streak_days`). */
export function streakDays(passingSince: string | undefined, now: number): number {
  if (!passingSince) return 0;
  return Math.max(0, Math.floor((now - Date.parse(passingSince)) / 86_400_000));
}
