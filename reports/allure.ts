/**
 * Allure 2 results from a RunResult: one `<uuid>-result.json` per check × transport, the
 * evidence as attachments (`<uuid>-attachment.json` per wire exchange, `<uuid>-attachment.txt`
 * with expected/actual/pointer), plus `environment.properties` and `executor.json`.
 *
 * File names are UUIDs derived from (seed, agent URL, check, transport), so a rerun with the
 * same seed overwrites its own files; `historyId` depends on the check and transport only, so
 * Allure's history follows a check across runs. Existing files in the directory are left
 * alone (Allure merges result directories; point each run at its own directory if needed).
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Label, Status, StatusDetails, TestResult } from 'allure-js-commons';
import { isFailing } from '../harness/core/engine/result.js';
import type { BaselineEntryResult, CheckResult, RunResult } from '../harness/core/engine/result.js';
import { baselineEntryDetails, baselineEntryIdentity, baselineEntryStatus } from './allure-baseline.js';
import type { AllureIdentity } from './allure-identity.js';

export type { AllureIdentity };
import type { WireExchange } from '../harness/core/transport/types.js';
import { evidenceText } from './evidence-text.js';
import { writeFileAtomic } from './fs.js';
import { sanitizeText, specRefText, toJsonText } from './text.js';
import { interpretationText, rootCauseNote } from './view.js';

export const ALLURE_DIR = 'allure-results';

function sha256(...parts: string[]): Buffer {
  const hash = createHash('sha256');
  for (const p of parts) hash.update(p).update('\u0000');
  return hash.digest();
}

/** A UUID (version 8, name-based via SHA-256) from the given parts. */
export function stableUuid(...parts: string[]): string {
  const b = sha256(...parts).subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x80;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The Allure status of a check result; the vitest entry point (harness/vitest) maps results
 * to test verdicts through this same function. A result that fails the run (`isFailing`, so
 * SHOULD warnings under --strict too) is failed; a harness error is broken; a failure the
 * baseline expected is skipped, like pytest's xfail and like JUnit; so are checks that were not
 * verified (blocked by another check's failure, coverage gaps), with the reason in the details.
 */
export function allureStatus(check: Pick<CheckResult, 'outcome' | 'level' | 'not_run' | 'baselined'>, strict = false): Status {
  if (isFailing(check, strict)) return (check.baselined ? 'skipped' : 'failed') as Status;
  switch (check.outcome) {
    case 'pass':
    case 'warn':
    case 'info':
      return 'passed' as Status;
    case 'fail':
      return 'failed' as Status;
    case 'error':
      return 'broken' as Status;
    case 'not_applicable':
    case 'blocked':
    case 'gap':
      return 'skipped' as Status;
  }
}

const SEVERITY = { MUST: 'critical', SHOULD: 'normal', MAY: 'minor' } as const;

/** Label names the vitest entry point gets from its describe() path instead. */
export const SUITE_LABELS: ReadonlySet<string> = new Set(['parentSuite', 'suite', 'subSuite']);

export function allureLabels(run: Pick<RunResult, 'agent_url' | 'harness' | 'target'>, check: CheckResult): Label[] {
  const list: Label[] = [
    { name: 'parentSuite', value: sanitizeText(run.agent_url) },
    { name: 'suite', value: check.suite_id },
    { name: 'subSuite', value: check.transport },
    { name: 'tag', value: check.level },
    { name: 'severity', value: SEVERITY[check.level] },
    { name: 'level', value: check.level },
    { name: 'transport', value: check.transport },
    { name: 'spec_ref', value: specRefText(check.spec_ref) },
    { name: 'check_id', value: check.check_id },
    { name: 'outcome', value: check.not_run ? 'not_run' : check.outcome },
    { name: 'framework', value: run.harness.name },
    { name: 'requested_compliance_target', value: run.target.requested_compliance_target },
  ];
  if (check.baselined) list.push({ name: 'baselined', value: 'true' });
  if (check.root_cause) list.push({ name: 'root_cause', value: sanitizeText(check.root_cause) });
  return list;
}

function startOf(run: RunResult, check: CheckResult): number {
  const times = (check.evidence?.exchanges ?? []).map((e) => Date.parse(e.started_at)).filter(Number.isFinite);
  return times.length > 0 ? Math.min(...times) : Date.parse(run.started_at);
}

interface PendingFile {
  name: string;
  content: string;
}

function exchangeName(ex: WireExchange): string {
  return sanitizeText(`exchange #${ex.seq} ${ex.transport} ${ex.purpose}`);
}

export function allureIdentity(run: Pick<RunResult, 'agent_url' | 'harness' | 'target'>, check: CheckResult): AllureIdentity {
  return {
    name: sanitizeText(`${check.check_id}: ${check.title}`),
    fullName: `${check.suite_id}.${check.check_id}[${check.transport}]`,
    historyId: sha256('history', check.suite_id, check.check_id, check.transport).toString('hex').slice(0, 32),
    testCaseId: sha256('case', check.suite_id, check.check_id).toString('hex').slice(0, 32),
    description: sanitizeText(
      [`${check.level} · ${specRefText(check.spec_ref)}`, rootCauseNote(check), interpretationText(check)].filter((x) => x !== undefined).join('\n'),
    ),
    parameters: [{ name: 'transport', value: check.transport }],
    labels: allureLabels(run, check),
  };
}

/** The evidence as Allure attachments: a text summary, then each wire exchange as JSON. */
export function evidenceAttachments(check: CheckResult): Array<{ name: string; content: string; type: string }> {
  const list: Array<{ name: string; content: string; type: string }> = [];
  const summary = evidenceText(check.evidence);
  if (summary) list.push({ name: 'evidence', content: `${summary}\n`, type: 'text/plain' });
  for (const ex of check.evidence?.exchanges ?? [])
    list.push({ name: exchangeName(ex), content: `${JSON.stringify(ex, null, 2)}\n`, type: 'application/json' });
  return list;
}

/** message, trace (the evidence summary), expected and actual of a result. */
export function allureStatusDetails(check: CheckResult): StatusDetails {
  const evidence = check.evidence;
  const summary = evidenceText(evidence);
  const statusDetails: StatusDetails = { message: sanitizeText(check.message) };
  if (summary) statusDetails.trace = summary;
  if (evidence?.expected !== undefined) statusDetails.expected = sanitizeText(toJsonText(evidence.expected));
  if (evidence?.actual !== undefined) statusDetails.actual = sanitizeText(toJsonText(evidence.actual));
  return statusDetails;
}

function attachmentFiles(uuid: string, check: CheckResult, files: PendingFile[]): TestResult['attachments'] {
  const hasSummary = evidenceText(check.evidence) !== '';
  return evidenceAttachments(check).map((a, i) => {
    // File names as before: the summary is `evidence`, exchanges are numbered from 0.
    const key = hasSummary ? (i === 0 ? 'evidence' : String(i - 1)) : String(i);
    const source = `${stableUuid('attachment', uuid, key)}-attachment.${a.type === 'text/plain' ? 'txt' : 'json'}`;
    files.push({ name: source, content: a.content });
    return { name: a.name, source, type: a.type };
  });
}

function resultFor(run: RunResult, check: CheckResult, files: PendingFile[]): TestResult {
  const uuid = stableUuid('result', run.seed, run.agent_url, check.suite_id, check.check_id, check.transport);
  const { name, fullName, historyId, testCaseId, description, parameters, labels } = allureIdentity(run, check);
  const start = startOf(run, check);
  return {
    uuid,
    historyId,
    testCaseId,
    name,
    fullName,
    status: allureStatus(check, run.selection?.strict ?? false),
    statusDetails: allureStatusDetails(check),
    stage: 'finished' as TestResult['stage'],
    description,
    steps: [],
    attachments: attachmentFiles(uuid, check, files),
    parameters,
    labels,
    links: [],
    start,
    stop: start + Math.max(0, Math.round(check.duration_ms)),
  };
}

function baselineResultFor(run: RunResult, file: string, entry: BaselineEntryResult): TestResult {
  const { name, fullName, historyId, testCaseId, description, parameters, labels } = baselineEntryIdentity(run, entry);
  const start = Date.parse(run.finished_at);
  return {
    uuid: stableUuid('baseline', run.seed, run.agent_url, entry.check_id, entry.transport ?? '*'),
    historyId,
    testCaseId,
    name,
    fullName,
    status: baselineEntryStatus(entry),
    statusDetails: baselineEntryDetails(file, entry),
    stage: 'finished' as TestResult['stage'],
    description,
    steps: [],
    attachments: [],
    parameters,
    labels,
    links: [],
    start,
    stop: start,
  };
}

/** `key=value` lines, escaped as java.util.Properties reads them (non-ASCII as \uXXXX). */
export function propertiesText(entries: Array<[string, string]>): string {
  const esc = (s: string, key: boolean): string =>
    s.replace(/[\\=:#!\s]|[^\x20-\x7e]/g, (ch, offset: number) => {
      if (ch === '\\' || ch === '=' || ch === ':' || ch === '#' || ch === '!') return `\\${ch}`;
      if (ch === '\n') return '\\n';
      if (ch === '\r') return '\\r';
      if (ch === '\t') return '\\t';
      if (ch === ' ') return key || offset === 0 ? '\\ ' : ' ';
      return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    });
  return entries.map(([k, v]) => `${esc(k, true)}=${esc(v, false)}\n`).join('');
}

/** Allure result files written at once. */
const ALLURE_WRITE_LANES = 16;

/** Writes the results into `dir` (created if needed) and returns the paths written. */
export async function writeAllureResults(run: RunResult, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: PendingFile[] = [];
  for (const check of run.checks) {
    const result = resultFor(run, check, files);
    files.push({ name: `${result.uuid}-result.json`, content: `${JSON.stringify(result, null, 2)}\n` });
  }
  for (const entry of run.baseline?.entries ?? []) {
    const result = baselineResultFor(run, run.baseline!.file, entry);
    files.push({ name: `${result.uuid}-result.json`, content: `${JSON.stringify(result, null, 2)}\n` });
  }
  files.push({
    name: 'environment.properties',
    content: propertiesText([
      ['agent_url', run.agent_url],
      ['token', run.token],
      ['transports', run.transports.join(',')],
      ['seed', run.seed],
      ['harness', `${run.harness.name} ${run.harness.version}`],
      ['overall_status', run.overall_status],
      ['coverage', run.coverage.complete ? 'complete' : 'incomplete'],
      ['started_at', run.started_at],
      ['command', run.command],
    ]),
  });
  files.push({
    name: 'executor.json',
    content: `${JSON.stringify(
      {
        name: run.harness.name,
        type: run.harness.name,
        buildName: sanitizeText(`${run.harness.name} ${run.harness.version} · seed ${run.seed}`),
        reportName: sanitizeText(`${run.harness.name}: ${run.agent_url}`),
      },
      null,
      2,
    )}\n`,
  });
  // A result file per check (hundreds): written a few at a time, not one after another.
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < files.length) {
      const file = files[next++]!;
      await writeFileAtomic(join(dir, file.name), file.content).catch((e: unknown) => {
        failed = true;
        throw e;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(ALLURE_WRITE_LANES, files.length) }, lane));
  return files.map((file) => join(dir, file.name));
}
