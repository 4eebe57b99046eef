/** Reading a finished run back from its agent-compliance.json (for `baseline` and `summary`). */
import { readFile, stat } from 'node:fs/promises';
import type { RunResult } from '../core/engine/result.js';
import { validateAgentCompliance } from '../../reports/json.js';
import { UsageError } from './usage.js';
import { oneLine } from '../../reports/text.js';

/** A usage error whose text is one inert line: JSON.parse and the validator quote the file. */
function problem(text: string): UsageError {
  return new UsageError(oneLine(text, 600));
}

/** Reports of very large runs stay far below this. */
const MAX_REPORT_BYTES = 256 * 1024 * 1024;

/**
 * Reads and validates the report; every problem is a one-line UsageError naming `command` and
 * the report as `label` (default `--from PATH`; `diff` names its positional arguments).
 */
export async function readComplianceReport(path: string, command: string, label = `--from ${path}`): Promise<RunResult> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw problem(`${command}: ${label}: not a file`);
    if (info.size > MAX_REPORT_BYTES) throw problem(`${command}: ${label}: larger than ${MAX_REPORT_BYTES} bytes`);
    text = await readFile(path, 'utf8');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw problem(`${command}: ${label}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw problem(`${command}: ${label}: not JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  const check = validateAgentCompliance(doc);
  if (!check.valid) throw problem(`${command}: ${label}: not a valid agent-compliance report: ${check.errors[0]}`);
  const { compliance_detail: _detail, ...run } = doc as RunResult & { compliance_detail: unknown };
  return run;
}
