/**
 * Entry point of reports/: write the chosen renderings of one RunResult. The agent-compliance
 * JSON is written first and validated; an invalid run is a harness bug and throws before any
 * other report is written. The runner output contract's document (`runner-output`) renders
 * storyboard runs only, so it is not among the default formats.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunResult } from '../harness/core/engine/result.js';
import { ALLURE_DIR, writeAllureResults } from './allure.js';
import { writeHtml } from './html.js';
import { writeAgentComplianceJson } from './json.js';
import { writeJUnit } from './junit.js';
import { writeRunnerOutput } from './runner-output.js';

export const REPORT_FORMATS = ['json', 'junit', 'html', 'allure', 'runner-output'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
/** Written when no formats are named: every format but `runner-output`. */
export const DEFAULT_REPORT_FORMATS: readonly ReportFormat[] = ['json', 'junit', 'html', 'allure'];

export interface WriteReportsOptions {
  /** Output directory (created if needed). */
  dir: string;
  /** Default: DEFAULT_REPORT_FORMATS. */
  formats?: readonly ReportFormat[];
  /** Allure results directory. Default `<dir>/allure-results`. */
  allureDir?: string;
}

/**
 * Writes the reports and returns the paths written, in format order (json, junit, html,
 * allure, runner-output); for Allure the path is its results directory.
 */
export async function writeReports(run: RunResult, options: WriteReportsOptions): Promise<string[]> {
  const formats = options.formats ?? DEFAULT_REPORT_FORMATS;
  for (const f of formats) {
    if (!(REPORT_FORMATS as readonly string[]).includes(f)) {
      throw new Error(`unknown report format ${JSON.stringify(f)}; expected one of ${REPORT_FORMATS.join(', ')}`);
    }
  }
  await mkdir(options.dir, { recursive: true });
  const written: string[] = [];
  if (formats.includes('json')) written.push(await writeAgentComplianceJson(run, options.dir));
  if (formats.includes('junit')) written.push(await writeJUnit(run, options.dir));
  if (formats.includes('html')) written.push(await writeHtml(run, options.dir));
  if (formats.includes('allure')) {
    const allureDir = options.allureDir ?? join(options.dir, ALLURE_DIR);
    await writeAllureResults(run, allureDir);
    written.push(allureDir);
  }
  if (formats.includes('runner-output')) written.push(await writeRunnerOutput(run, options.dir));
  return written;
}

export { toComplianceDetail } from './compliance-detail.js';
export type { ComplianceDetail } from './compliance-detail.js';
export { validateAgentCompliance, writeAgentComplianceJson, renderAgentComplianceJson } from './json.js';
export { renderJUnit, writeJUnit } from './junit.js';
export { renderHtml, writeHtml } from './html.js';
export { writeAllureResults } from './allure.js';
export { toRunnerOutput, writeRunnerOutput } from './runner-output.js';
export { createProgress, renderSummary } from './console.js';
