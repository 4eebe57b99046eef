/** Reading a finished run back from its agent-compliance.json (for `baseline` and `summary`). */
import { readFile, stat } from 'node:fs/promises';
import type { RunResult } from '../core/engine/result.js';
import { validateAgentCompliance } from '../../reports/json.js';
import { UsageError } from './usage.js';

/** Reports of very large runs stay far below this. */
const MAX_REPORT_BYTES = 256 * 1024 * 1024;

/** Reads and validates the report; every problem is a one-line UsageError naming `command`. */
export async function readComplianceReport(path: string, command: string): Promise<RunResult> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UsageError(`${command}: --from ${path}: not a file`);
    if (info.size > MAX_REPORT_BYTES) throw new UsageError(`${command}: --from ${path}: larger than ${MAX_REPORT_BYTES} bytes`);
    text = await readFile(path, 'utf8');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`${command}: --from ${path}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${command}: --from ${path}: not JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  const check = validateAgentCompliance(doc);
  if (!check.valid) throw new UsageError(`${command}: --from ${path}: not a valid agent-compliance report: ${check.errors[0]}`);
  const { compliance_detail: _detail, ...run } = doc as RunResult & { compliance_detail: unknown };
  return run;
}
