/**
 * One defect, one root: every failing result (fail, warn, info) and every blocked one names the
 * check whose failure is the first of the same defect on its transport (`root_cause`).
 * - A failing check is its own root, unless a check it `rests_on` failed on the same transport:
 *   then the two are one defect seen through two rules, rooted where that one is.
 * - A blocked check's root is the root of the check that blocked it (or that check itself, e.g.
 *   `transport.mcp` or a check that broke with a harness error).
 * Reports group failures by it, so a defect that trips several rules reads as one defect.
 */
import type { CheckDef, SuiteDef } from './model.js';
import type { CheckResult } from './result.js';

const FAILING = new Set(['fail', 'warn', 'info']);

/** `checks` with `root_cause` set on every failing and blocked result (a new array; the others are unchanged). */
export function withRootCauses(checks: readonly CheckResult[], suites: readonly SuiteDef[]): CheckResult[] {
  const defs = new Map<string, CheckDef>(suites.flatMap((s) => s.checks.map((c) => [c.id, c] as const)));
  const byKey = new Map<string, CheckResult>(checks.map((c) => [`${c.check_id}\0${c.transport}`, c]));
  const roots = new Map<string, string>();

  const rootOf = (checkId: string, transport: string, seen: Set<string>): string => {
    const key = `${checkId}\0${transport}`;
    const known = roots.get(key);
    if (known) return known;
    const r = byKey.get(key);
    let root = checkId;
    if (r && !seen.has(checkId)) {
      seen.add(checkId);
      if (r.outcome === 'blocked' && r.blocked_by) root = rootOf(r.blocked_by, transport, seen);
      else if (FAILING.has(r.outcome)) {
        for (const other of defs.get(checkId)?.rests_on ?? []) {
          const o = byKey.get(`${other}\0${transport}`);
          if (o && FAILING.has(o.outcome)) {
            root = rootOf(other, transport, seen);
            break;
          }
        }
      }
    }
    roots.set(key, root);
    return root;
  };

  return checks.map((c) => (c.outcome === 'blocked' || FAILING.has(c.outcome) ? { ...c, root_cause: rootOf(c.check_id, c.transport, new Set()) } : c));
}
