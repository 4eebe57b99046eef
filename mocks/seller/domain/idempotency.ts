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
import { type ErrorBody, invalidRequest, type TaskFailure } from './errors.js';
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
      throw this.keyRefusal('must match ^[A-Za-z0-9_.:-]{16,255}$');
    }
    // Sellers SHOULD refuse low-entropy keys (digest 3.1); the buggy seller takes any well-formed key.
    if (isLowEntropyKey(key) && !this.faults.has('low-entropy-key-accepted')) throw this.keyRefusal('too little entropy (use a fresh UUID v4 per request)');
    return key;
  }

  /** The request's payload hash (digest 3.3), as each hashing fault breaks it. */
  private hashOf(req: GuardRequest): string {
    const f = this.faults;
    let payload = hashedPayload(req.args, f.has('context-in-hash'));
    if (f.has('governance-context-in-hash') && req.args.governance_context !== undefined)
      payload = { ...payload, governance_context: req.args.governance_context };
    if (f.has('push-credentials-in-hash')) payload = { ...payload, push_notification_config: req.args.push_notification_config };
    if (f.has('ext-not-hashed')) delete payload.ext;
    if (f.has('push-url-not-hashed') && isPlainObject(payload.push_notification_config)) {
      const { url: _url, ...rest } = payload.push_notification_config;
      payload = { ...payload, push_notification_config: rest };
    }
    if (f.has('null-members-dropped-in-hash')) payload = withoutNulls(payload) as Record<string, unknown>;
    // The buggy seller hashes the bytes as serialized, so member order matters (digest 3.3: RFC 8785 JCS).
    if (f.has('hash-not-canonical')) return sha256(JSON.stringify({ task: req.task, payload }));
    return payloadHash(req.task, payload);
  }

  /** INVALID_REQUEST on idempotency_key, correctable (digest 3.6); the buggy seller calls it transient. */
  private keyRefusal(message: string): TaskFailure {
    const refusal = invalidRequest('idempotency_key', message);
    if (this.faults.has('key-refusal-transient')) refusal.body.recovery = 'transient';
    return refusal;
  }

  /** Runs `execute` under the key's replay semantics. */
  async run(req: GuardRequest, key: string, execute: () => Promise<TaskOutcome>): Promise<GuardResult> {
    const scope: IdemScope = {
      principal: req.principal,
      account: this.faults.has('cache-ignores-account') ? '' : req.accountKey,
      keyHash: sha256(this.faults.has('key-not-task-scoped') ? `${req.task}\u0000${key}` : key),
    };
    const hash = this.hashOf(req);
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
          return { kind: 'error', error: this.expiredError() };
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
      if (row.hash !== hash) {
        // The buggy seller answers IDEMPOTENCY_IN_FLIGHT (retry later) to another payload, which no retry can resolve.
        if (this.faults.has('in-flight-conflict-answered-in-flight')) return { kind: 'error', error: inFlightError() };
        return { kind: 'error', error: this.conflictError(row.task, undefined) };
      }
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
    return { kind: 'error', error: inFlightError() };
  }

  private async executeClaimed(scope: IdemScope, claimId: string, now: () => number, execute: () => Promise<TaskOutcome>): Promise<GuardResult> {
    let outcome: TaskOutcome;
    try {
      if (this.faults.has('in-flight-unavailable') || this.faults.has('in-flight-conflict-answered-in-flight')) await sleep(FAULT_RACE_WINDOW_MS);
      outcome = await execute();
    } catch (err) {
      this.store.release(scope, claimId);
      this.notify(scope);
      throw err;
    }
    // The `validation-error-cached` fault keeps a rejection under its key (digest 3.2 rule 1: errors are never cached).
    // The `failed-first-pins-key` fault leaves a failed first request's row in flight (digest 3.4: release it).
    if (outcome.kind === 'error' && this.faults.has('failed-first-pins-key')) return { kind: 'fresh', outcome };
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
      if (expired && !this.faults.has('expired-key-reexecuted')) return { kind: 'error', error: this.expiredError() };
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

  /** IDEMPOTENCY_EXPIRED, correctable (digest 3.6); the buggy seller calls it terminal. */
  private expiredError(): ErrorBody {
    const ttlSeconds = this.ttlMs / 1000;
    return {
      code: 'IDEMPOTENCY_EXPIRED',
      message: `idempotency_key is older than the replay window (${ttlSeconds} s); reconcile by natural key, then retry with a fresh key`,
      recovery: this.faults.has('expired-recovery-terminal') ? 'terminal' : 'correctable',
    };
  }

  /** IDEMPOTENCY_CONFLICT with only code, message and recovery (digest 3.6). */
  private conflictError(cachedTask: string, cached: SuccessOutcome | undefined): ErrorBody {
    // The buggy seller answers a code of its own (interface spec 4.4 rule 3 names IDEMPOTENCY_CONFLICT).
    const error: ErrorBody = {
      code: this.faults.has('conflict-wrong-code') ? 'IDEMPOTENCY_KEY_REUSED' : 'IDEMPOTENCY_CONFLICT',
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

/** The `null-members-dropped-in-hash` fault: explicit nulls hashed as if the member were missing. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

/** A key of fewer than four distinct characters (`0000000000000000`): well-formed, but guessable (digest 3.1). */
export function isLowEntropyKey(key: string): boolean {
  return new Set(key).size < 4;
}

function inFlightError(): ErrorBody {
  return { code: 'IDEMPOTENCY_IN_FLIGHT', message: 'a request with this key is still in flight', recovery: 'transient', retry_after: 1 };
}
