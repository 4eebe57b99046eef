/**
 * The kinds of agent interface spec 1 names (media-buying/sales, creative, signals, governance,
 * brand), each with the 4.3 tasks that make it and the `supported_protocols` name it declares in
 * its capability answer. An agent is of a kind when it declares that protocol or lists one of the
 * kind's defining tasks; an agent may be of several kinds. Checks of a kind the agent does not claim
 * are not applicable (the `agent_kind` condition of harness/core/engine/conditions.ts).
 */
import type { SPEC_TASKS } from './tasks.js';

type SpecTask = (typeof SPEC_TASKS)[number];

export const AGENT_KINDS = ['media-buy', 'creative', 'signals', 'governance', 'brand'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

export interface AgentKindDef {
  /** The `supported_protocols` entry of the capability answer. */
  protocol: string;
  /** Listing any of these makes an agent of the kind. */
  defining: readonly SpecTask[];
  /** Every 4.3 task an agent of the kind serves (a task may belong to several kinds). */
  tasks: readonly SpecTask[];
}

export const AGENT_KIND_DEFS: Readonly<Record<AgentKind, AgentKindDef>> = {
  'media-buy': {
    protocol: 'media_buy',
    defining: ['get_products', 'create_media_buy'],
    tasks: [
      'get_products',
      'create_media_buy',
      'update_media_buy',
      'get_media_buys',
      'get_media_buy_delivery',
      'sync_accounts',
      'list_accounts',
      'list_creative_formats',
      'sync_creatives',
      'sync_audiences',
      'sync_catalogs',
      'log_event',
      'provide_performance_feedback',
    ],
  },
  creative: { protocol: 'creative', defining: ['build_creative'], tasks: ['list_creative_formats', 'build_creative', 'sync_creatives'] },
  signals: { protocol: 'signals', defining: ['get_signals', 'activate_signal'], tasks: ['get_signals', 'activate_signal'] },
  governance: { protocol: 'governance', defining: ['check_governance', 'get_plan_audit_logs'], tasks: ['check_governance', 'get_plan_audit_logs'] },
  brand: { protocol: 'brand', defining: ['get_brand_identity'], tasks: ['get_brand_identity'] },
};

export function isAgentKind(value: string): value is AgentKind {
  return (AGENT_KINDS as readonly string[]).includes(value);
}

/** The kinds an agent claims: by its capability answer's `supported_protocols`, or by the tasks it lists. */
export function agentKindsOf(tasks: readonly string[], capabilities: Record<string, unknown> | undefined): AgentKind[] {
  const declared = Array.isArray(capabilities?.supported_protocols) ? (capabilities.supported_protocols as unknown[]) : [];
  return AGENT_KINDS.filter((k) => declared.includes(AGENT_KIND_DEFS[k].protocol) || AGENT_KIND_DEFS[k].defining.some((t) => tasks.includes(t)));
}

/** The 4.3 tasks of some kinds, deduplicated, in the order of the kinds' task lists. */
export function tasksOfKinds(kinds: readonly AgentKind[]): string[] {
  return [...new Set(kinds.flatMap((k) => AGENT_KIND_DEFS[k].tasks))];
}
