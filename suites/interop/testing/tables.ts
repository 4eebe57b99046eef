/**
 * The interop tables: every result of a run that is not a pass or not applicable, as one Markdown
 * row with its transport, check, outcome, root cause, reason and spec line, generated from the
 * report itself. A table lives in a committed file between `<!-- table: NAME -->` and
 * `<!-- end table -->`; the interop test regenerates it from a fresh run and compares it whole, so
 * a verdict, a root cause or a reason that drifts fails the test (`UPDATE_INTEROP_TABLES=1` writes
 * the new table for review instead).
 */
import type { CheckResult, RunResult } from '../../../harness/core/engine/result.js';
import { specRefText } from '../../../reports/text.js';

export const TABLE_HEAD = ['| Transport | Check | Outcome | Root cause | Reason | Spec |', '|---|---|---|---|---|---|'];

/**
 * A reason without what changes from run to run: ids and keys the agent or the run made up (UUIDs,
 * hex and digit runs), timestamps, durations and fuzz replay paths. What remains is the verdict's
 * own text.
 */
export function stableReason(message: string): string {
  return (
    message
      .replace(/\b\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:\d{2})?/g, '<time>')
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
      .replace(/\b\d+(?:\.\d+)? ?ms\b/g, '<n> ms')
      .replace(/path [\d:]+/g, 'path <path>')
      // How many more problems a long answer had (a shared account's listing grows with the run), and
      // a value cut at its length limit (cut where masked ids would have ended elsewhere).
      .replace(/\(\+\d+ more\)/g, '(+<n> more)')
      // How many distinct resources concurrent copies made (the race decides, above one it fails all the same).
      .replace(/replies carry \d+ distinct/g, 'replies carry <n> distinct')
      .replace(/[,{[][^,{[]*…/g, (m) => `${m[0]}…`)
      .replace(/[A-Za-z0-9_.-]*\d[A-Za-z0-9_.:-]*/g, (token) => (VOLATILE(token) ? '<id>' : token))
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** A token the agent or the run made up: four digits or more (ids, budgets, ports, epoch times), or a long hex run with a digit. */
function VOLATILE(token: string): boolean {
  if (token === 'ed25519') return false;
  return (token.match(/\d/g) ?? []).length >= 4 || /(?=[0-9a-f]*\d)[0-9a-f]{8,}/i.test(token);
}

function cell(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ');
}

function spec(c: CheckResult): string {
  return specRefText(c.spec_ref);
}

/** The rows of a run: every result that is neither a pass nor not applicable, by check then transport. */
export function tableRows(run: Pick<RunResult, 'checks'>): string[] {
  return run.checks
    .filter((c) => c.outcome !== 'pass' && c.outcome !== 'not_applicable')
    .sort((a, b) => (a.check_id < b.check_id ? -1 : a.check_id > b.check_id ? 1 : a.transport < b.transport ? -1 : a.transport > b.transport ? 1 : 0))
    .map((c) => {
      const root = c.root_cause && c.root_cause !== c.check_id ? `\`${c.root_cause}\`` : '';
      return `| ${c.transport} | \`${c.check_id}\` | ${c.outcome} | ${root} | ${cell(stableReason(c.message))} | ${cell(spec(c))} |`;
    });
}

/** The whole table text of a run (head and rows). */
export function renderTable(run: Pick<RunResult, 'checks'>): string {
  const rows = tableRows(run);
  return [...TABLE_HEAD, ...(rows.length ? rows : ['| | (none) | | | | |'])].join('\n');
}

/**
 * Checks whose verdict on one agent depends on timing the run does not control: whether one of the
 * concurrent copies of a request meets its key still in flight (a seller answering those copies
 * wrongly fails only when one does). Their rows are compared when the run and the table both have
 * them, and may be missing from either.
 */
export const TIMING_DEPENDENT: ReadonlySet<string> = new Set(['idempotency.concurrent.in-flight-answer', 'idempotency.concurrent.changed-payload-conflict']);

const rowCheck = (row: string): string | undefined => /^\| [^|]* \| `([^`]+)`/.exec(row)?.[1];
const rowKey = (row: string): string => row.split(' | ').slice(0, 2).join(' | ');

/** How a run's table differs from the committed one: rows missing or extra, timing-dependent rows compared only when both have them. */
export function tableDifferences(actual: string, committed: string): { missing: string[]; extra: string[] } {
  const rows = (t: string) => t.split('\n').filter((r) => !TABLE_HEAD.includes(r) && r !== '| | (none) | | | | |');
  const a = rows(actual);
  const c = rows(committed);
  const timing = (r: string) => TIMING_DEPENDENT.has(rowCheck(r) ?? '');
  const bothHave = (r: string, other: string[]) => other.some((o) => rowKey(o) === rowKey(r));
  const counted = (r: string, other: string[]) => !timing(r) || bothHave(r, other);
  return {
    missing: c.filter((r) => counted(r, a) && !a.includes(r)),
    extra: a.filter((r) => counted(r, c) && !c.includes(r)),
  };
}

const START = (name: string) => `<!-- table: ${name} -->`;
const END = '<!-- end table -->';

/** The table named `name` in a document, or undefined when the document has none. */
export function tableIn(doc: string, name: string): string | undefined {
  const start = doc.indexOf(START(name));
  if (start < 0) return undefined;
  const end = doc.indexOf(END, start);
  if (end < 0) return undefined;
  return doc.slice(start + START(name).length, end).trim();
}

/** The document with the table named `name` replaced (appended under a heading when it is not there yet). */
export function withTable(doc: string, name: string, heading: string, table: string): string {
  const block = `${START(name)}\n${table}\n${END}`;
  const start = doc.indexOf(START(name));
  if (start < 0) return `${doc.trimEnd()}\n\n${heading}\n\n${block}\n`;
  const end = doc.indexOf(END, start);
  return `${doc.slice(0, start)}${block}${doc.slice(end + END.length)}`;
}
