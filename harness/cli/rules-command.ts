/**
 * `proto-comply rules [--untested] [--doc interface-spec|digest] [--json]`: print the
 * traceability maps, each rule with the checks that test it or the reason it is untested, and a
 * summary line per document.
 */
import { describeLines } from '../core/protocol/lines.js';
import { parseArgs } from 'node:util';
import { traceMaps } from '../../suites/index.js';
import { summarizeRules, summaryLine } from '../core/traceability/summary.js';
import { SPEC_DOCS, type SpecDoc, type TraceRule } from '../core/traceability/types.js';
import { RULES_HELP, UsageError } from './usage.js';

const OPTIONS = {
  untested: { type: 'boolean', default: false },
  doc: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function ruleLines(r: TraceRule): string[] {
  const head = `${r.id}  ${r.level}  §${r.section}${r.lines ? `  [${r.lines.length ? describeLines(r.lines) : 'no 3.x line'}]` : ''}  ${r.rule}`;
  return [head, r.checks ? `    checks: ${r.checks.join(', ')}` : `    untested: ${r.untested}`];
}

export async function rulesCommand(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (e) {
    throw new UsageError(`rules: ${(e as Error).message.split('\n')[0]}`);
  }
  if (values.help) {
    process.stdout.write(`${RULES_HELP}\n`);
    return 0;
  }
  if (values.doc !== undefined && !SPEC_DOCS.includes(values.doc as SpecDoc)) {
    throw new UsageError(`rules: --doc must be ${SPEC_DOCS.join(' or ')}, got ${JSON.stringify(values.doc)}`);
  }
  const maps = traceMaps().filter((m) => values.doc === undefined || m.doc === values.doc);
  const shown = (rules: readonly TraceRule[]) => rules.filter((r) => !values.untested || r.untested !== undefined);
  if (values.json) {
    const docs = maps.map((m) => ({ doc: m.doc, summary: summarizeRules(m.rules), rules: shown(m.rules) }));
    process.stdout.write(`${JSON.stringify({ docs }, null, 2)}\n`);
    return 0;
  }
  const lines: string[] = [];
  for (const m of maps) {
    lines.push(`${m.doc}${values.untested ? ' (untested rules only)' : ''}`, '');
    for (const r of shown(m.rules)) lines.push(...ruleLines(r).map((l) => `  ${l}`));
    lines.push('');
  }
  for (const m of maps) lines.push(summaryLine(m.doc, summarizeRules(m.rules)));
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
