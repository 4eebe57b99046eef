/** Applicability and prerequisite conditions, evaluated against the agent profile. */
import { isDeepStrictEqual } from 'node:util';
import type { Condition } from './model.js';
import type { AgentProfile } from './profile.js';
import { resolvePointer } from './pointer.js';
import { lifecycleStageOf } from './lifecycle.js';
import type { ProtocolIds } from '../token.js';
import { AGENT_KIND_DEFS, agentKindsOf } from '../protocol/agent-kinds.js';

export function lookupCapability(caps: unknown, pointers: string | string[], ids: ProtocolIds): { found: boolean; value: unknown; pointer: string } {
  const list = Array.isArray(pointers) ? pointers : [pointers];
  for (const p of list) {
    const pointer = ids.expand(p);
    const r = resolvePointer(caps, pointer);
    if (r.found) return { ...r, pointer };
  }
  return { found: false, value: undefined, pointer: ids.expand(list[0]) };
}

export function evaluateCondition(cond: Condition, profile: AgentProfile, ids: ProtocolIds): boolean {
  if ('all' in cond) return cond.all.every((c) => evaluateCondition(c, profile, ids));
  if ('any' in cond) return cond.any.some((c) => evaluateCondition(c, profile, ids));
  if ('not' in cond) return !evaluateCondition(cond.not, profile, ids);
  if ('task_declared' in cond) return profile.tasks.includes(ids.expand(cond.task_declared));
  if ('agent_kind' in cond) return agentKindsOf(profile.tasks, profile.capabilities).includes(cond.agent_kind);
  if ('run' in cond) return cond.run === 'auth_token' ? profile.authTokenSet : false;
  if ('lifecycle_stage' in cond) return cond.lifecycle_stage.includes(lifecycleStageOf(profile.lifecycleStage, [profile.capabilities]));
  if ('controller_scenario' in cond) return offersScenario(profile, cond.controller_scenario, ids);
  if ('agent_card' in cond) {
    const card = profile.open?.agentCard;
    const r = card === undefined ? { found: false, value: undefined } : resolvePointer(card, cond.agent_card);
    if (cond.present !== undefined) return r.found === cond.present;
    if (cond.equals !== undefined) return r.found && isDeepStrictEqual(r.value, cond.equals);
    return r.found;
  }
  const r = lookupCapability(profile.capabilities, cond.capability, ids);
  if (cond.present !== undefined && r.found !== cond.present) return false;
  if (cond.equals !== undefined && !(r.found && isDeepStrictEqual(r.value, cond.equals))) return false;
  if (cond.in !== undefined && !(r.found && cond.in.some((v) => isDeepStrictEqual(v, r.value)))) return false;
  if (cond.contains !== undefined && !(r.found && Array.isArray(r.value) && r.value.some((v) => isDeepStrictEqual(v, cond.contains)))) return false;
  if (cond.present === undefined && cond.equals === undefined && cond.in === undefined && cond.contains === undefined) return r.found;
  return true;
}

export function describeCondition(cond: Condition): string {
  if ('all' in cond) return cond.all.map(describeCondition).join(' and ');
  if ('any' in cond) return `(${cond.any.map(describeCondition).join(' or ')})`;
  if ('not' in cond) return `not ${describeCondition(cond.not)}`;
  if ('task_declared' in cond) return `task ${cond.task_declared} listed`;
  if ('agent_kind' in cond)
    return `a ${cond.agent_kind} agent (supported_protocols lists ${AGENT_KIND_DEFS[cond.agent_kind].protocol}, or it lists ${AGENT_KIND_DEFS[cond.agent_kind].defining.join(' or ')})`;
  if ('run' in cond) return cond.run === 'auth_token' ? 'a bearer token given with --auth-token' : cond.run;
  if ('lifecycle_stage' in cond)
    return `a ${cond.lifecycle_stage.join(' or ')} deployment (--lifecycle-stage, or production when no test controller is declared)`;
  if ('controller_scenario' in cond)
    return `a sandbox test controller offering ${cond.controller_scenario} (declared in compliance_testing.scenarios or listed by list_scenarios)`;
  if ('agent_card' in cond) {
    if (cond.equals !== undefined) return `A2A agent card ${cond.agent_card} = ${JSON.stringify(cond.equals)}`;
    return `A2A agent card ${cond.agent_card} ${cond.present === false ? 'absent' : 'declared'}`;
  }
  const p = Array.isArray(cond.capability) ? cond.capability.join(' or ') : cond.capability;
  if (cond.equals !== undefined) return `capability ${p} = ${JSON.stringify(cond.equals)}`;
  if (cond.in !== undefined) return `capability ${p} in ${JSON.stringify(cond.in)}`;
  if (cond.contains !== undefined) return `capability ${p} listing ${JSON.stringify(cond.contains)}`;
  if (cond.present === false) return `capability ${p} absent`;
  return `capability ${p} declared`;
}

/** Declared in the capability's `compliance_testing.scenarios`, or listed by the controller's `list_scenarios` (profile.ts). */
/** Whether the agent's test controller offers `scenario`: declared in its capabilities, or listed by `list_scenarios`. */
export function offersScenario(profile: AgentProfile, scenario: string, ids: ProtocolIds): boolean {
  const declared = lookupCapability(profile.capabilities, '/compliance_testing/scenarios', ids);
  if (declared.found && Array.isArray(declared.value) && declared.value.includes(scenario)) return true;
  return profile.controllerScenarios?.includes(scenario) ?? false;
}
