/** `proto-comply summary --from REPORT [--format md|text]`: re-render a run's summary. */
import { parseArgs } from 'node:util';
import { renderSummary } from '../../reports/console.js';
import { renderMarkdownSummary } from '../../reports/markdown.js';
import { readComplianceReport } from './read-report.js';
import { SUMMARY_HELP, UsageError } from './usage.js';

const OPTIONS = {
  from: { type: 'string' },
  format: { type: 'string', default: 'md' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function summaryCommand(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (e) {
    throw new UsageError(`summary: ${(e as Error).message.split('\n')[0]}`);
  }
  if (values.help) {
    process.stdout.write(`${SUMMARY_HELP}\n`);
    return 0;
  }
  if (values.format !== 'md' && values.format !== 'text') throw new UsageError(`summary: --format must be md or text, got ${JSON.stringify(values.format)}`);
  if (!values.from) throw new UsageError('summary: --from REPORT is required (e.g. compliance-report/agent-compliance.json)');
  const run = await readComplianceReport(values.from, 'summary');
  process.stdout.write(values.format === 'md' ? renderMarkdownSummary(run) : `${renderSummary(run)}\n`);
  return 0;
}
