/**
 * Entry point of reports/: write the chosen renderings of one RunResult. The agent-compliance
 * JSON is written first and validated; an invalid run is a harness bug and throws before any
 * other report is written.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunResult } from '../harness/core/engine/result.js';
import { ALLURE_DIR, writeAllureResults } from './allure.js';
import { writeHtml } from './html.js';
import { writeAgentComplianceJson } from './json.js';
import { writeJUnit } from './junit.js';

export const REPORT_FORMATS = ['json', 'junit', 'html', 'allure'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface WriteReportsOptions {
  /** Output directory (created if needed). */
  dir: string;
  /** Default: all formats. */
  formats?: readonly ReportFormat[];
  /** Allure results directory. Default `<dir>/allure-results`. */
  allureDir?: string;
}

/**
 * Writes the reports and returns the paths written, in format order (json, junit, html,
 * allure); for Allure the path is its results directory.
 */
export async function writeReports(run: RunResult, options: WriteReportsOptions): Promise<string[]> {
  const formats = options.formats ?? REPORT_FORMATS;
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
  return written;
}

export { toComplianceDetail } from './compliance-detail.js';
export type { ComplianceDetail } from './compliance-detail.js';
export { validateAgentCompliance, writeAgentComplianceJson, renderAgentComplianceJson } from './json.js';
export { renderJUnit, writeJUnit } from './junit.js';
export { renderHtml, writeHtml } from './html.js';
export { writeAllureResults } from './allure.js';
export { createProgress, renderSummary } from './console.js';
