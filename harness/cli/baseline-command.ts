/** `proto-comply baseline --from REPORT [--out FILE]`: an expected-failures baseline from a run. */
import { parseArgs } from 'node:util';
import { writeFile } from 'node:fs/promises';
import { renderBaseline } from '../baseline/file.js';
import { baselineFromRun } from '../baseline/from-report.js';
import { readComplianceReport } from './read-report.js';
import { BASELINE_HELP, UsageError } from './usage.js';

export const DEFAULT_BASELINE_FILE = 'proto-comply.baseline.yaml';

const OPTIONS = {
  from: { type: 'string' },
  out: { type: 'string', default: DEFAULT_BASELINE_FILE },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function oneLine(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
}

export async function baselineCommand(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (e) {
    throw new UsageError(`baseline: ${(e as Error).message.split('\n')[0]}`);
  }
  if (values.help) {
    process.stdout.write(`${BASELINE_HELP}\n`);
    return 0;
  }
  if (!values.from) throw new UsageError('baseline: --from REPORT is required (e.g. compliance-report/agent-compliance.json)');
  const run = await readComplianceReport(values.from, 'baseline');
  if (run.overall_status === 'unreachable' || run.overall_status === 'auth_required') {
    throw new UsageError(`baseline: --from ${values.from}: the run did not reach the agent (${run.overall_status}); nothing to baseline`);
  }
  const entries = baselineFromRun(run);
  const comment = [
    'proto-comply expected-failures baseline: failures listed here do not fail `proto-comply run --baseline FILE`;',
    'an entry whose check passes again fails the run as stale, so remove fixed entries. Edit the reasons.',
    oneLine(`From ${values.from}: agent ${run.agent_url}, seed ${run.seed}, finished ${run.finished_at}${run.selection.strict ? ', strict' : ''}.`),
  ].join('\n');
  const text = renderBaseline(entries, comment);
  if (values.out === '-') {
    process.stdout.write(text);
  } else {
    await writeFile(values.out, text, 'utf8');
    process.stderr.write(`proto-comply: wrote ${entries.length} expected failure${entries.length === 1 ? '' : 's'} to ${values.out}\n`);
  }
  return 0;
}
