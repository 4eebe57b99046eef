/**
 * Which storyboards of a bundle apply to an agent, and why each other one does not (digest 6.1,
 * 6.2): every universal storyboard; a protocol's storyboards when `supported_protocols` claims
 * it; a specialism's when `specialisms` does; the scenarios a selected storyboard requires. Then
 * each storyboard's own gates: `required_tools` (any one of them), `required_any_of_tools` (one
 * of each group), `requires_capability` / `requires_all_capabilities`, `introduced_in` against
 * the agent's `major_versions` and, for a minor release (`3.1`), against the run's target line and
 * the agent's `supported_versions`: a 3.0 run, or an agent declaring only 3.0, is not judged by a
 * storyboard of 3.1. The reasons are the runner output contract's skip reasons.
 */
import type { CapabilityRequirement, Storyboard, StoryboardBundle } from './model.js';
import { resolveStoryboardPath } from './path.js';
import { strings } from './load.js';
import { isDeepStrictEqual } from 'node:util';

/** Skip reasons of the runner output contract (digest 6.1) that selection gives. */
export type SelectionSkip = 'not_applicable' | 'missing_tool';

/** What selection knows of the agent: its capability block and the tasks it lists. */
export interface AgentFacts {
  /** The capabilities response (`supported_protocols`, `specialisms`, `major_versions`, the protocol blocks). */
  capabilities: Record<string, unknown>;
  /** The tasks the agent lists (MCP tools/list or the A2A card's skills). */
  tools: ReadonlySet<string>;
  /** The major versions it declares (its `<token>` block); default `capabilities.major_versions`. */
  majorVersions?: number[];
  /** The run's target line (`3.0`), and the versions the agent declares (its `<token>` block's `supported_versions`). */
  target?: string;
  supportedVersions?: string[];
}

export interface StoryboardSelection {
  storyboard: Storyboard;
  /** Why it was selected: `universal`, the protocol or specialism claimed, or the storyboard requiring it. */
  via: string;
  skip?: { reason: SelectionSkip; detail: string };
}

/** `supported_protocols` values (snake_case) and the bundle's protocol ids (kebab-case). */
const protocolId = (p: string) => p.replaceAll('_', '-');

export function selectStoryboards(bundle: StoryboardBundle, agent: AgentFacts): StoryboardSelection[] {
  const caps = agent.capabilities;
  const protocols = new Set(strings(caps.supported_protocols).map(protocolId));
  const specialisms = new Set(strings(caps.specialisms));
  const out = new Map<string, StoryboardSelection>();
  const take = (id: string, via: string, claimed: boolean, why: string) => {
    const sb = bundle.storyboards.get(id);
    if (!sb) return;
    const seen = out.get(id);
    if (seen && !seen.skip) return;
    if (!claimed) {
      if (!seen) out.set(id, { storyboard: sb, via, skip: { reason: 'not_applicable', detail: why } });
      return;
    }
    out.set(id, { storyboard: sb, via, ...gate(sb, agent) });
    for (const ref of sb.requiresScenarios) take(ref, `required by ${sb.id}`, true, '');
  };
  for (const e of bundle.entries) {
    const claimed = e.kind === 'universal' || (e.kind === 'protocol' ? protocols.has(e.id) : specialisms.has(e.id));
    const via = e.kind === 'universal' ? 'universal' : `${e.kind} ${e.id}`;
    const why =
      e.kind === 'protocol' ? `the agent does not list ${e.id.replaceAll('-', '_')} in supported_protocols` : `the agent does not claim the ${e.id} specialism`;
    for (const id of e.storyboards) take(id, via, claimed, why);
  }
  // A bundle of one file: the storyboard applies unless its own gates say otherwise.
  if (bundle.entries.length === 0) for (const sb of bundle.storyboards.values()) take(sb.id, 'the file given', true, '');
  return [...out.values()];
}

/** A storyboard's own gates; an empty object when it applies. */
function gate(sb: Storyboard, agent: AgentFacts): Pick<StoryboardSelection, 'skip'> {
  if (sb.requiredTools.length > 0 && !sb.requiredTools.some((t) => agent.tools.has(t)))
    return { skip: { reason: 'missing_tool', detail: `the agent lists none of ${sb.requiredTools.join(', ')}` } };
  for (const group of sb.requiredAnyOfTools)
    if (!group.tools.some((t) => agent.tools.has(t)))
      return { skip: { reason: 'missing_tool', detail: `the agent lists none of ${group.tools.join(', ')}${group.rationale ? ` (${group.rationale})` : ''}` } };
  for (const req of [...(sb.requiresCapability ? [sb.requiresCapability] : []), ...sb.requiresAllCapabilities]) {
    const unmet = unmetRequirement(req, agent.capabilities);
    if (unmet) return { skip: { reason: 'not_applicable', detail: unmet } };
  }
  if (sb.introducedIn) {
    const major = Number(/^\s*(\d+)/.exec(sb.introducedIn)?.[1]);
    const majors = agent.majorVersions ?? (Array.isArray(agent.capabilities.major_versions) ? agent.capabilities.major_versions.filter(Number.isInteger) : []);
    if (Number.isInteger(major) && majors.length > 0 && !majors.includes(major))
      return { skip: { reason: 'not_applicable', detail: `introduced in ${sb.introducedIn}; the agent declares major_versions [${majors.join(', ')}]` } };
    const since = release(sb.introducedIn);
    const before = (v: string) => {
      const r = release(v);
      return since !== undefined && r !== undefined && (r[0] < since[0] || (r[0] === since[0] && r[1] < since[1]));
    };
    if (agent.target && before(agent.target))
      return { skip: { reason: 'not_applicable', detail: `introduced in ${sb.introducedIn}; the run targets ${agent.target}` } };
    const declared = agent.supportedVersions ?? [];
    if (declared.length > 0 && declared.every(before))
      return { skip: { reason: 'not_applicable', detail: `introduced in ${sb.introducedIn}; the agent declares supported_versions [${declared.join(', ')}]` } };
  }
  return {};
}

/** `3.1` of `3.1`, `3.1.19`, `3.1-beta`; undefined without a minor. */
function release(v: string): [number, number] | undefined {
  const m = /^\s*(\d+)\.(\d+)/.exec(v);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** Why a capability requirement is not met, or undefined when it is. */
export function unmetRequirement(req: CapabilityRequirement, capabilities: unknown): string | undefined {
  let value: unknown;
  try {
    value = resolveStoryboardPath(capabilities, req.path);
  } catch {
    return `requires_capability names a malformed path ${JSON.stringify(req.path)}`;
  }
  const shown = (v: unknown) => JSON.stringify(v)?.slice(0, 80);
  if (req.present !== undefined && (value !== undefined) !== req.present) return `the capability ${req.path} is ${value === undefined ? 'absent' : 'present'}`;
  if ('equals' in req && !isDeepStrictEqual(value, req.equals)) return `the capability ${req.path} is ${shown(value) ?? 'absent'}, not ${shown(req.equals)}`;
  const has = (x: unknown) => Array.isArray(value) && value.some((v) => isDeepStrictEqual(v, x));
  if ('contains' in req && !has(req.contains)) return `the capability ${req.path} does not contain ${shown(req.contains)}`;
  if ('not_contains' in req && has(req.not_contains)) return `the capability ${req.path} contains ${shown(req.not_contains)}`;
  return undefined;
}
