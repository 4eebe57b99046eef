/**
 * The traceability map: every normative rule of the interface spec and of the digest, with the
 * check ids that test it or a one-line reason it is untested. One YAML file per document
 * (suites/traceability/<doc>.yaml); `proto-comply rules` prints it.
 */
import type { Level } from '../engine/result.js';
import type { ProtocolLine } from '../protocol/lines.js';

export const SPEC_DOCS = ['interface-spec', 'digest'] as const;
export type SpecDoc = (typeof SPEC_DOCS)[number];

/** Rule id prefix of each document (`is-4.4-r1`, `digest-1.9-step5`). */
export const RULE_ID_PREFIX: Record<SpecDoc, string> = { 'interface-spec': 'is', digest: 'digest' };

/**
 * Why a rule is untested: an `untested` reason starts with one of these categories and a colon
 * (`registry face: the OpenAPI description is not fetched or checked`). The set is closed so the summary can count by it.
 */
export const UNTESTED_CATEGORIES = {
  'no check yet': 'observable on the wire, but no check tests it yet (a coverage gap)',
  'registry face': 'the registry REST API and the discovery files: what the registry, registry-compliance and discovery suites do not probe',
  'not shown': 'the document does not give the shape or value, so there is nothing to grade against',
  ambiguous: 'the sources disagree; no check until the rule is settled',
  'not observable': 'happens inside the agent (storage, logs, timing, review) and cannot be seen from outside',
  'client side': 'binds the calling buyer or client, which the harness plays itself; not a property of the agent',
  'signer side': "how an agent signs its own outgoing requests; the harness captures only the agent's webhooks",
  'harness side': 'binds the test runner, its vectors or its reports, not the agent under test',
  'optional behaviour': 'a MAY whose both outcomes conform, so no answer can fail it',
  'other version': 'belongs to a protocol version the harness does not grade (the 3.2-only profile, 4.0)',
  'other agent kind': 'a task or surface of creative, signals, governance, brand or session agents, not exercised',
} as const;
export type UntestedCategory = keyof typeof UNTESTED_CATEGORIES;

export interface TraceRule {
  /** Stable id: `<is|digest>-<section>-<name>`. */
  id: string;
  /** Heading number of the section holding the rule (`4.4`, `2.4a`). */
  section: string;
  /** GitHub-style anchor of that heading (`44-idempotency-rules`). */
  anchor: string;
  level: Level;
  /** One-line paraphrase of the rule. */
  rule: string;
  /** Check ids that test the rule (exactly one of checks / untested). */
  checks?: string[];
  /** `<category>: <reason>` when no check tests the rule. */
  untested?: string;
  /**
   * The protocol lines the rule belongs to, when not every 3.x line (empty: none of them, a 4.0
   * rule); absent: every line. A check judged under a target is tied to a rule of that line.
   */
  lines?: ProtocolLine[];
  /** Where the lines come from: the digest's version note, or the released docs and schemas of each line. */
  lines_source?: string;
}

/** A numbered section that holds no rule of its own (a heading over subsections, a source list). */
export interface SectionWithoutRules {
  section: string;
  anchor: string;
  reason: string;
}

export interface TraceMap {
  doc: SpecDoc;
  /** Where the map was read from (shown in problems). */
  source: string;
  no_rules: SectionWithoutRules[];
  rules: TraceRule[];
}

/** The category of an untested reason (undefined when it names none). */
export function untestedCategory(reason: string): UntestedCategory | undefined {
  const head = reason.split(':')[0]!;
  return Object.hasOwn(UNTESTED_CATEGORIES, head) ? (head as UntestedCategory) : undefined;
}
