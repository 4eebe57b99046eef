/**
 * Idempotency (interface spec 4.4, digest 3): key validation, the canonical payload hash, and the
 * replay cache with an in-flight claim so concurrent same-key requests create one resource
 * (wait-and-replay policy). Only successes are cached; a failed first execution releases the key.
 */
import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { FaultSet } from '../faults.js';
import type { IdemScope, IdempotencyStore } from '../store/idempotency-store.js';
import type { SellerClock } from './clock.js';
import { type ErrorBody, invalidRequest } from './errors.js';
import type { IdempotencyClass, SuccessOutcome, TaskOutcome } from './task-def.js';
import { A2A_PUSH_FIELD, isPlainObject } from './task-def.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { type InsertRateLimit, InsertRateLimiter } from './rate-limit.js';

/** How long the concurrent-double-create fault holds each request between lookup and execution
 *  (and the in-flight-unavailable fault the claimed one), so concurrent copies overlap. */
const FAULT_RACE_WINDOW_MS = 500;

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_.:-]{16,255}$/;
export const REPLAY_TTL_SECONDS = 86_400;
export const IN_FLIGHT_MAX_SECONDS = 30;

export interface GuardRequest {
  task: string;
  idempotency: IdempotencyClass;
  createsResource: boolean;
  principal: string;
  accountKey: string;
  /** Validated arguments (the raw request arguments, extra fields included). */
  args: Record<string, unknown>;
}

export type GuardResult = { kind: 'fresh'; outcome: TaskOutcome } | { kind: 'replay'; stored: SuccessOutcome } | { kind: 'error'; error: ErrorBody };

export interface IdempotencyGuardOptions {
  replayTtlSeconds?: number;
  inFlightMaxSeconds?: number;
  /** Limit on new keys per (principal, account) (digest 3.2 rule 8); none by default. */
  insertRateLimit?: InsertRateLimit;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Arguments minus the closed exclusion list of digest 3.3. */
export function hashedPayload(args: Record<string, unknown>, includeContext = false): Record<string, unknown> {
  const { idempotency_key: _key, context, governance_context: _gov, ...rest } = args;
  const out: Record<string, unknown> = includeContext && context !== undefined ? { ...rest, context } : rest;
  // Only the credential value is excluded (digest 3.3), of the task argument and of an A2A-native registration alike.
  for (const field of ['push_notification_config', A2A_PUSH_FIELD]) {
    const pnc = out[field];
    if (isPlainObject(pnc) && isPlainObject(pnc.authentication) && 'credentials' in pnc.authentication) {
      const { credentials: _c, ...auth } = pnc.authentication;
      out[field] = { ...pnc, authentication: auth };
    }
  }
  return out;
}

/** SHA-256 over RFC 8785 JCS of {task, payload}: the task name is part of what is compared (digest 3.1). */
export function payloadHash(task: string, payload: Record<string, unknown>): string {
  const canonical = canonicalize({ task, payload });
  if (canonical === undefined) throw new Error('payload cannot be canonicalized');
  return sha256(canonical);
}

/** Key as it may appear in logs: the first 8 characters only (digest 3.7). */
export function keyForLog(key: string | undefined): string {
  return key ? `${key.slice(0, 8)}…` : '-';
}

export class IdempotencyGuard {
  private readonly ttlMs: number;
  private readonly inFlightMaxMs: number;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly limiter?: InsertRateLimiter;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: SellerClock,
    private readonly faults: FaultSet,
    options: IdempotencyGuardOptions = {},
  ) {
    this.ttlMs = (options.replayTtlSeconds ?? REPLAY_TTL_SECONDS) * 1000;
    this.inFlightMaxMs = (options.inFlightMaxSeconds ?? IN_FLIGHT_MAX_SECONDS) * 1000;
    if (options.insertRateLimit) this.limiter = new InsertRateLimiter(options.insertRateLimit);
  }

  get replayTtlSeconds(): number {
    return this.ttlMs / 1000;
  }

  get inFlightMaxSeconds(): number {
    return this.inFlightMaxMs / 1000;
  }

