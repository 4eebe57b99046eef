/**
 * One certification run: profile each transport, run the selected checks of every suite with
 * bounded concurrency under the run budget, and fold the results into the canonical RunResult.
 */
import { setMaxListeners } from 'node:events';
import { type SuiteDef, type CheckDef, suiteRunsOn } from './model.js';
import type { CheckResult, ResponseSchemasInfo, RunResult, TransportInfo } from './result.js';
import type { Transport } from '../transport/types.js';
import type { SchemaChecker } from './kinds/types.js';
import type { KindRegistry } from './kinds/registry.js';
import { protocolIds } from '../token.js';
import { buildProfile, type AgentProfile } from './profile.js';
import { ObservedReplies } from './observed.js';
import { Limiter, type Lend } from './limiter.js';
import { preflight, preflightPrerequisites, runCheck, skippedResult, type CheckEnv } from './check-runner.js';
import { checkWaits, factPublishersOf, orderSuites, prerequisitesOf, runsBefore, suitePositions } from './loader.js';
import { compileCheckGlobs } from './glob.js';
import { coverageOf, headline, overallStatus } from './summarize.js';
import { newRunResult, targetInfo } from './run-result.js';
import type { ProtocolLine } from '../protocol/lines.js';
import { DEFAULT_TARGET } from '../protocol/lines.js';
import { FactStore, RunResources, type ReceiverTarget } from './resources.js';
import type { AddressPolicy } from '../net/address-policy.js';
import type { Redactor } from '../transport/redact.js';
import { boundCheckResult, cutText, LIMITS } from './bound.js';
import { type LifecycleStage, lifecycleStageOf } from './lifecycle.js';

/** The run budget when the caller gives none: a run always ends. */
export const DEFAULT_BUDGET_S = 1_800;
/** How long after the budget ran out the run waits for checks that do not stop, before it ends without them. */
export const DEFAULT_BUDGET_GRACE_MS = 15_000;

export interface RunPlan {
  agentUrl: string;
  /** The run's private-address policy, for checks that open connections of their own (key fetches, receivers). */
  addressPolicy?: AddressPolicy;
  /** The run's redactor, shared with the recorders checks open themselves (RunFacts.redactor). */
  redactor?: Redactor;
  /** RunFacts.agentCredentials. */
  agentCredentials?: { token: string; origins: string[] };
  token: string;
  /** The protocol line to judge against (`--target`; default DEFAULT_TARGET, the newest released line). */
  target?: ProtocolLine;
  transports: Transport[];
  /** Run the transports one after another instead of side by side (SuiteCatalog.transportsInTurn). */
  transportsInTurn?: boolean;
  /** The user asked for these transports by name (an absent A2A card is then unreachable, not "not offered"). */
  transportExplicit: boolean;
  suites: SuiteDef[];
  /** The kinds the suites were loaded with (loader.ts `loadSuites`). */
  kinds: KindRegistry;
  checkGlob?: string;
  seed: string;
  /** The run budget (default DEFAULT_BUDGET_S; recorded in the selection only when given). */
  budgetS?: number;
  /** Grace after the budget before unfinished checks are given up (default DEFAULT_BUDGET_GRACE_MS). */
  budgetGraceMs?: number;
  concurrency: number;
  strict: boolean;
  /** The user's fixtures (`--fixtures FILE`), read by the suites that use them. */
  fixtures?: unknown;
  /** Extra arguments per task, added to every call of it. */
  taskArgs?: Readonly<Record<string, Record<string, unknown>>>;
  /** The agent's lifecycle stage (`--lifecycle-stage`; default: inferred from a declared test controller, lifecycle.ts). */
  lifecycleStage?: LifecycleStage;
  /** Exit policy recorded in the selection (see summarize.ts exitCodeFor). */
  allowGaps?: boolean;
  requireFullCoverage?: boolean;
  authTokenSet: boolean;
  command: string;
  schemas: SchemaChecker;
  /** Which response schemas judge (a released set named or looked for), recorded in the result's target. */
  responseSchemas?: ResponseSchemasInfo;
  /** A buyer's webhook receiver to certify (`run --receiver URL`). */
  receiverUrl?: string;
  /** The receiver with its options (takes precedence over `receiverUrl`). */
  receiver?: ReceiverTarget;
  onProfile?: (profile: AgentProfile) => void;
  onCheck?: (result: CheckResult) => void;
  /** Total number of check runs once selection is known (for progress displays). */
  onPlanned?: (total: number) => void;
}

/**
 * The checks a run executes: those matching the glob, plus every check that publishes a fact
 * one of them reads (setup checks: the account, the product), recursively, so selecting a
 * single check still runs what it builds on. Suites keep their order; empty ones are dropped.
 */
