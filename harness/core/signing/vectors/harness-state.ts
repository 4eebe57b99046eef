/**
 * White-box installation of a vector's `test_harness_state` (digest 2.2 request keys, 2.3
 * webhook keys) into a real replay cache and revocation list. Unknown keys cannot be
 * installed: the caller reports such a webhook vector as not applicable.
 */
import { InMemoryReplayCache, REPLAY_TTL_SLACK_SECONDS } from '../verify/replay-cache.js';
import { InMemoryRevocation, listRefreshedAgo, type RevocationList } from '../verify/revocation.js';

/**
 * Per-keyid cap the runner configures for the test counterparty (the black-box contract's
 * grading target is 100; production floors are far higher).
 */
export const RUNNER_PER_KEYID_CAP = 100;
const DEFAULT_ENTRY_TTL = 300 + REPLAY_TTL_SLACK_SECONDS;
/** A list as published moments ago: fresh for any verification at `now`. */
const FRESH_INTERVAL = 900;

export interface InstalledState {
  replayCache: InMemoryReplayCache;
  revocation?: InMemoryRevocation;
  /** State keys that could not be installed. */
  unsupported: string[];
}

function freshList(now: number, revokedKids: string[]): RevocationList {
  return {
    updated: new Date(now * 1000).toISOString(),
    next_update: new Date((now + FRESH_INTERVAL) * 1000).toISOString(),
    revoked_kids: revokedKids,
    revoked_jtis: [],
  };
}

function fillCap(cache: InMemoryReplayCache, keyid: string, now: number): void {
  for (let i = 0; cache.size(keyid, now) < RUNNER_PER_KEYID_CAP; i++) {
    cache.insert(keyid, `placeholder-${i}`, DEFAULT_ENTRY_TTL, now);
  }
}

export class HarnessStateError extends Error {
  override name = 'HarnessStateError';
}

export function installHarnessState(state: Record<string, unknown> | undefined, now: number): InstalledState {
  const replayCache = new InMemoryReplayCache({ perKeyidCap: RUNNER_PER_KEYID_CAP });
  let revocation: InMemoryRevocation | undefined;
  const unsupported: string[] = [];
  let revokedKids: string[] | undefined;
  let staleSeconds: number | undefined;
  for (const [key, value] of Object.entries(state ?? {})) {
    if (key.startsWith('$') || key.startsWith('_')) continue;
    // biome-ignore lint/suspicious/noExplicitAny: test_harness_state members are free-form JSON, checked per key below
    const v = value as any;
    switch (key) {
      case 'replay_cache_entries':
        if (!Array.isArray(v)) throw new HarnessStateError('replay_cache_entries must be an array');
        for (const e of v) {
          if (typeof e?.keyid !== 'string' || typeof e?.nonce !== 'string') throw new HarnessStateError('replay entry needs keyid and nonce');
          replayCache.insert(e.keyid, e.nonce, typeof e.ttl_seconds === 'number' ? e.ttl_seconds : DEFAULT_ENTRY_TTL, now);
        }
        break;
      case 'replay_cache_per_keyid_cap_hit':
        if (typeof v?.keyid !== 'string') throw new HarnessStateError('replay_cache_per_keyid_cap_hit needs a keyid');
        fillCap(replayCache, v.keyid, now);
        break;
      case 'per_keyid_cap_filled_for':
        if (typeof v !== 'string') throw new HarnessStateError('per_keyid_cap_filled_for must be a keyid');
        fillCap(replayCache, v, now);
        break;
      case 'revocation_list':
        revocation = new InMemoryRevocation(v as RevocationList);
        break;
      case 'revoked_kids':
        if (!Array.isArray(v) || !v.every((k) => typeof k === 'string')) throw new HarnessStateError('revoked_kids must be an array of keyids');
        revokedKids = v;
        break;
      case 'revocation_list_stale_seconds':
        if (typeof v !== 'number' || v < 0) throw new HarnessStateError('revocation_list_stale_seconds must be a non-negative number');
        staleSeconds = v;
        break;
      default:
        unsupported.push(key);
    }
  }
  if (revokedKids !== undefined || staleSeconds !== undefined) {
    if (revocation) throw new HarnessStateError('revocation_list cannot be combined with revoked_kids / revocation_list_stale_seconds');
    const list = staleSeconds === undefined ? freshList(now, revokedKids ?? []) : listRefreshedAgo(staleSeconds, now, revokedKids ?? []);
    revocation = new InMemoryRevocation(list);
  }
  return { replayCache, revocation, unsupported };
}
