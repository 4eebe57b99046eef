/**
 * The storyboard operations of the service (digest 6.3), behind routes/storyboards.ts:
 * - what will be graded on an agent (its profile read now; answers kept APPLICABLE_TTL_MS per
 *   agent, so anonymous callers of a public route cannot make the service call an agent at will);
 * - a run of one storyboard, recorded in the history as STORYBOARD_RUN (never the agent's status);
 * - one step: said exactly (dry run: nothing sent) or run alone;
 * - one storyboard on the agent and on the reference agent, side by side.
 */
import { randomUUID } from 'node:crypto';
import { certify } from '../certify/index.js';
import type { CheckDef, StepDef } from '../core/engine/model.js';
import type { CheckResult, RunResult } from '../core/engine/result.js';
import { ScopedRandom } from '../core/engine/rng.js';
import { causeOf, errorRun } from '../core/engine/error-run.js';
import { targetInfo } from '../core/engine/run-result.js';
import { expandTemplates, OMIT, TemplateError, type TemplateScope } from '../core/engine/template.js';
import { compileStoryboards } from '../core/storyboards/compile.js';
import type { Storyboard, StoryboardPhase, StoryboardStep } from '../core/storyboards/model.js';
import { substitute, UnresolvedSubstitution, type SubstitutionScope } from '../core/storyboards/substitute.js';
import { kitValue, taskOf, testKitOf } from '../core/storyboards/test-kits.js';
import { protocolIds } from '../core/token.js';
import { resolveEndpoints } from '../core/transport/endpoints.js';
import type { AgentTransportKind } from '../core/transport/types.js';
import { certifyOptionsOf, type ProbeSettings } from './probe.js';
import type { ReferenceAgent, ReferenceAgents } from './reference-agent.js';
import { agentProfiles, applicableStoryboards, type CatalogStoryboard, StoryboardCatalog } from './storyboard-catalog.js';
import { type AgentRow, type RegistryStore, STORYBOARD_RUN } from './types.js';

/** How long an `applicable-storyboards` answer is reused for the same agent. */
export const APPLICABLE_TTL_MS = 30_000;

/** One step of a storyboard, located: a compiled storyboard's step, or a suite's check. */
export type LocatedStep =
  | { kind: 'storyboard'; stepId: string; storyboard: Storyboard; phase: StoryboardPhase; step: StoryboardStep }
  | { kind: 'check'; stepId: string; check: CheckDef };

/** A value not substituted in a dry run, and why. */
export interface Unresolved {
  token: string;
  why: string;
}

/** What a step would send on one transport. */
export interface PlannedRequest {
  transport: AgentTransportKind;
  endpoint: string;
  task: string | null;
  arguments: unknown;
  unresolved: Unresolved[];
  note?: string;
}

export interface StepPlan {
  requests: PlannedRequest[];
  /** Earlier steps whose state (captured values, responses, created resources) this step needs. */
  needs: string[];
  notes: string[];
}

export class StoryboardOps {
  readonly catalog: StoryboardCatalog;
  private readonly applicableCache = new Map<string, { at: number; body: Promise<Record<string, unknown>> }>();

