/** `proto-comply diff BEFORE.json AFTER.json [--format text|json|md]`: what changed between two runs. */
import { parseArgs } from 'node:util';
import { diffRuns } from '../core/engine/run-diff.js';
import { renderDiffJson, renderDiffMarkdown, renderDiffText } from '../../reports/run-diff.js';
import { oneLine } from '../../reports/text.js';
import { readComplianceReport } from './read-report.js';
import { DIFF_HELP, UsageError } from './usage.js';

const OPTIONS = {
  format: { type: 'string', default: 'text' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const FORMATS = ['text', 'json', 'md'] as const;

/** Exit 1 when a check regressed, 0 otherwise; usage errors (exit 2) are thrown. */
export async function diffCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`diff: ${oneLine((e as Error).message.split('\n')[0], 300)}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${DIFF_HELP}\n`);
    return 0;
  }
  const format = values.format as (typeof FORMATS)[number];
  if (!FORMATS.includes(format)) throw new UsageError(`diff: --format must be text, json or md, got ${oneLine(JSON.stringify(values.format), 60)}`);
  if (positionals.length !== 2) {
    throw new UsageError(`diff: expected two reports, BEFORE.json AFTER.json (got ${positionals.length}); see "proto-comply diff --help"`);
  }
  const [beforeFile, afterFile] = positionals;
  const before = await readComplianceReport(beforeFile, 'diff', `before ${oneLine(beforeFile, 200)}`);
  const after = await readComplianceReport(afterFile, 'diff', `after ${oneLine(afterFile, 200)}`);
  const input = { before: { file: beforeFile, run: before }, after: { file: afterFile, run: after }, diff: diffRuns(before, after) };
  const text = format === 'json' ? renderDiffJson(input) : format === 'md' ? renderDiffMarkdown(input) : renderDiffText(input);
  process.stdout.write(text);
  return input.diff.regressed.length > 0 ? 1 : 0;
}