export function selectChecks(suites: readonly SuiteDef[], checkGlob: string | undefined, kinds: KindRegistry): SuiteDef[] {
  const match = checkGlob ? compileCheckGlobs(checkGlob) : () => true;
  const all = new Map(suites.flatMap((s) => s.checks.map((c) => [c.id, c] as const)));
  const keep = new Set<string>();
  const add = (c: CheckDef) => {
    if (keep.has(c.id)) return;
    keep.add(c.id);
    for (const id of factPublishersOf(c, kinds)) {
      const p = all.get(id);
      if (p) add(p);
    }
  };
  for (const c of all.values()) if (match(c.id)) add(c);
  return orderSuites(suites)
    .map((s) => ({ ...s, checks: s.checks.filter((c) => keep.has(c.id)) }))
    .filter((s) => s.checks.length > 0);
}

export async function executeRun(plan: RunPlan): Promise<RunResult> {
  const startedAt = new Date();
  const started = performance.now();
  const ids = protocolIds(plan.token);
  const budget = new AbortController();
  // Every waiting check listens for the budget's abort; their number is bounded by the plan.
  setMaxListeners(0, budget.signal);
  const budgetS = plan.budgetS ?? DEFAULT_BUDGET_S;
  const timer = setTimeout(() => budget.abort(), budgetS * 1000);
  timer.unref();
  // Checks that ignore the budget's abort are given up this long after it (the run still ends).
  let giveUp: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    giveUp = setTimeout(() => resolve('deadline'), budgetS * 1000 + (plan.budgetGraceMs ?? DEFAULT_BUDGET_GRACE_MS));
    giveUp.unref();
  });
  const suites = selectChecks(plan.suites, plan.checkGlob, plan.kinds);
  const transportKinds = plan.transports.map((t) => t.kind);
  plan.onPlanned?.(plannedRuns(suites, plan.transports));

  const resources = new RunResources();
  const results = new Map<string, CheckResult>();
  const key = (checkId: string, t: Transport) => `${checkId}\0${t.kind}`;
  let profiles: AgentProfile[] | undefined;
  let harnessError: string | undefined;
  let ended = false;
  const record = (result: CheckResult): void => {
    if (ended) return; // a check given up at the deadline that finished after all
    const bounded = boundCheckResult(result);
    results.set(`${bounded.check_id}\0${bounded.transport}`, bounded);
    plan.onCheck?.(bounded);
  };
  try {
    const work = async (): Promise<void> => {
      profiles = await Promise.all(
        plan.transports.map((t) =>
          buildProfile(t, ids, {
            signal: budget.signal,
            authTokenSet: plan.authTokenSet,
            explicitlyRequested: plan.transportExplicit,
            ...(plan.lifecycleStage ? { lifecycleStage: plan.lifecycleStage } : {}),
          }),
        ),
      );
      const ready = profiles;
      ready.forEach((p) => plan.onProfile?.(p));
      await runChecks(plan, suites, ready, { ids, startedAt, signal: budget.signal, resources, results, key, record });
    };
    const outcome = await Promise.race([work().then(() => 'done' as const), deadline]);
    if (outcome === 'deadline') {
      for (const suite of suites)
        for (const check of suite.checks)
          for (const transport of plan.transports) {
            if (!suiteRunsOn(suite, transport.kind) || results.has(key(check.id, transport))) continue;
            record(
              skippedResult(suite, check, { transport }, 'gap', 'not finished: the run budget ran out and the check did not stop in time', {
                not_run: true,
                gap: 'run budget',
              }),
            );
          }
    }
  } catch (e) {
    harnessError = cutText(describeCause(e), LIMITS.message);
  }
  ended = true;
  try {
    return assemble(plan, { suites, profiles, results, key, transportKinds, budgetS, startedAt, started, harnessError });
  } finally {
    clearTimeout(timer);
    clearTimeout(giveUp);
    await Promise.race([resources.closeAll(), new Promise((r) => setTimeout(r, 5_000).unref())]);
  }
}

/** Check runs a run plans: each check once on each column its suite runs on (agent suites on mcp/a2a, the registry face on rest). */
function plannedRuns(suites: readonly SuiteDef[], transports: readonly Transport[]): number {
  return suites.reduce((n, s) => n + s.checks.length * transports.filter((t) => suiteRunsOn(s, t.kind)).length, 0);
}