  /**
   * Validates the key for the task's class (digest 3.1, 3.2 rule 1). Returns the key to use, or
   * undefined when the request runs without replay semantics. Throws INVALID_REQUEST.
   */
  checkKey(idempotency: IdempotencyClass, key: unknown): string | undefined {
    if (idempotency === 'exempt') return undefined;
    if (key === undefined) {
      if (idempotency === 'mutating' && !this.faults.has('missing-key-accepted')) {
        throw invalidRequest('idempotency_key', 'required on every mutating request (a fresh UUID v4 per request)');
      }
      return undefined;
    }
    if (idempotency === 'read' && this.faults.has('read-rejects-idempotency-key')) {
      throw invalidRequest('idempotency_key', 'not accepted on read operations');
    }
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      if (this.faults.has('malformed-key-accepted') && typeof key === 'string' && key.length > 0) return key;
      throw invalidRequest('idempotency_key', 'must match ^[A-Za-z0-9_.:-]{16,255}$');
    }
    return key;
  }

  /** Runs `execute` under the key's replay semantics. */
  async run(req: GuardRequest, key: string, execute: () => Promise<TaskOutcome>): Promise<GuardResult> {
    const scope: IdemScope = {
      principal: req.principal,
      account: this.faults.has('cache-ignores-account') ? '' : req.accountKey,
      keyHash: sha256(this.faults.has('key-not-task-scoped') ? `${req.task}\u0000${key}` : key),
    };
    const hash = payloadHash(req.task, hashedPayload(req.args, this.faults.has('context-in-hash')));
    const now = () => this.clock.now({ principal: req.principal, account: req.accountKey });
    const limited = this.limitInsert(req, scope, hash, now);
    if (limited) return limited;
    if (this.faults.has('concurrent-double-create')) return this.runWithoutClaim(req, scope, hash, now, execute);

    const deadline = Date.now() + this.inFlightMaxMs;
    for (let round = 0; round < 1000; round++) {
      const claimId = randomUUID();
      if (this.store.claim(scope, req.task, hash, now(), claimId)) return this.executeClaimed(scope, claimId, now, execute);
      const row = this.store.get(scope);
      if (!row) continue; // released between the insert attempt and the read: try to claim again
      if (row.state === 'done') {
        if (now() - row.created_at > this.ttlMs) {
          if (this.faults.has('expired-key-reexecuted')) {
            this.store.remove(scope);
            continue;
          }
          return { kind: 'error', error: expiredError(this.ttlMs / 1000) };
        }
        const stored = JSON.parse(row.response ?? 'null') as SuccessOutcome;
        if (row.hash !== hash) {
          if (this.faults.has('conflict-answered-with-replay') && row.task === req.task) return { kind: 'replay', stored };
          return { kind: 'error', error: this.conflictError(row.task, stored) };
        }
        if (this.faults.has('replay-creates-second-buy') && req.createsResource) {
          await execute().catch(() => undefined); // the buggy seller books again, then answers from cache
        }
        return { kind: 'replay', stored };
      }
      // In flight: a different payload conflicts at once (digest 3.4); the same payload waits.
      if (row.hash !== hash) return { kind: 'error', error: this.conflictError(row.task, undefined) };
      // The buggy seller answers a busy-looking refusal instead of waiting or IDEMPOTENCY_IN_FLIGHT.
      if (this.faults.has('in-flight-unavailable')) {
        return { kind: 'error', error: { code: 'SERVICE_UNAVAILABLE', message: 'busy, try again', recovery: 'transient', retry_after: 1 } };
      }
      if (now() - row.claimed_at > this.inFlightMaxMs || Date.now() > deadline) {
        this.store.release(scope); // the first request outlived in_flight_max_seconds: take over
        continue;
      }
      await this.waitFor(scope, Math.min(250, Math.max(1, deadline - Date.now())));
    }
    return {
      kind: 'error',
      error: { code: 'IDEMPOTENCY_IN_FLIGHT', message: 'a request with this key is still in flight', recovery: 'transient', retry_after: 1 },
    };
  }

  private async executeClaimed(scope: IdemScope, claimId: string, now: () => number, execute: () => Promise<TaskOutcome>): Promise<GuardResult> {
    let outcome: TaskOutcome;
    try {
      if (this.faults.has('in-flight-unavailable')) await sleep(FAULT_RACE_WINDOW_MS);
      outcome = await execute();
    } catch (err) {
      this.store.release(scope, claimId);
      this.notify(scope);
      throw err;
    }
    // The `validation-error-cached` fault keeps a rejection under its key (digest 3.2 rule 1: errors are never cached).
    if (outcome.kind === 'error' && !this.faults.has('validation-error-cached')) this.store.release(scope, claimId);
    else this.store.complete(scope, claimId, JSON.stringify(outcome), now());
    this.notify(scope);
    return { kind: 'fresh', outcome };
  }

  /**
   * A key the cache does not hold is an insert: over the insert rate limit it is refused with
   * RATE_LIMITED (digest 3.2 rule 8), and the refusal is not kept, so the same key retried after
   * `retry_after` runs afresh (rule 3). The `rate-limited-cached` fault keeps it under the key instead.
   */
  private limitInsert(req: GuardRequest, scope: IdemScope, hash: string, now: () => number): GuardResult | undefined {
    if (!this.limiter) return undefined;
    const row = this.store.get(scope);
    if (row) {
      const stored = row.state === 'done' && row.hash === hash ? (JSON.parse(row.response ?? 'null') as TaskOutcome | null) : null;
      return stored?.kind === 'error' && stored.error.code === 'RATE_LIMITED' ? { kind: 'error', error: stored.error } : undefined;
    }
    const refused = this.limiter.admit(req.principal, req.accountKey);
    if (!refused) return undefined;
    if (this.faults.has('rate-limited-cached')) {
      const claimId = randomUUID();
      if (this.store.claim(scope, req.task, hash, now(), claimId))
        this.store.complete(scope, claimId, JSON.stringify({ kind: 'error', error: refused }), now());
    }
    return { kind: 'error', error: refused };
  }

  /** The `concurrent-double-create` fault: look up, execute (slowly), then store, with no claim in between. */
  private async runWithoutClaim(
    req: GuardRequest,
    scope: IdemScope,
    hash: string,
    now: () => number,
    execute: () => Promise<TaskOutcome>,
  ): Promise<GuardResult> {
    const row = this.store.get(scope);
    if (row && row.state === 'done') {
      const expired = now() - row.created_at > this.ttlMs;
      if (expired && !this.faults.has('expired-key-reexecuted')) return { kind: 'error', error: expiredError(this.ttlMs / 1000) };
      if (!expired) {
        const stored = JSON.parse(row.response ?? 'null') as SuccessOutcome;
        if (row.hash !== hash) return { kind: 'error', error: this.conflictError(row.task, stored) };
        return { kind: 'replay', stored };
      }
    }
    // A slow handler: concurrent copies all find nothing stored and all execute, however the
    // requests happen to be scheduled on a loaded machine.
    await sleep(FAULT_RACE_WINDOW_MS);
    const outcome = await execute();
    if (outcome.kind !== 'error') this.store.upsertDone(scope, req.task, hash, JSON.stringify(outcome), now());
    return { kind: 'fresh', outcome };
  }

  /** IDEMPOTENCY_CONFLICT with only code, message and recovery (digest 3.6). */
  private conflictError(cachedTask: string, cached: SuccessOutcome | undefined): ErrorBody {
    const error: ErrorBody = {
      code: 'IDEMPOTENCY_CONFLICT',
      message: 'idempotency_key was already used with a different payload; use a fresh key for a different request',
      recovery: 'correctable',
    };
    // The buggy seller adds retry_after: 0 (digest 3.6: an integer of 1-3600 seconds).
    if (this.faults.has('conflict-retry-after-zero')) error.retry_after = 0;
    if (this.faults.has('conflict-leaks-payload')) {
      error.field = 'idempotency_key';
      error.details = { cached_task: cachedTask, cached_response: cached?.payload ?? null };
    }
    return error;
  }

  private scopeId(scope: IdemScope): string {
    return `${scope.principal}\u0000${scope.account}\u0000${scope.keyHash}`;
  }

  private waitFor(scope: IdemScope, ms: number): Promise<void> {
    const id = this.scopeId(scope);
    return new Promise((resolve) => {
      const set = this.waiters.get(id) ?? new Set<() => void>();
      this.waiters.set(id, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  private notify(scope: IdemScope): void {
    const set = this.waiters.get(this.scopeId(scope));
    if (set) for (const done of [...set]) done();
  }
}

function expiredError(ttlSeconds: number): ErrorBody {
  return {
    code: 'IDEMPOTENCY_EXPIRED',
    message: `idempotency_key is older than the replay window (${ttlSeconds} s); reconcile by natural key, then retry with a fresh key`,
    recovery: 'correctable',
  };
}
