/**
 * The contract between `proto-comply fuzz` and its properties (issue 13). A property is one
 * compliance check of the `fuzz` suite: it drives an agent through an open transport with
 * fast-check, shrinks any counterexample, and reports it with what replays it exactly.
 */
import type { ProtocolLine } from '../core/protocol/lines.js';
import type { Transport, WireExchange } from '../core/transport/types.js';
import type { Interpretation } from '../core/engine/result.js';
import type { CaseWire, SentCall } from './wire-log.js';

export type FuzzLevel = 'MUST' | 'SHOULD' | 'MAY';

/** What a property may use: an open transport to the agent and the run's isolated state. */
export interface FuzzContext {
  transport: Transport;
  /** The protocol token (`proto`, or `adcp` for @adcp/sdk sellers). */
  token: string;
  /** The protocol line judged against (harness/core/protocol/lines.ts; default the newest released line). */
  target?: ProtocolLine;
  /** An account reference the agent accepts (interface spec 2.5a), fresh for this run. */
  account: Record<string, unknown>;
  /** Another account of the same buyer (the fixtures' second_account), for the per-account key scope. */
  secondAccount?: Record<string, unknown>;
  /** `account` is a natural key and sync_accounts showed two natural keys are two accounts (fresh keys are then accounts of their own). */
  distinctKeys?: boolean;
  /** A product and pricing option the agent offers, for creates; absent when it offers none. */
  product?: { product_id: string; pricing_option_id: string; currency?: string; min_budget?: number };
  /** Aborts when the run's budget runs out; a property stops and reports what it has. */
  signal: AbortSignal;
  /** The buyer's brand (`{domain}`), as setup found it (fixtures or the default). */
  brand?: { domain: string };
  /** A media buy the run created (for update_media_buy); absent when none could be created. */
  mediaBuy?: { media_buy_id: string; paused?: boolean };
  /** Task names the agent lists on this transport. */
  tasks?: readonly string[];
  /** The run's seed and a random nonce of this run: fresh idempotency keys and accounts on every run. */
  runSeed?: number;
  nonce?: string;
  /** Idempotency keys materialised so far in this run (harness/fuzz/requests.ts). */
  keyCounter?: number;
  /** The run's --auth-token, for properties that send calls without it or with a wrong one (never recorded). */
  authToken?: string;
  /** The fixtures' extra arguments per task, which the run's transport puts under every call of the task. */
  taskArgs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Called once per case run (a request, a command sequence): progress. */
  onCase?: () => void;
  /** The bodies the transport sends, case by case (harness/fuzz/wire-log.ts); absent in unit tests. */
  wire?: CaseWire;
}

/** One fast-check run of a property: the seed, and for a replay the path of the failing case. */
export interface FuzzRunOptions {
  seed: number;
  numRuns: number;
  /** fast-check's replay path of a shrunk counterexample (from an earlier report). */
  path?: string;
  /** Replay: the recorded bodies of the counterexample, re-sent byte for byte in place of the drawn ones. */
  sent?: readonly SentCall[];
}

export interface PropertyOutcome {
  /** The check id (`fuzz.<area>.<name>[.<task>]`). */
  check_id: string;
  task?: string;
  /**
   * 'violated': the agent broke the rule; 'gap': the agent lacks an optional feature the property
   * needs (`gap` names it), or the budget ran out (`not_run`); 'not_applicable': the agent does not
   * claim what the property is about.
   */
  outcome: 'pass' | 'violated' | 'gap' | 'not_applicable';
  /** Outcome 'gap': the optional feature the agent lacks, in a few words. */
  gap?: string;
  /** Outcome 'gap': the run budget ran out before the property finished. */
  not_run?: boolean;
  /** Cases run (generated requests or command sequences). */
  runs: number;
  seed: number;
  /** fast-check's path of the shrunk counterexample (with the seed, replays exactly that case). */
  path?: string;
  /** The shrunk counterexample: the request or command sequence, JSON-serialisable. */
  counterexample?: unknown;
  /** One line: the rule broken (or why it could not be checked), with the evidence. */
  message?: string;
  /** The task calls of the counterexample as sent (their arguments' JSON text), for a replay of the same bytes. */
  sent?: SentCall[];
  /** A replay of recorded bodies: calls it had to send as drawn, because the case asked for another task than recorded. */
  diverged?: number;
  /** The wire exchanges of the counterexample's last call (secrets redacted by the recorder). */
  exchanges?: WireExchange[];
}

export interface FuzzProperty {
  /** Check id prefix; a property run once per task appends `.<task>`. */
  id: string;
  title: string;
  level: FuzzLevel;
  spec: { doc: 'interface-spec' | 'digest'; section: string; rule: string; anchor?: string };
  /** The spec text it rests on and the reading chosen, where the text is open to more than one (shown with a failure). */
  interpretation?: Interpretation;
  /** The suite check that judges the same rule: its interpretation, when it has one, is shown with a failure. */
  sameRuleAs?: string;
  /** The tasks it runs against, one check each; undefined: one check for the whole property. */
  tasks?: readonly string[];
  /** Why the property does not apply to this agent or run (reported not applicable); undefined: it applies. */
  appliesTo?(ctx: FuzzContext): string | undefined;
  run(ctx: FuzzContext, opts: FuzzRunOptions, task?: string): Promise<PropertyOutcome>;
}
