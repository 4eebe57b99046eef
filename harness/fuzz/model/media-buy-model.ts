/**
 * The reference model of one run's media buys (interface spec 3.1, digest 4) and of the replay
 * cache (interface spec 4.4, digest 3). It predicts what the agent must answer; where the spec
 * leaves an answer open, the prediction is undefined and the command generating it is skipped.
 */
import type { ProtocolLine } from '../../core/protocol/lines.js';

export type BuyStatus = 'pending_creatives' | 'pending_start' | 'active' | 'paused' | 'completed' | 'rejected' | 'canceled';
export const TERMINAL: readonly BuyStatus[] = ['completed', 'rejected', 'canceled'];

export interface BuyModel {
  id: string;
  /** The account the buy lives in (buys created under another account use theirs). */
  account: Record<string, unknown>;
  status: BuyStatus;
  revision: number;
  packageId?: string;
  /** The first package's budget as last set. */
  budget?: number;
}

/** A successful response held in the replay cache under its key (digest 3.2 rule 2). */
export interface CachedEntry {
  task: string;
  hash: string;
  /** The response body as first answered (compared without replayed and context). */
  body: Record<string, unknown>;
  /** The buy the request created or changed, by index. */
  buy: number;
}

/** A request the run sent, for replays: its exact arguments. */
export interface SentRequest {
  task: string;
  args: Record<string, unknown>;
  key: string;
  accountKey: string;
  /** The buy the request targets (a create: the buy it created, -1 when it failed). */
  buy: number;
  /** The request's intent, for a variant with another payload. */
  op: Op;
}

export type Op =
  | { kind: 'create'; budget: number; future?: boolean }
  | { kind: 'pause' | 'resume' | 'cancel'; revision?: 'current' | 'stale' }
  | { kind: 'budget'; amount: number; revision?: 'current' | 'stale' };

/** What the model expects of one fresh (not replayed) request. */
export type Expectation = { kind: 'success'; status: BuyStatus; revision: number } | { kind: 'error'; codes: readonly string[] };

export interface ModelState {
  buys: BuyModel[];
  /** Replay cache: scope (account key) + idempotency key → entry. */
  cache: Map<string, CachedEntry>;
  sent: SentRequest[];
  /** Keys whose request failed (never cached), reusable for a fresh request (digest 3.2 rule 3). */
  failedKeys: { key: string; accountKey: string }[];
  /** The run's accounts: 0 is the main one; 1 (if used) a second one for scope probes. */
  accounts: Record<string, unknown>[];
  /** Smallest budget the product takes; generated budgets are offsets from it. */
  baseBudget: number;
  /**
   * The agent declares idempotency.supported: true (digest 3.5). Without it no replay semantics
   * are asserted: replays, conflicts, key reuse and key validation are not generated.
   */
  idempotency: boolean;
  /** The agent offers comply_test_controller with force_media_buy_status (digest 4.6). */
  controller: boolean;
  /** The declared replay_ttl_seconds, when the test controller can also advance_clock past it. */
  replayTtlS?: number;
  /** The clock was moved past the replay window: the sequence ends (commands-expiry.ts). */
  aged?: boolean;
  /** valid_actions is judged (fuzz.model.valid-actions, SHOULD); the MUST property leaves it out. */
  validActions?: boolean;
  /** The protocol line judged against (default 3.1): 3.0 leaves revision optional and has no pause in the pending states' valid_actions. */
  line?: ProtocolLine;
}

export function newModel(accounts: Record<string, unknown>[], baseBudget: number, idempotency = true, controller = false, replayTtlS?: number): ModelState {
  return { buys: [], cache: new Map(), sent: [], failedKeys: [], accounts, baseBudget, idempotency, controller, ...(replayTtlS ? { replayTtlS } : {}) };
}

export function accountKey(account: Record<string, unknown>): string {
  return canonicalJson(account);
}

export function cacheKey(account: Record<string, unknown>, key: string): string {
  return `${accountKey(account)}\u0000${key}`;
}

/** The payload hash of digest 3.3 (without JCS number subtleties): everything but the key and context. */
export function payloadHash(task: string, args: Record<string, unknown>): string {
  const { idempotency_key: _k, context: _c, governance_context: _g, ...rest } = args;
  return `${task}:${canonicalJson(rest)}`;
}

