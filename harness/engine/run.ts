/**
 * One certification run: profile each transport, run the selected checks of every suite with
 * bounded concurrency under the run budget, and fold the results into the canonical RunResult.
 */
import type { SuiteDef, CheckDef } from './model.js';
import type { CheckResult, RunResult, TransportInfo } from './result.js';
import type { Transport } from '../transport/types.js';
import type { SchemaChecker } from './kinds/types.js';
import type { KindRegistry } from './kinds/registry.js';
import { protocolIds } from '../token.js';
import { buildProfile, type AgentProfile } from './profile.js';
import { ObservedReplies } from './observed.js';
import { Limiter } from './limiter.js';
import { runCheck, skippedResult, type CheckEnv } from './check-runner.js';
import { compileCheckGlobs } from './glob.js';
import { countOutcomes, headline, overallStatus, summarizeSuites } from './summarize.js';
import { HARNESS_VERSION } from '../version.js';
import { RunResources, type ReceiverTarget } from './resources.js';
import type { AddressPolicy } from '../net/address-policy.js';

export interface RunPlan {
  agentUrl: string;
  /** The run's private-address policy, for checks that open connections of their own (key fetches, receivers). */
  addressPolicy?: AddressPolicy;
  token: string;
  transports: Transport[];
  /** The user asked for these transports by name (an absent A2A card is then unreachable, not "not offered"). */
  transportExplicit: boolean;
  suites: SuiteDef[];
  /** The kinds the suites were loaded with (loader.ts `loadSuites`). */
  kinds: KindRegistry;
  checkGlob?: string;
  seed: string;
  budgetS?: number;
  concurrency: number;
  strict: boolean;
  authTokenSet: boolean;
  command: string;
  schemas: SchemaChecker;
  /** A buyer's webhook receiver to certify (`run --receiver URL`). */
  receiverUrl?: string;
  /** The receiver with its options (takes precedence over `receiverUrl`). */
  receiver?: ReceiverTarget;
  onProfile?: (profile: AgentProfile) => void;
  onCheck?: (result: CheckResult) => void;
  /** Total number of check runs once selection is known (for progress displays). */
  onPlanned?: (total: number) => void;
}

const ORDER = { first: 0, normal: 1, last: 2 } as const;

export function orderSuites(suites: readonly SuiteDef[]): SuiteDef[] {
  return suites
    .map((s, i) => ({ s, i }))
    .sort((a, b) => ORDER[a.s.order ?? 'normal'] - ORDER[b.s.order ?? 'normal'] || a.i - b.i)
    .map(({ s }) => s);
}

export function selectChecks(suites: readonly SuiteDef[], checkGlob?: string): SuiteDef[] {
  const match = checkGlob ? compileCheckGlobs(checkGlob) : () => true;
  return orderSuites(suites)
    .map((s) => ({ ...s, checks: s.checks.filter((c) => match(c.id)) }))
    .filter((s) => s.checks.length > 0);
}

export async function executeRun(plan: RunPlan): Promise<RunResult> {
  const startedAt = new Date();
  const started = performance.now();
  const ids = protocolIds(plan.token);
  const budget = new AbortController();
  const timer = plan.budgetS !== undefined ? setTimeout(() => budget.abort(), plan.budgetS * 1000) : undefined;
  timer?.unref();
  const suites = selectChecks(plan.suites, plan.checkGlob);
  const transportKinds = plan.transports.map((t) => t.kind);
  plan.onPlanned?.(suites.reduce((n, s) => n + s.checks.length, 0) * plan.transports.length);

  const resources = new RunResources();
  try {
    const profiles = await Promise.all(
      plan.transports.map((t) => buildProfile(t, ids, { signal: budget.signal, authTokenSet: plan.authTokenSet, explicitlyRequested: plan.transportExplicit })),
    );
    profiles.forEach((p) => plan.onProfile?.(p));

    const observed = new ObservedReplies();
    const receiver = plan.receiver ?? (plan.receiverUrl ? { url: plan.receiverUrl } : undefined);
    const runFacts = { receiverUrl: receiver?.url, receiver, seed: plan.seed, addressPolicy: plan.addressPolicy };
    const limiter = new Limiter(plan.concurrency);
    const results = new Map<string, CheckResult>();
    const key = (suite: SuiteDef, check: CheckDef, t: Transport) => `${suite.id}\0${check.id}\0${t.kind}`;

    const runOne = async (suite: SuiteDef, check: CheckDef, env: CheckEnv) => {
      const result = budget.signal.aborted
        ? skippedResult(suite, check, env, 'not_testable', 'not run: the run budget ran out before this check started', { not_run: true })
        : await runCheck(suite, check, env);
      results.set(key(suite, check, env.transport), result);
      plan.onCheck?.(result);
    };

    await Promise.all(
      plan.transports.map(async (transport, i) => {
        const env: CheckEnv = {
          transport,
          profile: profiles[i],
          ids,
          seed: plan.seed,
          runStartedAt: startedAt,
          signal: budget.signal,
          observed,
          schemas: plan.schemas,
          resources,
          run: runFacts,
          kinds: plan.kinds,
        };
        for (const suite of suites) {
          const parallel = suite.checks.filter((c) => !c.serial);
          const serial = suite.checks.filter((c) => c.serial);
          await Promise.all(parallel.map((check) => limiter.run(() => runOne(suite, check, env))));
          for (const check of serial) await limiter.run(() => runOne(suite, check, env));
        }
      }),
    );

    const checks: CheckResult[] = [];
    for (const suite of suites) {
      for (const check of suite.checks) {
        for (const t of plan.transports) {
          const r = results.get(key(suite, check, t));
          if (r) checks.push(r);
        }
      }
    }

    const notRun = checks.filter((c) => c.not_run).length;
    const completeness: RunResult['completeness'] = notRun
      ? { status: 'partial', reasons: [`the run budget of ${plan.budgetS} s ran out: ${notRun} check run(s) not finished`] }
      : { status: 'complete', reasons: [] };
    const status = overallStatus(profiles, checks, plan.strict);
    const transportInfo: TransportInfo[] = profiles.map((p, i) => ({
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
    const finishedAt = new Date();
    return {
      schema_version: '1.0',
      harness: { name: 'proto-comply', version: HARNESS_VERSION },
      agent_url: plan.agentUrl,
      token: plan.token,
      transports: transportKinds,
      transport_info: transportInfo,
      overall_status: status,
      completeness,
      headline: headline(status, checks, profiles, plan.strict),
      seed: plan.seed,
      started_at: startedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
      duration_ms: Math.round(performance.now() - started),
      command: plan.command,
      selection: { suites: suites.map((s) => s.id), check_glob: plan.checkGlob, budget_s: plan.budgetS, strict: plan.strict },
      counts: countOutcomes(checks),
      suites: summarizeSuites(suites, checks, transportKinds, plan.strict),
      checks,
    };
  } finally {
    if (timer) clearTimeout(timer);
    await resources.closeAll();
  }
}
