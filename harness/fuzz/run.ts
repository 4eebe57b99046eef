/**
 * One fuzz run: open the transports as `run` does, find the run's state (setup.ts), run every
 * selected property on every task it names, and turn the outcomes into the checks of a `fuzz`
 * suite of an ordinary RunResult (report.ts), so the report writers of `run` write it.
 */
import type { ProtocolLine } from '../core/protocol/lines.js';
import { targetInfo } from '../core/engine/run-result.js';
import { randomBytes } from 'node:crypto';
import {
  createRecorder,
  createTransport,
  namedUrls,
  resolveEndpoints,
  DEFAULT_TRANSPORT_LIMITS,
  type Transport,
  type TransportKind,
} from '../core/transport/index.js';
import { AddressPolicy } from '../core/net/address-policy.js';
import { Redactor } from '../core/transport/redact.js';
import type { CheckResult, RunResult, TransportInfo } from '../core/engine/result.js';
import type { Fixtures } from '../core/fixtures/fixtures.js';
import type { Interpretation } from '../core/engine/result.js';
import type { FuzzContext, FuzzProperty, PropertyOutcome } from './property.js';
import { BUY_FREE_TASKS, missingState, wireTask } from './requests.js';
import { findFuzzState } from './setup.js';
import { fuzzCheck, fuzzRunResult, type FuzzCheckInput } from './report.js';
import { type CaseWire, type SentCall, wireLogged } from './wire-log.js';

export interface FuzzOptions {
  agentUrl: string;
  mcpUrl?: string;
  a2aUrl?: string;
  transports: TransportKind[];
  token: string;
  /** The protocol line judged against (`--target`; default the newest released line). */
  target?: ProtocolLine;
  authToken?: string;
  fixtures?: Fixtures;
  seed: number;
  runs: number;
  budgetS?: number;
  timeoutS?: number;
  /** Only these tasks (default every task a property names). */
  tasks?: string[];
  properties: readonly FuzzProperty[];
  /** Replay: exactly this check, from this fast-check path, re-sending the recorded bodies when the report kept them. */
  replay?: { checkId: string; path: string; sent?: readonly SentCall[] };
  /** The report file a failure's replay command points at. */
  reportFile: string;
  command: string;
  onCheck?: (c: CheckResult) => void;
  /** A check starts (progress). */
  onStart?: (checkId: string, transport: TransportKind) => void;
  /** A case of a property ran (progress). */
  onCase?: () => void;
  /** Called once before the first check with the number of checks the run will report. */
  onPlanned?: (total: number) => void;
  /** The address policy of every connection (--deny-private); default: none refused. */
  addressPolicy?: AddressPolicy;
  /** Instrumentation (the benchmark): every task call the run makes, before it is sent. */
  observe?: (task: string, args: Record<string, unknown>) => void;
  /** The interpretation of a suite check by id (the entry point's suites): shown with a failing
   *  property that judges the same rule (FuzzProperty.sameRuleAs). */
  interpretationOf?: (checkId: string) => Interpretation | undefined;
}

interface PlannedCheck {
  property: FuzzProperty;
  task?: string;
  /** The task's name on the wire (wireTask). */
  wire?: string;
}

/** The checks of one transport: each property once per task it names (narrowed by --task and --replay), or once. */
function plannedChecks(o: FuzzOptions): PlannedCheck[] {
  const out: PlannedCheck[] = [];
  for (const property of o.properties) {
    for (const task of property.tasks ?? [undefined]) {
      const checkId = task ? `${property.id}.${task}` : property.id;
      if (o.replay && o.replay.checkId !== checkId) continue;
      const wire = task && wireTask(task, o.token);
      if (task && wire && o.tasks && !o.tasks.includes(task) && !o.tasks.includes(wire)) continue;
      out.push({ property, task, wire });
    }
  }
  return out;
}

/**
 * The transport as the run calls it: the fixtures' extra arguments of a task (`tasks:` in
 * --fixtures, what a seller needs beyond the spec) under every call of it, as `run` sends them,
 * and every call shown to `observe` first.
 */
function fuzzTransport(t: Transport, taskArgs: Fixtures['tasks'], observe: FuzzOptions['observe']): Transport {
  if (!observe && !taskArgs) return t;
  return {
    kind: t.kind,
    endpoint: t.endpoint,
    open: (signal) => t.open(signal),
    listTasks: (signal) => t.listTasks(signal),
    call: (task, given, options) => {
      const extra = taskArgs?.[task];
      const args = extra ? { ...extra, ...given } : given;
      observe?.(task, args);
      return t.call(task, args, options);
    },
    getTask: (id, options) => t.getTask(id, options),
    stats: () => t.stats(),
    close: () => t.close(),
  };
}

