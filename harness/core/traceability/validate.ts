/**
 * Checking traceability maps against what they describe: the checks of the suites (every mapped
 * check id exists, every check is in some rule, every check's spec reference carries its
 * section's anchor) and, when the document is at hand, the document itself (every section and
 * anchor is one of its numbered headings, and every numbered heading has an entry).
 */
import type { SpecRef } from '../engine/result.js';
import { markdownHeadings } from './anchors.js';
import type { SpecDoc, TraceMap } from './types.js';
import { PROTOCOL_LINES, type ProtocolLine } from '../protocol/lines.js';

/** A check as the maps see it: its id, its spec reference and the protocol lines it is judged at (absent: every line). */
export interface TracedCheck {
  id: string;
  spec: SpecRef;
  lines?: readonly string[];
}

/**
 * Checks judged under a target where none of the rules they test exists: a check's lines (every
 * line when it names none) must be lines of at least one of its rules (harness/core/protocol/lines.ts),
 * so no check fails an agent of a line on a rule of another.
 */
export function checkLineProblems(maps: readonly TraceMap[], checks: readonly TracedCheck[]): string[] {
  const rulesOf = new Map<string, { id: string; lines?: readonly string[] }[]>();
  for (const map of maps) for (const r of map.rules) for (const id of r.checks ?? []) rulesOf.set(id, [...(rulesOf.get(id) ?? []), r]);
  const problems: string[] = [];
  for (const c of checks) {
    const rules = rulesOf.get(c.id) ?? [];
    if (rules.length === 0) continue;
    const covered = new Set(rules.flatMap((r) => r.lines ?? PROTOCOL_LINES));
    const orphan = (c.lines ?? PROTOCOL_LINES).filter((l) => !covered.has(l as ProtocolLine));
    if (orphan.length)
      problems.push(
        `check ${c.id} is judged at ${orphan.join(', ')}, where none of its rules exists (${rules.map((r) => `${r.id}: ${r.lines ? r.lines.join(', ') || 'no 3.x line' : 'every line'}`).join('; ')}): give it lines`,
      );
  }
  return problems;
}

/** Mapped check ids that no suite defines, and checks that no rule names. */
export function checkCoverageProblems(maps: readonly TraceMap[], checks: readonly TracedCheck[]): string[] {
  const known = new Set(checks.map((c) => c.id));
  const mapped = new Set<string>();
  const problems: string[] = [];
  for (const map of maps) {
    for (const r of map.rules) {
      for (const id of r.checks ?? []) {
        mapped.add(id);
        if (!known.has(id)) problems.push(`${map.source}: rule ${r.id}: no check ${id} exists`);
      }
    }
  }
  for (const c of checks) if (!mapped.has(c.id)) problems.push(`check ${c.id} is in no rule of the traceability maps`);
  return problems;
}

/** The anchor each section of a map gives (every entry of one section gives the same one). */
function sectionAnchors(map: TraceMap): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of [...map.rules, ...map.no_rules]) out.set(e.section, e.anchor);
  return out;
}

/** Checks whose spec reference has no anchor, or one other than the map's anchor for its section. */
export function checkAnchorProblems(maps: readonly TraceMap[], checks: readonly TracedCheck[]): string[] {
  const byDoc = new Map<SpecDoc, Map<string, string>>(maps.map((m) => [m.doc, sectionAnchors(m)]));
  const problems: string[] = [];
  for (const c of checks) {
    const { doc, section, anchor } = c.spec;
    const expected = byDoc.get(doc)?.get(section);
    if (expected === undefined) problems.push(`check ${c.id}: ${doc} §${section} is no section of the ${doc} map`);
    else if (anchor === undefined) problems.push(`check ${c.id}: spec has no anchor (expected ${expected})`);
    else if (anchor !== expected) problems.push(`check ${c.id}: spec anchor ${anchor} is not the anchor of ${doc} §${section} (${expected})`);
  }
  return problems;
}

/** Sections and anchors the document does not have, and numbered headings the map leaves out. */
export function documentProblems(map: TraceMap, markdown: string): string[] {
  const headings = new Map<string, string>();
  for (const h of markdownHeadings(markdown)) if (h.section !== undefined) headings.set(h.section, h.anchor);
  const mapped = sectionAnchors(map);
  const problems: string[] = [];
  for (const [section, anchor] of mapped) {
    const actual = headings.get(section);
    if (actual === undefined) problems.push(`${map.source}: section ${section} is no numbered heading of the ${map.doc}`);
    else if (actual !== anchor) problems.push(`${map.source}: section ${section}: anchor ${anchor} is not the heading's anchor ${actual}`);
  }
  for (const [section, anchor] of headings) {
    if (!mapped.has(section))
      problems.push(`${map.source}: section ${section} (#${anchor}) of the ${map.doc} has no entry (map its rules, or list it under no_rules)`);
  }
  return problems;
}
