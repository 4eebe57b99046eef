/**
 * One probe of one registered agent: `certify` with the registry's settings (private addresses
 * refused unless allowlisted, a budget per run), never throwing: a probe that breaks is an
 * `error` run, which the scheduler retries like an unreachable agent and never records as a pass.
 */
import { type CertifyOptions, certify, pickSuites } from '../certify/index.js';
import type { SuiteCatalog } from '../core/engine/loader.js';
import type { StoryboardBundle } from '../core/storyboards/model.js';
import type { SchemaSetChoice } from '../core/schemas/schema-set/choose.js';
import { causeOf, errorRun } from '../core/engine/error-run.js';
import type { RunResult } from '../core/engine/result.js';
import type { AgentRow } from './types.js';
import type { ProtocolLine } from '../core/protocol/lines.js';
import { targetInfo } from '../core/engine/run-result.js';

export interface ProbeSettings {
  /** Budget of one run in seconds (the registry's probing allows 600). */
  budgetS: number;
  /** Refuse private and reserved addresses (default on for a registry). */
  denyPrivate: boolean;
  /** Hosts, addresses, CIDR blocks let through under denyPrivate. */
  allowHosts: string[];
  /** Suites to run (default all). */
  suites?: string[];
  /** Checks run at once within one probe. */
  concurrency?: number;
  /** Per-call timeout in seconds. */
  timeoutS?: number;
  /** The protocol line probes judge against (default the newest released line). */
  target?: ProtocolLine;
  /**
   * A storyboard bundle (`registry serve --storyboards DIR`): its storyboards, compiled into
   * suites, are what every probe runs, instead of the built-in suites (as `run --storyboards`
   * does; `suites` then names compiled storyboards, `storyboard.<id>`). Absent: the built-in suites.
   */
  storyboards?: { bundle: StoryboardBundle; catalog: SuiteCatalog };
  /** The released schema set judged with (`--schemas`, or found beside the bundle). */
  schemaSet?: SchemaSetChoice;
}

/** The catalog probes choose suites from: the bundle's compiled storyboards, or undefined for the built-in suites. */
export const catalogOf = (s: ProbeSettings): SuiteCatalog | undefined => s.storyboards?.catalog;

export const DEFAULT_PROBE_BUDGET_S = 600;

export type Prober = (agent: AgentRow, settings: ProbeSettings) => Promise<RunResult>;

export const probeAgent: Prober = async (agent, s) => {
  const startedAt = new Date();
  const command = `proto-comply run --agent ${agent.url} --transport ${agent.transports.join(',')}${s.denyPrivate ? ' --deny-private' : ''} (registry probe)`;
  try {
    return await certify(certifyOptionsOf(agent, s, command));
  } catch (e) {
    let suites: ReturnType<typeof pickSuites> = [];
    try {
      suites = pickSuites(s.suites, catalogOf(s));
    } catch {
      // an unknown suite is the service's configuration error; the run records the cause
    }
    return errorRun(
      {
        agentUrl: agent.url,
        token: agent.token,
        transports: agent.transports,
        seed: '0',
        command,
        suites,
        strict: false,
        budgetS: s.budgetS,
        startedAt,
        target: targetInfo(s.target),
      },
      causeOf(e),
      [],
    );
  }
};

/** The options of `certify` for a probe of `agent` under the service's settings (a whole probe, or, with `suites`, a part of one). */
export function certifyOptionsOf(
  agent: Pick<AgentRow, 'url' | 'transports' | 'token' | 'authToken'>,
  s: ProbeSettings,
  command: string,
): CertifyOptions & { agentUrl: string } {
  const catalog = catalogOf(s);
  return {
    agentUrl: agent.url,
    transports: agent.transports,
    token: agent.token,
    authToken: agent.authToken,
    budgetS: s.budgetS,
    ...(s.target ? { target: s.target } : {}),
    denyPrivate: s.denyPrivate,
    allowHosts: s.allowHosts,
    ...(s.suites ? { suites: s.suites } : {}),
    ...(catalog ? { catalog } : {}),
    ...(s.schemaSet ? { schemaSet: s.schemaSet } : {}),
    ...(s.concurrency ? { concurrency: s.concurrency } : {}),
    ...(s.timeoutS ? { timeoutS: s.timeoutS } : {}),
    command,
  };
}
