/**
 * sync_creatives with `dry_run: true` (released sync-creatives-request.json, 3.0 onwards): the
 * request is validated as a real sync would be, and the answer says what would have happened
 * (`dry_run: true`, per creative the would-be action, packages and assignment errors), but no
 * creative, assignment or buy is written. A validation-only call leaves every media buy's revision
 * where it was (3.1 specification, revision and confirmation semantics; digest 4.5).
 */
import { invalidRequest } from '../errors.js';
import { isTerminal } from '../media-buy-record.js';
import type { SellerServices } from '../services.js';

interface CreativeIn {
  creative_id: string;
  format_id: { id: string };
  [k: string]: unknown;
}
interface AssignmentIn {
  creative_id: string;
  package_id: string;
}

/** The success payload of a rehearsed sync: nothing stored. */
export function rehearseCreativeSync(
  s: SellerServices,
  args: { creatives: CreativeIn[]; assignments?: AssignmentIn[] },
  principal: string,
  accountKey: string,
): Record<string, unknown> {
  const creatives = args.creatives.map((c, i) => {
    if (!s.catalog.format(c.format_id.id) && !s.faults.has('sync-creatives-unknown-format-accepted'))
      throw invalidRequest(`creatives[${i}].format_id.id`, `unknown format ${JSON.stringify(c.format_id.id)}`);
    const existing = s.records.get<unknown>('creative', principal, c.creative_id);
    const next = { ...c, account_key: accountKey };
    const action = existing === undefined ? 'created' : JSON.stringify(existing) === JSON.stringify(next) ? 'unchanged' : 'updated';
    return { creative_id: c.creative_id, action };
  });
  if (!args.assignments) return { dry_run: true, creatives };
  const sent = new Set(args.creatives.map((c) => c.creative_id));
  const buys = s.mediaBuys.list(principal, accountKey);
  const results = new Map<string, { assigned_to: string[]; assignment_errors: Record<string, string> }>();
  for (const [i, a] of args.assignments.entries()) {
    if (!sent.has(a.creative_id) && s.records.get<unknown>('creative', principal, a.creative_id) === undefined)
      throw invalidRequest(`assignments[${i}].creative_id`, `unknown creative ${JSON.stringify(a.creative_id)}`);
    const result = results.get(a.creative_id) ?? { assigned_to: [], assignment_errors: {} };
    results.set(a.creative_id, result);
    const buy = buys.find((b) => b.packages.some((p) => p.package_id === a.package_id));
    if (!buy || isTerminal(buy.status)) {
      result.assignment_errors[a.package_id] = buy ? 'the media buy is no longer open' : 'no such package in this account';
      continue;
    }
    // Fault revision-incremented-on-validation-only: the rehearsal bumps the buy's revision.
    if (s.faults.has('revision-incremented-on-validation-only')) {
      buy.revision += 1;
      s.mediaBuys.save(buy);
    }
    result.assigned_to.push(a.package_id);
  }
  const shown = creatives.map((c) => {
    const r = results.get(c.creative_id);
    if (!r) return c;
    return { ...c, assigned_to: r.assigned_to, ...(Object.keys(r.assignment_errors).length ? { assignment_errors: r.assignment_errors } : {}) };
  });
  return { dry_run: true, creatives: shown };
}
