/**
 * Revocation (digest 1.13). The operator's combined list `{issuer, updated, next_update,
 * revoked_kids, revoked_jtis}`; for request and webhook keys only `revoked_kids` matters.
 * The list is stale when it was not refreshed by `next_update + grace`, grace = 4 x the poll
 * interval, the interval being `next_update - updated` clamped to [60 s, 30 min].
 *
 * Fetching and JWS verification of the list are left to the caller (the transport list's URL
 * is not specified); `update` installs a freshly verified list.
 */

type MaybePromise<T> = T | Promise<T>;

export type RevocationStatus = 'ok' | 'revoked' | 'stale';

export interface RevocationChecker {
  check(keyid: string, now: number): MaybePromise<RevocationStatus>;
}

export interface RevocationList {
  issuer?: string;
  updated: string;
  next_update: string;
  revoked_kids: string[];
  revoked_jtis?: string[];
  version?: number | string;
}

export const MIN_POLL_SECONDS = 60;
export const MAX_POLL_SECONDS = 1800;

export class RevocationListError extends Error {
  override name = 'RevocationListError';
}

function seconds(iso: string, field: string): number {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) throw new RevocationListError(`revocation list ${field} is not a date: ${JSON.stringify(iso)}`);
  return Math.floor(ms / 1000);
}

/** Poll interval implied by a list, clamped to the profile's floor and ceiling. */
export function pollIntervalSeconds(list: RevocationList): number {
  const raw = seconds(list.next_update, 'next_update') - seconds(list.updated, 'updated');
  return Math.min(MAX_POLL_SECONDS, Math.max(MIN_POLL_SECONDS, raw));
}

/** An installed revocation list. */
export class InMemoryRevocation implements RevocationChecker {
  private revoked = new Set<string>();
  private staleAfter = Number.POSITIVE_INFINITY;
  /** The last keyid checked and whether it is revoked (cleared when a list is installed). */
  private lastKeyid: string | undefined;
  private lastRevoked = false;

  constructor(list?: RevocationList) {
    if (list) this.update(list);
  }

  /** Install a verified list. */
  update(list: RevocationList): void {
    if (!Array.isArray(list.revoked_kids) || !list.revoked_kids.every((k) => typeof k === 'string')) {
      throw new RevocationListError('revocation list revoked_kids must be an array of strings');
    }
    const nextUpdate = seconds(list.next_update, 'next_update');
    this.revoked = new Set(list.revoked_kids);
    this.staleAfter = nextUpdate + 4 * pollIntervalSeconds(list);
    this.lastKeyid = undefined;
  }

  check(keyid: string, now: number): RevocationStatus {
    if (keyid !== this.lastKeyid) {
      this.lastRevoked = this.revoked.has(keyid);
      this.lastKeyid = keyid;
    }
    if (this.lastRevoked) return 'revoked';
    if (now > this.staleAfter) return 'stale';
    return 'ok';
  }
}

/**
 * A list as it would look after its last successful refresh `ageSeconds` ago with the
 * longest allowed poll interval: what a receiver holds when refreshes have been failing.
 */
export function listRefreshedAgo(ageSeconds: number, now: number, revokedKids: string[] = []): RevocationList {
  const updated = now - ageSeconds;
  return {
    updated: new Date(updated * 1000).toISOString(),
    next_update: new Date((updated + MAX_POLL_SECONDS) * 1000).toISOString(),
    revoked_kids: revokedKids,
    revoked_jtis: [],
  };
}
