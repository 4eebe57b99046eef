/**
 * The side-by-side table of one agent: a row per storyboard step (storyboard-verdicts.ts), the
 * reference runner's verdict (MCP), ours per transport, whether they agree, and for every
 * disagreement its reason from the committed storyboard-reasons.yaml. Agreement (docs/interop.md):
 * the two verdicts have the same class; a step the reference runner does not report is not
 * compared. A storyboard that every column finds not applicable is one row.
 */
import { readFileSync } from 'node:fs';
import { load as loadYaml } from 'js-yaml';
import type { StoryboardBundle } from '../../../harness/core/storyboards/model.js';
import { bundleRows, type Verdict } from './storyboard-verdicts.js';

/** Why the two runners disagree on a step. */
export const REASON_CLASSES = {
  'ours-wrong': 'our verdict is wrong',
  'ours-not-yet': 'not implemented yet on our side: a coverage gap, or a step left unverified by one',
  'theirs-wrong': "the reference runner's verdict is wrong",
  'outcome-model': 'the runners record the same outcome differently; neither is wrong',
  'different-input': 'the runners sent the agent different requests, or met it in a different state; each judged its own call',
} as const;
export type ReasonClass = keyof typeof REASON_CLASSES;

export interface Reason {
  class: ReasonClass;
  why: string;
  /** The agents (interop ids) it is written for; every agent when absent. */
  agents?: string[];
}

/** `<storyboard>/<step>` (the storyboard `*` for any storyboard) → its reasons (one, or one per group of agents). */
export type Reasons = Map<string, Reason[]>;

/** Reads storyboard-reasons.yaml (keys starting with `_` only define anchors); throws naming an entry without a known class or a sentence. */
export function loadReasons(path: string): Reasons {
  const doc = (loadYaml(readFileSync(path, 'utf8')) ?? {}) as Record<string, unknown>;
  const reasons: Reasons = new Map();
  for (const [key, value] of Object.entries(doc)) {
    if (key.startsWith('_')) continue; // a definition other entries refer to (YAML anchor)
    const list = (Array.isArray(value) ? value : [value]) as Array<Partial<Reason>>;
    for (const r of list)
      if (!r || !(r.class && r.class in REASON_CLASSES) || typeof r.why !== 'string' || !r.why.trim())
        throw new Error(`${path}: ${key}: each reason needs a class (${Object.keys(REASON_CLASSES).join(', ')}) and a why`);
    reasons.set(key, list as Reason[]);
  }
  return reasons;
}

/** Which reason explains `<storyboard>/<step>` on an agent (its key and place in the key's list): the key's own, else the step's in any storyboard (storyboard `*`). */
export function reasonRef(reasons: Reasons, key: string, agent: string): { key: string; index: number } | undefined {
  for (const k of [key, `*/${key.slice(key.lastIndexOf('/') + 1)}`]) {
    const index = reasons.get(k)?.findIndex((r) => !r.agents || r.agents.includes(agent)) ?? -1;
    if (index >= 0) return { key: k, index };
  }
  return undefined;
}

export function reasonFor(reasons: Reasons, key: string, agent: string): Reason | undefined {
  const ref = reasonRef(reasons, key, agent);
  return ref && reasons.get(ref.key)?.[ref.index];
}

export interface TableRow {
  key: string;
  storyboard: string;
  /** A step id, or `(all N steps)` for a storyboard no column applies. */
  step: string;
  reference: Verdict;
  ours: Verdict[];
  /** `yes`, `no`, `no (<transport>)` when one transport disagrees, `—` when not compared. */
  agree: string;
  reason?: Reason;
}

const ABSENT: Verdict = { shown: '—', cls: 'not_applicable' };

function agreement(ref: Verdict, ours: Verdict[], transports: string[]): string {
  if (ref.cls === 'unreported') return '—';
  const differ = transports.filter((_, i) => ours[i].cls !== ref.cls);
  if (differ.length === 0) return 'yes';
  return differ.length === transports.length ? 'no' : `no (${differ.join(', ')})`;
}

export interface SideBySide {
  agent: string;
  bundle: StoryboardBundle;
  reference: Map<string, Verdict>;
  /** Our verdicts per transport, in column order. */
  ours: Array<{ transport: string; verdicts: Map<string, Verdict> }>;
  reasons: Reasons;
}

export function tableRowsOf(s: SideBySide): TableRow[] {
  const transports = s.ours.map((o) => o.transport);
  const rows: TableRow[] = [];
  const byStoryboard = new Map<string, TableRow[]>();
  for (const r of bundleRows(s.bundle)) {
    const reference = s.reference.get(r.key) ?? ABSENT;
    const ours = s.ours.map((o) => o.verdicts.get(r.key) ?? ABSENT);
    const agree = agreement(reference, ours, transports);
    const row: TableRow = { key: r.key, storyboard: r.storyboard, step: r.step, reference, ours, agree };
    if (agree.startsWith('no')) row.reason = reasonFor(s.reasons, r.key, s.agent);
    const list = byStoryboard.get(r.storyboard) ?? [];
    if (list.length === 0) byStoryboard.set(r.storyboard, list);
    list.push(row);
  }
  for (const [storyboard, list] of byStoryboard) {
    const inapplicable = list.every((r) => r.reference.cls === 'not_applicable' && r.ours.every((v) => v.cls === 'not_applicable'));
    if (!inapplicable) {
      rows.push(...list);
      continue;
    }
    const shown = (pick: (r: TableRow) => Verdict) => ({ shown: [...new Set(list.map((r) => pick(r).shown))].join(', '), cls: 'not_applicable' as const });
    rows.push({
      key: `${storyboard}/*`,
      storyboard,
      step: `(all ${list.length} steps)`,
      reference: shown((r) => r.reference),
      ours: transports.map((_, i) => shown((r) => r.ours[i])),
      agree: 'yes',
    });
  }
  return rows;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');

/** The disagreements of a table that have no reason. */
export const unexplained = (rows: TableRow[]) => rows.filter((r) => r.agree.startsWith('no') && !r.reason);

/** The generated block: a count line, then the table. */
export function renderStoryboardTable(s: SideBySide): string {
  const rows = tableRowsOf(s);
  const transports = s.ours.map((o) => o.transport.toUpperCase());
  const disagree = rows.filter((r) => r.agree.startsWith('no'));
  const byClass = Object.keys(REASON_CLASSES)
    .map((c) => [c, disagree.filter((r) => r.reason?.class === c).length] as const)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${c} ${n}`);
  const missing = unexplained(rows).length;
  const counts = [
    `${rows.length} rows: ${rows.filter((r) => r.agree === 'yes').length} agree, ${disagree.length} disagree`,
    byClass.length || missing ? ` (${[...byClass, ...(missing ? [`no reason yet ${missing}`] : [])].join(', ')})` : '',
    `, ${rows.filter((r) => r.agree === '—').length} not compared.`,
  ].join('');
  const head = ['Storyboard', 'Step', 'Reference (MCP)', ...transports.map((t) => `Ours (${t})`), 'Agree', 'Reason'];
  const lines = [counts, '', `| ${head.join(' | ')} |`, `|${head.map(() => '---|').join('')}`];
  for (const r of rows) {
    const reason = r.reason ? `${r.reason.class}: ${r.reason.why}` : r.agree.startsWith('no') ? '**no reason recorded**' : '';
    lines.push(`| ${[r.storyboard, r.step, r.reference.shown, ...r.ours.map((v) => v.shown), r.agree, reason].map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
}