export async function runFuzz(o: FuzzOptions): Promise<RunResult> {
  const startedAt = new Date();
  const redactor = new Redactor(o.authToken ? [o.authToken] : []);
  // The evidence of a case is its reply's own exchanges: the recorder need not keep a run's thousands.
  const recorder = createRecorder({ token: o.token, secrets: o.authToken ? [o.authToken] : [], redactor, maxExchanges: 16 });
  const endpoints = resolveEndpoints(o.agentUrl, { mcpUrl: o.mcpUrl, a2aUrl: o.a2aUrl });
  const timeoutMs = Math.round((o.timeoutS ?? 10) * 1000);
  const wires = new Map<Transport, CaseWire>();
  const transports: Transport[] = o.transports.map((kind) => {
    const logged = wireLogged(
      createTransport(
        kind,
        {
          agentUrl: o.agentUrl,
          token: o.token,
          authToken: o.authToken,
          connectTimeoutMs: DEFAULT_TRANSPORT_LIMITS.connectTimeoutMs,
          totalTimeoutMs: timeoutMs,
          maxResponseBytes: DEFAULT_TRANSPORT_LIMITS.maxResponseBytes,
          capture: recorder,
          addressPolicy: o.addressPolicy ?? new AddressPolicy({}),
          credentialOrigins: namedUrls(o.agentUrl, { mcpUrl: o.mcpUrl, a2aUrl: o.a2aUrl }),
        },
        endpoints,
      ),
    );
    const t = fuzzTransport(logged.transport, o.fixtures?.tasks, o.observe);
    wires.set(t, logged.wire);
    return t;
  });
  const budget = new AbortController();
  const timer = o.budgetS !== undefined ? setTimeout(() => budget.abort(), o.budgetS * 1000) : undefined;
  timer?.unref();
  const nonce = randomBytes(10).toString('hex');
  const checks: CheckResult[] = [];
  const info: TransportInfo[] = [];
  const planned = plannedChecks(o);
  // The run's media buy is created unless every planned check is on a task whose requests and
  // answers do not involve one. A check without a task draws from every task the agent lists
  // (update_media_buy only when a buy exists), so it needs the buy for its replay to draw alike.
  const needsMediaBuy = planned.some((p) => p.task === undefined || !BUY_FREE_TASKS.has(p.task));
  o.onPlanned?.(o.transports.length * planned.length);
  try {
    for (const transport of transports) {
      const state = await findFuzzState(transport, o.fixtures ?? {}, nonce, budget.signal, needsMediaBuy);
      info.push({
        transport: transport.kind,
        endpoint: transport.endpoint,
        reachable: state.unreachable === undefined,
        auth_required: /\b401\b/.test(state.unreachable ?? ''),
        declared_tasks: state.tasks,
        ...(state.unreachable ? { problem: state.unreachable } : {}),
      });
      if (state.unreachable) continue;
      const ctx: FuzzContext = {
        transport,
        token: o.token,
        ...(o.target ? { target: o.target } : {}),
        account: state.account ?? {},
        ...(o.fixtures?.second_account ? { secondAccount: o.fixtures.second_account as unknown as Record<string, unknown> } : {}),
        ...(state.distinctKeys ? { distinctKeys: true } : {}),
        product: state.product,
        signal: budget.signal,
        brand: state.brand,
        mediaBuy: state.mediaBuy,
        tasks: state.tasks,
        runSeed: o.seed,
        nonce,
        authToken: o.authToken,
        wire: wires.get(transport),
        ...(o.onCase ? { onCase: o.onCase } : {}),
        ...(o.fixtures?.tasks ? { taskArgs: o.fixtures.tasks } : {}),
      };
      for (const { property, task, wire } of planned) {
        const input: FuzzCheckInput = {
          property,
          task,
          transport: transport.kind,
          notes: state.notes,
          reportFile: o.reportFile,
          interpretationOf: o.interpretationOf,
        };
        const started = Date.now();
        o.onStart?.(task ? `${property.id}.${task}` : property.id, transport.kind);
        let outcome: PropertyOutcome | { outcome: 'not_applicable' | 'gap'; message: string; gap?: string; not_run?: boolean };
        const notApplicable = property.appliesTo?.(ctx);
        if (task && wire && !state.tasks.includes(wire)) outcome = { outcome: 'not_applicable', message: `the agent does not list ${wire}` };
        else if (notApplicable) outcome = { outcome: 'not_applicable', message: notApplicable };
        else if (!state.account)
          outcome = { outcome: 'gap', gap: 'buyer account (--fixtures account)', message: `no account the seller accepts: ${state.notes.join('; ')}` };
        else if (task && missingState(task, ctx)) outcome = { outcome: 'gap', gap: 'run state', message: missingState(task, ctx) as string };
        else if (budget.signal.aborted) outcome = { outcome: 'gap', gap: 'run budget', not_run: true, message: 'the run budget ran out before this check' };
        else {
          try {
            outcome = await property.run(
              ctx,
              { seed: o.seed, numRuns: o.runs, path: o.replay?.path, ...(o.replay?.sent ? { sent: o.replay.sent } : {}) },
              task,
            );
          } catch (e) {
            outcome = { outcome: 'gap', gap: 'harness', message: `the property could not run: ${(e as Error).message}` };
          }
        }
        const check = fuzzCheck(input, outcome, Date.now() - started);
        checks.push(check);
        o.onCheck?.(redactor.value(check));
      }
    }
  } finally {
    if (timer) clearTimeout(timer);
    await Promise.allSettled(transports.map((t) => t.close()));
  }
  const run = fuzzRunResult({
    agentUrl: o.agentUrl,
    token: o.token,
    transports: o.transports,
    info,
    checks,
    seed: o.seed,
    startedAt,
    command: o.command,
    budgetS: o.budgetS,
    target: targetInfo(o.target),
  });
  return redactor.value(run);
}
