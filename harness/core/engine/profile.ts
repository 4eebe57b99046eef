/**
 * What the engine learns about an agent before any suite runs, once per transport: can it be
 * reached, does it want credentials, which tasks it lists and what it declares.
 */
import type { OpenInfo, TaskReply, Transport, TransportKind } from '../transport/types.js';
import type { ProtocolIds } from '../token.js';
import type { LifecycleStage } from './lifecycle.js';
import { CONTROLLER_TASK } from '../protocol/tasks.js';

export interface AgentProfile {
  transport: TransportKind;
  /** False when the agent does not offer this transport at all (e.g. no A2A agent card). */
  offered: boolean;
  reachable: boolean;
  authRequired: boolean;
  /** Why the transport is unusable (unreachable, auth, not offered). */
  problem?: string;
  tasks: string[];
  /** The capability declaration, when the capabilities task answered. */
  capabilities?: Record<string, unknown>;
  capabilitiesReply?: TaskReply;
  /** The scenarios the sandbox test controller's `list_scenarios` named, when the agent declares
   *  `compliance_testing` and lists the controller (conditions.ts `controller_scenario`). */
  controllerScenarios?: string[];
  open?: OpenInfo;
  /** The run has a bearer token for the agent. */
  authTokenSet: boolean;
  /** The lifecycle stage the user gave (`run --lifecycle-stage`); absent, the declaration decides (lifecycle.ts). */
  lifecycleStage?: LifecycleStage;
}

export async function buildProfile(
  transport: Transport,
  ids: ProtocolIds,
  opts: { signal: AbortSignal; authTokenSet: boolean; explicitlyRequested: boolean; lifecycleStage?: LifecycleStage },
): Promise<AgentProfile> {
  const base: AgentProfile = {
    transport: transport.kind,
    offered: true,
    reachable: true,
    authRequired: false,
    tasks: [],
    authTokenSet: opts.authTokenSet,
    ...(opts.lifecycleStage ? { lifecycleStage: opts.lifecycleStage } : {}),
  };
  const open = await transport.open(opts.signal);
  base.open = open;
  if (open.failure) {
    const f = open.failure;
    if (f.kind === 'aborted') return { ...base, problem: 'the run budget ran out while profiling the agent' };
    if (f.kind === 'http_status' && (f.httpStatus === 401 || f.httpStatus === 403)) {
      return { ...base, authRequired: true, problem: `${transport.kind}: the agent refused the harness's credentials (HTTP ${f.httpStatus})` };
    }
    if (f.kind === 'http_status' && f.httpStatus === 404 && transport.kind === 'a2a' && !opts.explicitlyRequested) {
      return { ...base, offered: false, problem: 'the agent offers no A2A agent card (HTTP 404)' };
    }
    return { ...base, reachable: false, problem: `${transport.kind}: ${f.message}` };
  }
  // The registry face has no tasks to list and no capability task: reachable is all there is.
  if (transport.kind === 'rest') return base;
  const list = await transport.listTasks(opts.signal);
  if (!list.failure) base.tasks = list.names;
  const caps = await transport.call(ids.capabilitiesTask, {}, { signal: opts.signal, purpose: 'profile' });
  base.capabilitiesReply = caps;
  if (caps.failure?.kind === 'http_status' && (caps.failure.httpStatus === 401 || caps.failure.httpStatus === 403)) {
    return { ...base, authRequired: true, problem: `${transport.kind}: the agent refused the harness's credentials (HTTP ${caps.failure.httpStatus})` };
  }
  if (caps.failure && (caps.failure.kind === 'network' || caps.failure.kind === 'timeout' || caps.failure.kind === 'refused')) {
    return { ...base, reachable: false, problem: `${transport.kind}: ${caps.failure.message}` };
  }
  if (caps.ok && caps.payload !== null && typeof caps.payload === 'object' && !Array.isArray(caps.payload)) {
    base.capabilities = caps.payload as Record<string, unknown>;
  }
  const scenarios = await listControllerScenarios(transport, base.capabilities, opts.signal);
  if (scenarios) base.controllerScenarios = scenarios;
  return base;
}

/**
 * What the sandbox test controller's `list_scenarios` names. Only an agent declaring
 * `compliance_testing` (a sandbox) is asked, listed controller or not (A2A skills need not list
 * every task): a production agent is never poked.
 */
export async function listControllerScenarios(transport: Transport, capabilities: unknown, signal: AbortSignal): Promise<string[] | undefined> {
  if ((capabilities as { compliance_testing?: unknown } | undefined)?.compliance_testing === undefined) return undefined;
  const r = await transport.call(CONTROLLER_TASK, { scenario: 'list_scenarios', account: { sandbox: true } }, { signal, purpose: 'profile' });
  const listed = r.ok && !r.isError ? (r.payload as { scenarios?: unknown } | null)?.scenarios : undefined;
  return Array.isArray(listed) ? listed.filter((x): x is string => typeof x === 'string').slice(0, 200) : undefined;
}
