/**
 * A baseline from a finished run: one entry per check that fails the run (baselined failures
 * included, so regenerating a baseline keeps what still fails and drops what was fixed). A
 * check failing on every transport it ran on gets one entry without transport; otherwise one
 * entry per failing transport. The reason records when and how it failed, for people to edit.
 */
import { isFailing } from '../core/engine/result.js';
import type { CheckResult, RunResult } from '../core/engine/result.js';
import type { TransportKind } from '../core/transport/types.js';
import type { BaselineEntry } from './file.js';

const MAX_REASON = 200;

/** One line, no control characters, at most MAX_REASON characters. */
function reasonText(s: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = s
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > MAX_REASON ? `${flat.slice(0, MAX_REASON - 1)}…` : flat;
}

export function baselineFromRun(run: Pick<RunResult, 'checks' | 'selection' | 'finished_at'>): BaselineEntry[] {
  const strict = run.selection.strict;
  const day = run.finished_at.slice(0, 10);
  const byCheck = new Map<string, CheckResult[]>();
  for (const c of run.checks) byCheck.set(c.check_id, [...(byCheck.get(c.check_id) ?? []), c]);
  const entries: BaselineEntry[] = [];
  for (const [checkId, results] of byCheck) {
    const failing = results.filter((c) => isFailing(c, strict));
    if (failing.length === 0) continue;
    const ran = results.filter((c) => !c.not_run && c.outcome !== 'not_applicable');
    const reason = (c: CheckResult) => reasonText(`${c.outcome} (${c.level}) on ${day}: ${c.message}`);
    if (failing.length === ran.length && new Set(failing.map((c) => c.message)).size === 1) {
      entries.push({ check_id: checkId, reason: reason(failing[0]) });
    } else if (failing.length === ran.length) {
      entries.push({ check_id: checkId, reason: reasonText(failing.map((c) => `${c.transport}: ${reason(c)}`).join(' | ')) });
    } else {
      for (const c of failing) entries.push({ check_id: checkId, transport: c.transport as TransportKind, reason: reason(c) });
    }
  }
  return entries;
}