  constructor(
    private readonly o: {
      store: RegistryStore;
      settings: ProbeSettings;
      runner: string;
      reference: ReferenceAgents;
      now?: () => number;
    },
  ) {
    this.catalog = new StoryboardCatalog(o.settings);
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** What will be graded (digest 6.3 `applicable-storyboards`); throws ApplicabilityError. */
  applicable(agent: AgentRow): Promise<Record<string, unknown>> {
    const now = this.now();
    for (const [k, v] of this.applicableCache) if (now - v.at > APPLICABLE_TTL_MS) this.applicableCache.delete(k);
    const key = `${agent.url}\0${agent.transports.join(',')}\0${agent.token}`;
    const hit = this.applicableCache.get(key);
    if (hit) return hit.body;
    const body = agentProfiles(agent, this.o.settings).then((profiles) => applicableStoryboards(agent, this.catalog, profiles));
    this.applicableCache.set(key, { at: now, body });
    return body;
  }

  private runOptions(agent: Pick<AgentRow, 'url' | 'transports' | 'token' | 'authToken'>, e: CatalogStoryboard, what: string, settings = this.o.settings) {
    return {
      ...certifyOptionsOf(agent, settings, `proto-comply run --agent ${agent.url} --suite ${e.suite.id} (registry: ${what})`),
      suites: [e.suite.id],
    };
  }

  /** Runs one storyboard now and records it (STORYBOARD_RUN); undefined when a probe of the agent is already running. */
  async run(agent: AgentRow, e: CatalogStoryboard): Promise<{ runId: number; result: RunResult } | undefined> {
    const runId = await this.o.store.startRun(agent.id, this.now(), this.o.runner, STORYBOARD_RUN);
    if (runId === undefined) return undefined;
    const options = this.runOptions(agent, e, `storyboard ${e.id}`);
    const startedAt = new Date();
    let result: RunResult;
    try {
      result = await certify(options);
    } catch (err) {
      // Never left running: the run is recorded as the harness error it is.
      result = errorRun(
        {
          agentUrl: agent.url,
          token: agent.token,
          transports: agent.transports,
          seed: '0',
          command: options.command ?? '',
          suites: [e.suite],
          strict: false,
          budgetS: options.budgetS,
          startedAt,
          target: targetInfo(this.o.settings.target),
        },
        causeOf(err),
        [],
      );
    }
    await this.o.store.finishRun(runId, { result, now: this.now(), nextDueAt: agent.nextDueAt, failures: agent.failures });
    return { runId, result };
  }

  /** The storyboard on the agent and on the reference agent at once (not recorded: neither is a run of the agent). */
  async compare(agent: AgentRow, e: CatalogStoryboard): Promise<{ user: RunResult; reference: RunResult; ref: ReferenceAgent }> {
    const ref = await this.o.reference.for(agent);
    // The reference is let through the private-address refusal: the operator named it or the service started it.
    const refSettings: ProbeSettings = { ...this.o.settings, denyPrivate: false, allowHosts: [] };
    const [user, reference] = await Promise.all([
      certify(this.runOptions(agent, e, `compare ${e.id}`)),
      certify(this.runOptions(ref, e, `compare ${e.id}, reference`, refSettings)),
    ]);
    return { user, reference, ref };
  }

  /** Locates `{stepId}` (`<step>` or `<step>@<transport>`) in the storyboard. */
  locate(e: CatalogStoryboard, raw: string): { step: LocatedStep; transport?: AgentTransportKind } | undefined {
    const at = raw.lastIndexOf('@');
    const transport = at > 0 && (raw.slice(at + 1) === 'mcp' || raw.slice(at + 1) === 'a2a') ? (raw.slice(at + 1) as AgentTransportKind) : undefined;
    const id = transport ? raw.slice(0, at) : raw;
    if (e.storyboard) {
      for (const phase of e.storyboard.phases)
        for (const step of phase.steps)
          if (step.id === id) return { step: { kind: 'storyboard', stepId: id, storyboard: e.storyboard, phase, step }, ...(transport ? { transport } : {}) };
      return undefined;
    }
    const check = e.suite.checks.find((c) => c.id === id);
    return check ? { step: { kind: 'check', stepId: id, check }, ...(transport ? { transport } : {}) } : undefined;
  }

  /** Exactly what the step would send on each transport, as far as it can be known without sending anything. */
  plan(agent: AgentRow, s: LocatedStep, transports: AgentTransportKind[], context: Record<string, unknown>): StepPlan {
    const endpoints = resolveEndpoints(agent.url);
    const endpointOf = (t: AgentTransportKind) =>
      t === 'mcp' ? endpoints.mcp : (endpoints.a2a ?? `the url of the agent card at ${endpoints.agentCard[0]} (read when the step runs)`);
    if (s.kind === 'storyboard') {
      const bundle = this.catalog.bundle!;
      const kit = testKitOf(bundle, s.storyboard);
      let task: string;
      try {
        task = taskOf(s.step, kit);
      } catch {
        task = s.step.task;
      }
      const unresolved: Unresolved[] = [];
      const scope: SubstitutionScope = {
        context: new Map(Object.entries(context)),
        priorSteps: new Map(),
        generated: new Map(),
        uuid: randomUUID,
        testKit: (path) => kitValue(kit, path),
      };
      const args = partially(s.step.sampleRequest ?? {}, (leaf) => substitute(leaf, scope), unresolved);
      const needs = storyboardNeeds(s, unresolved);
      return {
        requests: transports.map((t) => ({ transport: t, endpoint: endpointOf(t), task, arguments: args, unresolved })),
        needs,
        notes: [
          ...(kit.named ? [`test kit ${kit.named}${kit.kit ? '' : ' (not in the bundle)'}`] : []),
          'when it runs, idempotency keys get a per-transport pass suffix and stale flight dates are moved forward (the run notes say so)',
        ],
      };
    }
    const ids = protocolIds(agent.token);
    const kinds = this.catalog.suites.kinds;
    const requests: PlannedRequest[] = [];
    const needs = new Set<string>();
    for (const t of transports) {
      const unresolvedAll: Unresolved[] = [];
      const scope: TemplateScope = {
        ids,
        random: new ScopedRandom(randomUUID(), `${s.check.id}\0${t}`),
        runStartedAt: new Date(this.now()),
        steps: {},
        // A dry run reads nothing of the agent: its capabilities are not known here.
        capabilities: undefined,
        fact: () => undefined,
        publisherOf: (name) => kinds.factPublisher(name),
        functions: (name) => {
          const fn = kinds.templateFunction(name);
          return fn ? (arg, sc) => fn.resolve(arg, sc) : undefined;
        },
      };
      for (const def of s.check.steps) {
        const unresolved: Unresolved[] = [];
        const call = typeof def.task === 'string';
        const args = call ? partially(def.args ?? {}, (leaf) => expandTemplates(leaf, scope), unresolved) : undefined;
        for (const u of unresolved) {
          const fact = /fact "([^"]+)" was not published(?: \(by ([^)]+)\))?/.exec(u.why);
          if (fact?.[2]) needs.add(fact[2]);
          else if (/\{\{\s*steps\./.test(u.token)) needs.add(`an earlier step of ${s.check.id}`);
        }
        if (def.prerequisite) needs.add(def.prerequisite);
        unresolvedAll.push(...unresolved);
        requests.push({
          transport: t,
          endpoint: endpointOf(t),
          task: call ? String(partially(def.task, (leaf) => expandTemplates(leaf, scope), unresolved)) : null,
          arguments: args ?? null,
          unresolved,
          ...(call ? {} : { note: `a ${def.kind} step${describeStep(def)}` }),
        });
      }
    }
    return { requests, needs: [...needs], notes: ['values marked unresolved are filled in when the check runs, from facts its setup checks publish'] };
  }

  /**
   * Runs one step alone. A suite's check runs with the setup checks publishing the facts it reads
   * (selectChecks); a compiled storyboard's step runs as a storyboard of that one step, with
   * `context` for its `$context` values (the caller checked it needs no earlier step).
   */
  async runStep(
    agent: AgentRow,
    e: CatalogStoryboard,
    s: LocatedStep,
    transports: AgentTransportKind[],
    context: Record<string, unknown>,
  ): Promise<CheckResult[]> {
    const base = { ...this.runOptions(agent, e, `step ${s.stepId}`), transports };
    if (s.kind === 'check') {
      const run = await certify({ ...base, checkGlob: s.check.id });
      return run.checks.filter((c) => c.check_id === s.check.id);
    }
    const bundle = this.catalog.bundle!;
    const scope: SubstitutionScope = { context: new Map(Object.entries(context)), priorSteps: new Map(), generated: new Map(), uuid: randomUUID };
    // Only `$context` values are put in now; the rest is substituted by the run as usual.
    const sampleRequest = partially(s.step.sampleRequest ?? {}, (leaf) => (leaf.includes('$context.') ? substitute(leaf, scope) : leaf), []);
    const one: Storyboard = {
      ...s.storyboard,
      requiresScenarios: [],
      phases: [{ ...s.phase, dependsOn: [], steps: [{ ...s.step, sampleRequest }] }],
    };
    const catalog = compileStoryboards({ ...bundle, storyboards: new Map([[one.id, one]]) });
    const suite = catalog.suites.find((x) => x.storyboard_id === one.id);
    if (!suite) return [];
    const run = await certify({ ...base, catalog, suites: [suite.id] });
    return run.checks.filter((c) => c.suite_id === suite.id && c.storyboard_step?.step_id === s.step.id && !c.storyboard_step.advisory);
  }
}

function describeStep(def: StepDef): string {
  const fields = Object.keys(def).filter((k) => !['kind', 'id', 'role', 'prerequisite', 'lines', 'expect'].includes(k));
  return fields.length ? ` (${fields.join(', ')})` : '';
}

/**
 * `value` with each string substituted on its own: one that cannot be is left as authored and
 * recorded, so a dry run shows every value it can and names every one it cannot.
 */
export function partially(value: unknown, leaf: (s: string) => unknown, unresolved: Unresolved[], depth = 0): unknown {
  if (depth > 64) return value;
  if (typeof value === 'string') {
    try {
      return leaf(value);
    } catch (e) {
      if (e instanceof UnresolvedSubstitution || e instanceof TemplateError) {
        unresolved.push({ token: value, why: e.message });
        return value;
      }
      throw e;
    }
  }
  if (Array.isArray(value)) return value.map((v) => partially(v, leaf, unresolved, depth + 1)).filter((v) => v !== OMIT);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const x = partially(v, leaf, unresolved, depth + 1);
      if (x !== OMIT) out[k] = x;
    }
    return out;
  }
  return value;
}

