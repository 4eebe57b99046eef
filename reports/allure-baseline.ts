/**
 * Allure results for the entries of an expected-failures baseline: one per entry, in suite
 * `baseline`. An entry still excusing a failure passes, a stale one (its check no longer fails,
 * which fails the run) fails, an unused one is skipped. The vitest entry point reports its
 * baseline entries through the same functions, so both paths show the same tests.
 */
import { createHash } from 'node:crypto';
import type { Label, Status, StatusDetails } from 'allure-js-commons';
import type { BaselineEntryResult, RunResult } from '../harness/core/engine/result.js';
import type { AllureIdentity } from './allure-identity.js';
import { sanitizeText } from './text.js';

export const BASELINE_SUITE = 'baseline';

function hex(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const p of parts) hash.update(p).update('\u0000');
  return hash.digest('hex').slice(0, 32);
}

export type BaselineEntryRef = Pick<BaselineEntryResult, 'check_id' | 'transport' | 'reason'>;

function target(entry: BaselineEntryRef): string {
  return `${entry.check_id}${entry.transport ? ` [${entry.transport}]` : ''}`;
}

export function baselineEntryIdentity(run: Pick<RunResult, 'agent_url' | 'harness'>, entry: BaselineEntryRef): AllureIdentity {
  const labels: Label[] = [
    { name: 'parentSuite', value: sanitizeText(run.agent_url) },
    { name: 'suite', value: BASELINE_SUITE },
    { name: 'check_id', value: entry.check_id },
    { name: 'framework', value: run.harness.name },
  ];
  if (entry.transport) labels.push({ name: 'transport', value: entry.transport });
  return {
    name: sanitizeText(`baseline entry: ${target(entry)}`),
    fullName: `${BASELINE_SUITE}.${entry.check_id}[${entry.transport ?? 'all'}]`,
    historyId: hex('history', BASELINE_SUITE, entry.check_id, entry.transport ?? '*'),
    testCaseId: hex('case', BASELINE_SUITE, entry.check_id, entry.transport ?? '*'),
    description: sanitizeText(`reason: ${entry.reason}`),
    parameters: entry.transport ? [{ name: 'transport', value: entry.transport }] : [],
    labels,
  };
}

export function baselineEntryStatus(entry: Pick<BaselineEntryResult, 'status'>): Status {
  return (entry.status === 'expected' ? 'passed' : entry.status === 'stale' ? 'failed' : 'skipped') as Status;
}

export function baselineEntryMessage(file: string, entry: BaselineEntryResult): string {
  switch (entry.status) {
    case 'expected':
      return sanitizeText(`still fails as expected (${entry.matched} result(s) excused): ${entry.reason}`);
    case 'stale':
      return sanitizeText(`stale baseline entry: ${target(entry)} no longer fails; remove it from ${file} (reason was: ${entry.reason})`);
    case 'unused':
      return sanitizeText(`unused: ${target(entry)} was not run`);
  }
}

export function baselineEntryDetails(file: string, entry: BaselineEntryResult): StatusDetails {
  return { message: baselineEntryMessage(file, entry) };
}
