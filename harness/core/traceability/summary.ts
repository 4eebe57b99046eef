/** Counts of a traceability map: rules, tested, untested, and untested by category. */
import { type TraceRule, UNTESTED_CATEGORIES, type UntestedCategory, untestedCategory } from './types.js';

export interface TraceSummary {
  rules: number;
  tested: number;
  untested: number;
  /** Untested rules per category, in the categories' order; categories with none are left out. */
  by_category: Partial<Record<UntestedCategory, number>>;
}

export function summarizeRules(rules: readonly TraceRule[]): TraceSummary {
  const counts = new Map<UntestedCategory, number>();
  for (const r of rules) {
    const c = r.untested === undefined ? undefined : untestedCategory(r.untested);
    if (c) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  const by_category: Partial<Record<UntestedCategory, number>> = {};
  for (const c of Object.keys(UNTESTED_CATEGORIES) as UntestedCategory[]) if (counts.has(c)) by_category[c] = counts.get(c);
  const tested = rules.filter((r) => r.checks !== undefined).length;
  return { rules: rules.length, tested, untested: rules.length - tested, by_category };
}

/** `interface-spec: 120 rules, 70 tested, 50 untested (no check yet 20, registry face 12, …)` */
export function summaryLine(doc: string, s: TraceSummary): string {
  const cats = Object.entries(s.by_category).map(([c, n]) => `${c} ${n}`);
  return `${doc}: ${s.rules} rules, ${s.tested} tested, ${s.untested} untested${cats.length ? ` (${cats.join(', ')})` : ''}`;
}
