/**
 * One probe of one registered agent: `certify` with the registry's settings (private addresses
 * refused unless allowlisted, a budget per run), never throwing: a probe that breaks is an
 * `error` run, which the scheduler retries like an unreachable agent and never records as a pass.
 */
import { certify, pickSuites } from '../certify/index.js';
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
}

export const DEFAULT_PROBE_BUDGET_S = 600;

export type Prober = (agent: AgentRow, settings: ProbeSettings) => Promise<RunResult>;

export const probeAgent: Prober = async (agent, s) => {
  const startedAt = new Date();
  const command = `proto-comply run --agent ${agent.url} --transport ${agent.transports.join(',')}${s.denyPrivate ? ' --deny-private' : ''} (registry probe)`;
  try {
    return await certify({
      agentUrl: agent.url,
      transports: agent.transports,
      token: agent.token,
      authToken: agent.authToken,
      budgetS: s.budgetS,
      ...(s.target ? { target: s.target } : {}),
      denyPrivate: s.denyPrivate,
      allowHosts: s.allowHosts,
      ...(s.suites ? { suites: s.suites } : {}),
      ...(s.concurrency ? { concurrency: s.concurrency } : {}),
      ...(s.timeoutS ? { timeoutS: s.timeoutS } : {}),
      command,
    });
  } catch (e) {
    let suites: ReturnType<typeof pickSuites> = [];
    try {
      suites = pickSuites(s.suites);
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