/** One line naming an unexpected error (no stack trace). */
function describeCause(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

interface RunState {
  ids: ReturnType<typeof protocolIds>;
  startedAt: Date;
  signal: AbortSignal;
  resources: RunResources;
  results: Map<string, CheckResult>;
  key: (checkId: string, t: Transport) => string;
  record: (result: CheckResult) => void;
}

async function runChecks(plan: RunPlan, suites: SuiteDef[], profiles: AgentProfile[], st: RunState): Promise<void> {
  const { ids, startedAt, resources, results, key } = st;
  const budget = { signal: st.signal };
  const observed = new ObservedReplies();
  const receiver = plan.receiver ?? (plan.receiverUrl ? { url: plan.receiverUrl } : undefined);
  const runFacts = {
    receiverUrl: receiver?.url,
    receiver,
    seed: plan.seed,
    fixtures: plan.fixtures,
    taskArgs: plan.taskArgs,
    addressPolicy: plan.addressPolicy,
    redactor: plan.redactor,
    agentCredentials: plan.agentCredentials,
  };
  const facts = new FactStore();
  const limiter = new Limiter(plan.concurrency);

  // Prerequisites that have finished whenever the check starts (an earlier suite, or an earlier
  // serial check of the same suite) block it deterministically; any other prerequisite in the
  // check's own suite only names what blocked a setup step that failed.
  const position = suitePositions(suites);
  // Queued checks get slots (the limiter's priority) first if they mostly wait (webhook flows and
  // quiet periods: their waits then overlap the other checks' calls), then in suite order.
  const rank = (check: CheckDef) => (position.get(check.id) ?? 0) - (checkWaits(check, plan.kinds) ? suites.length : 0);
  const earlier = (check: CheckDef) => prerequisitesOf(check, plan.kinds).filter((id) => runsBefore(id, check, suites, position));

  const runOne = async (suite: SuiteDef, check: CheckDef, env: CheckEnv, lend: Lend) => {
    const result = budget.signal.aborted
      ? skippedResult(suite, check, env, 'gap', 'not run: the run budget ran out before this check started', { not_run: true, gap: 'run budget' })
      : (preflight(suite, check, env) ??
        preflightPrerequisites(suite, check, env, earlier(check), (id) => results.get(key(id, env.transport))) ??
        (await runCheck(suite, check, env, lend)));
    st.record(result);
  };

  const runTransport = async (transport: Transport, i: number) => {
    const env: CheckEnv = {
      transport,
      profile: profiles[i],
      peers: profiles.filter((_, j) => j !== i),
      ids,
      target: plan.target ?? DEFAULT_TARGET,
      seed: plan.seed,
      runStartedAt: startedAt,
      signal: budget.signal,
      observed,
      schemas: plan.schemas,
      resources,
      run: runFacts,
      kinds: plan.kinds,
      facts,
    };
    const mine = suites.filter((suite) => suiteRunsOn(suite, transport.kind));
    for (const phase of phasesOf(mine)) await runPhase(phase, (suite, check, lend) => runOne(suite, check, env, lend));
  };
  // Transports side by side, or one after another for checks whose agent-side state the
  // transports would share (storyboards: fixed fixture ids and accounts).
  if (plan.transportsInTurn) for (const [i, t] of plan.transports.entries()) await runTransport(t, i);
  else await Promise.all(plan.transports.map(runTransport));

  /**
   * One phase of one transport. A `first` or `last` phase runs its suites one after another (setup
   * before everything; schemas after every reply it grades). In the `normal` phase suites overlap:
   * a check waits only for what it depends on (its earlier prerequisites and the publishers of the
   * facts it reads, prerequisitesOf) and, when serial, for the rest of its suite before it, so a
   * suite whose checks mostly wait for webhooks does not hold back the next one. Waiting for
   * dependencies happens outside the limiter: no slot is held meanwhile.
   */
  async function runPhase(phase: Phase, run: (suite: SuiteDef, check: CheckDef, lend: Lend) => Promise<void>): Promise<void> {
    if (phase.order !== 'normal') {
      for (const suite of phase.suites) await runSuite(suite, new Map(), run);
      return;
    }
    const done = new Map<string, Promise<void>>();
    await Promise.all(phase.suites.map((suite) => runSuite(suite, done, run)));
  }

  /** The suite's parallel checks at once, then its serial ones in order; `done` collects each check's end for later dependents. */
  function runSuite(suite: SuiteDef, done: Map<string, Promise<void>>, run: (suite: SuiteDef, check: CheckDef, lend: Lend) => Promise<void>): Promise<void> {
    const after = (check: CheckDef) => Promise.all(earlier(check).map((id) => done.get(id)));
    const parallel = suite.checks
      .filter((c) => !c.serial)
      .map((check) => {
        const p = after(check).then(() => limiter.run((lend) => run(suite, check, lend), rank(check)));
        done.set(check.id, p);
        return p;
      });
    let previous: Promise<unknown> = Promise.all(parallel);
    for (const check of suite.checks.filter((c) => c.serial)) {
      const p = previous.then(() => after(check)).then(() => limiter.run((lend) => run(suite, check, lend), rank(check)));
      done.set(check.id, p);
      previous = p;
    }
    return previous.then(() => undefined);
  }
}

interface Phase {
  order: NonNullable<SuiteDef['order']>;
  suites: SuiteDef[];
}

/** Suites (in run order) grouped into consecutive phases of the same order class. */
function phasesOf(suites: readonly SuiteDef[]): Phase[] {
  const phases: Phase[] = [];
  for (const suite of suites) {
    const order = suite.order ?? 'normal';
    const last = phases.at(-1);
    if (last?.order === order) last.suites.push(suite);
    else phases.push({ order, suites: [suite] });
  }
  return phases;
}

interface Finished {
  suites: SuiteDef[];
  profiles?: AgentProfile[];
  results: Map<string, CheckResult>;
  key: (checkId: string, t: Transport) => string;
  transportKinds: RunResult['transports'];
  budgetS: number;
  startedAt: Date;
  started: number;
  harnessError?: string;
}

/** A check blocked by one that was itself blocked names the root of the cascade (results keyed `check\0transport`). */
function nameCascadeRoots(results: Map<string, CheckResult>): void {
  for (const [k, r] of results) {
    if (r.outcome !== 'blocked' || !r.blocked_by) continue;
    const transport = k.slice(k.lastIndexOf('\0') + 1);
    let root = r.blocked_by;
    const seen = new Set([r.check_id]);
    for (let next = results.get(`${root}\0${transport}`); next?.outcome === 'blocked' && next.blocked_by && !seen.has(next.blocked_by); ) {
      seen.add(root);
      root = next.blocked_by;
      next = results.get(`${root}\0${transport}`);
    }
    if (root !== r.blocked_by)
      results.set(k, { ...r, blocked_by: root, message: `blocked by ${root} (through ${r.blocked_by}): ${r.message.replace(/^blocked by \S+: /, '')}` });
  }
}

/** The RunResult of what finished; with a harness error: status `error`, the cause, and every check finished so far. */
function assemble(plan: RunPlan, f: Finished): RunResult {
  const { suites, profiles, results, key, transportKinds, startedAt, started, harnessError } = f;
  nameCascadeRoots(results);
  const checks: CheckResult[] = [];
  for (const suite of suites) {
    for (const check of suite.checks) {
      for (const t of plan.transports) {
        const r = results.get(key(check.id, t));
        if (r) checks.push(r);
      }
    }
  }

  const coverage = coverageOf(checks, transportKinds, f.budgetS);
  if (harnessError) coverage.reasons.push(`the harness broke: ${harnessError}`);
  if (harnessError) coverage.complete = false;
  if (!profiles && !harnessError) coverage.reasons.push('the run budget ran out before the transports were profiled');
  if (!profiles) coverage.complete = false;
  const status = harnessError ? 'error' : !profiles ? 'partial' : overallStatus(profiles, checks, coverage, plan.strict);
  const planned = plannedRuns(suites, plan.transports);
  const transportInfo: TransportInfo[] = (profiles ?? []).map((p, i) => ({
    transport: p.transport,
    endpoint: plan.transports[i].endpoint,
    reachable: p.reachable && p.offered,
    auth_required: p.authRequired,
    session: p.open?.sessionId ? `${p.open.sessionId.slice(0, 8)}…` : undefined,
    sessions_opened: p.transport === 'mcp' ? plan.transports[i].stats().sessionsOpened : undefined,
    server: p.open?.serverName ? `${p.open.serverName}${p.open.serverVersion ? ` ${p.open.serverVersion}` : ''}` : undefined,
    declared_tasks: p.tasks,
    problem: p.problem,
  }));
  const declared = profiles?.find((p) => p.capabilities !== undefined)?.capabilities?.[plan.token];
  return newRunResult(
    {
      agentUrl: plan.agentUrl,
      token: plan.token,
      transports: transportKinds,
      target: targetInfo(plan.target, declared, plan.responseSchemas),
      seed: plan.seed,
      command: plan.command,
      startedAt,
    },
    {
      suites,
      checks,
      transportInfo,
      status,
      coverage,
      lifecycleStage: lifecycleStageOf(
        plan.lifecycleStage,
        (profiles ?? []).map((p) => p.capabilities),
      ),
      headline: harnessError
        ? `harness error: ${harnessError} (${checks.length} of ${planned} check runs finished; they are in the report)`
        : !profiles
          ? `partial: the run budget ran out before the transports were profiled (${checks.length} of ${planned} check runs finished)`
          : headline(status, checks, coverage, profiles, plan.strict),
      ...(harnessError ? { harnessError } : {}),
      selection: {
        suites: suites.map((s) => s.id),
        check_glob: plan.checkGlob,
        budget_s: plan.budgetS,
        strict: plan.strict,
        allow_gaps: plan.allowGaps || undefined,
        require_full_coverage: plan.requireFullCoverage || undefined,
      },
    },
    Math.round(performance.now() - started),
  );
}