/** The earlier steps a storyboard step needs: the stateful chain before it, its webhook trigger, the steps its substitutions read. */
function storyboardNeeds(s: Extract<LocatedStep, { kind: 'storyboard' }>, unresolved: Unresolved[]): string[] {
  const needs: string[] = [];
  const before: Array<{ phase: StoryboardPhase; step: StoryboardStep }> = [];
  for (const phase of s.storyboard.phases)
    for (const step of phase.steps) {
      if (step === s.step) break;
      before.push({ phase, step });
    }
  if (s.step.stateful && !s.phase.optional) {
    const last = before.filter((b) => b.step.stateful && !b.phase.optional).at(-1);
    if (last) needs.push(`${last.step.id} (the stateful step before it: a stateful step needs the state the earlier ones created)`);
  }
  const trigger = s.step.raw.triggered_by;
  if (typeof trigger === 'string') needs.push(`${trigger} (the step whose webhook it judges)`);
  for (const u of unresolved) {
    const prior = /\{\{\s*prior_step\.([^.}\s]+)/.exec(u.token);
    if (prior) needs.push(`${prior[1]} (its response: ${u.token})`);
    const ctx = /\$context\.([A-Za-z0-9_]+)/.exec(u.token);
    if (ctx && u.why.includes('no earlier step captured it')) needs.push(`the step capturing $context.${ctx[1]} (or give it in "context")`);
  }
  return [...new Set(needs)];
}