export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * The answer the spec requires of a fresh update on a buy, or undefined where the spec leaves it
 * open (pausing a paused buy, resuming an active one, anything on a pending buy but cancel).
 */
export function predictUpdate(buy: BuyModel, op: Op, sentRevision: number | undefined): Expectation | undefined {
  const terminal = TERMINAL.includes(buy.status);
  const stale = sentRevision !== undefined && sentRevision !== buy.revision;
  if (terminal) {
    // Digest 4.4: NOT_CANCELLABLE for canceling a canceled buy (precedence), INVALID_STATE for any
    // other change to a terminal buy. A stale revision as well: either refusal is the spec's.
    const code = op.kind === 'cancel' && buy.status === 'canceled' ? 'NOT_CANCELLABLE' : 'INVALID_STATE';
    return { kind: 'error', codes: stale ? [code, 'CONFLICT'] : [code] };
  }
  if (stale) return { kind: 'error', codes: ['CONFLICT'] };
  const next = buy.revision + 1;
  switch (op.kind) {
    case 'cancel':
      return { kind: 'success', status: 'canceled', revision: next };
    case 'pause':
      return buy.status === 'active' ? { kind: 'success', status: 'paused', revision: next } : undefined;
    case 'resume':
      return buy.status === 'paused' ? { kind: 'success', status: 'active', revision: next } : undefined;
    case 'budget':
      return buy.status === 'active' || buy.status === 'paused' ? { kind: 'success', status: buy.status, revision: next } : undefined;
    default:
      return undefined;
  }
}

/** valid_actions per state (digest 4.3; the same table as state-machine.valid-actions.match-state). */
export type ActionsTable = Record<BuyStatus, { include: string[]; exclude?: string[]; exactly?: string[] }>;

/** Digest 4.3 (3.1 and 3.2): what each state's valid_actions includes, excludes, or exactly is; extra actions are not judged. */
export const VALID_ACTIONS: ActionsTable = {
  pending_creatives: { include: ['pause', 'cancel'] },
  pending_start: { include: ['pause', 'cancel'] },
  active: { include: ['pause', 'cancel'], exclude: ['resume'] },
  paused: { include: ['resume', 'cancel'], exclude: ['pause'] },
  completed: { include: [], exactly: [] },
  canceled: { include: [], exactly: [] },
  rejected: { include: [], exactly: [] },
};

/** The table of a line: the 3.0 table lists cancel and sync_creatives for the pending states (pause arrived in 3.1). */
export function validActionsTable(line: ProtocolLine | undefined): ActionsTable {
  if (line !== '3.0') return VALID_ACTIONS;
  return { ...VALID_ACTIONS, pending_creatives: { include: ['cancel'] }, pending_start: { include: ['cancel'] } };
}

export type ForcedStatus = 'completed' | 'rejected' | 'active' | 'pending_start';

/**
 * What force_media_buy_status must answer (digest 4.6: production rules apply, rejected only from
 * pending_*, terminal states cannot be left; interface spec 3.1: a pending buy becomes active at
 * start of flight; digest 4.2: the seller completes an active or paused buy), or undefined where
 * the spec leaves it open.
 */
export function predictForce(status: BuyStatus, target: ForcedStatus): 'success' | 'INVALID_TRANSITION' | undefined {
  if (TERMINAL.includes(status)) return status === target ? undefined : 'INVALID_TRANSITION';
  const pending = status === 'pending_creatives' || status === 'pending_start';
  if (target === 'completed') return status === 'active' || status === 'paused' ? 'success' : undefined;
  if (target === 'rejected') return pending ? 'success' : 'INVALID_TRANSITION';
  // Creatives assigned (digest 4.2 pending_creatives → pending_start).
  if (target === 'pending_start') return status === 'pending_creatives' ? 'success' : undefined;
  // The start of flight, from pending_start, as state-machine's start_buy forces it (a buy awaiting
  // creatives is moved to pending_start first: a controller may refuse the jump, which no rule settles).
  return status === 'pending_start' ? 'success' : undefined;
}
