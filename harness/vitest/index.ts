/**
 * The suites as vitest tests. In a test file of your own vitest run:
 *
 *   import { defineComplianceSuites } from 'proto-comply/harness/vitest/index.ts';
 *   defineComplianceSuites();            // agent from PROTO_COMPLY_AGENT, see options.ts
 *
 * At collection time this declares `describe(<agent URL>) > describe(<suite>) >
 * describe(<transport>) > it('<check id>: <title>')`, one test per check and transport. A
 * `beforeAll` runs the whole certification once (`certify()`, the same run as
 * `proto-comply run`), and each test then mirrors its result through `allureStatus` (the
 * mapping the Allure report writer uses): a failure that fails the run (fail, MUST not
 * testable, SHOULD warn under strict) fails the test, a harness error breaks it, a baselined
 * failure, not applicable or not run skips it, and warn/info pass with an annotation.
 *
 * With allure-vitest as a reporter every test carries the same name, history id, test case
 * id, labels (suite, level, transport, spec reference, check id, ...), parameters and evidence
 * attachments as `proto-comply run --allure DIR` writes for the same run (reports/allure.ts);
 * the parentSuite/suite/subSuite labels come from the describe path above. With a baseline,
 * `describe('baseline')` holds one test per entry (a stale entry fails).
 */
import { resolve } from 'node:path';
import { beforeAll, describe, it, type TestContext } from 'vitest';
import { certify, pickSuites, UnknownSuiteError } from '../certify/index.js';
import { selectChecks } from '../core/engine/run.js';
import { builtinSuites } from '../../suites/index.js';
import type { BaselineEntryResult, CheckResult, RunResult } from '../core/engine/result.js';
import { applyBaseline } from '../baseline/apply.js';
import { parseRunArgs, reproduceCommand } from '../cli/run-args.js';
import { SUITE_LABELS, allureIdentity, allureStatus, allureStatusDetails, evidenceAttachments, type AllureIdentity } from '../../reports/allure.js';
import { BASELINE_SUITE, baselineEntryIdentity, baselineEntryMessage, baselineEntryStatus } from '../../reports/allure-baseline.js';
import { writeReports } from '../../reports/index.js';
import { sanitizeText } from '../../reports/text.js';
import { ComplianceOptionsError, resolveOptions, type ComplianceSuitesOptions, type ResolvedOptions } from './options.js';
import { allureApi } from './allure-api.js';

export type { ComplianceSuitesOptions } from './options.js';
export { ComplianceOptionsError } from './options.js';

export interface DefineOptions extends ComplianceSuitesOptions {
  /** Also write agent-compliance.json, junit.xml and report.html here; default env PROTO_COMPLY_OUT. */
  out?: string;
}

/** The failure of a check, shaped as an assertion error so reporters (and Allure) call it failed, not broken. */
export class ComplianceFailure extends Error {
  override name = 'AssertionError';
  constructor(message: string, details: { expected?: string; actual?: string; trace?: string }) {
    super(message);
    if (details.expected !== undefined) Object.assign(this, { expected: details.expected });
    if (details.actual !== undefined) Object.assign(this, { actual: details.actual });
    // The evidence summary is the useful trace; a stack into the harness is not.
    this.stack = details.trace ?? message;
  }
}

/** A harness error during a check (outcome `error`): the test is broken, not failed. */
export class ComplianceHarnessError extends Error {
  override name = 'ComplianceHarnessError';
  constructor(message: string, trace?: string) {
    super(message);
    this.stack = trace ?? message;
  }
}

/** The `proto-comply run` command line that reproduces this run (the CLI's own rendering). */
function reproduceCommandFor(o: ResolvedOptions): string {
  const argv = ['--agent', o.agentUrl, '--seed', o.seed, '--token', o.token];
  if (o.mcpUrl) argv.push('--mcp-url', o.mcpUrl);
  if (o.a2aUrl) argv.push('--a2a-url', o.a2aUrl);
  if (o.transportExplicit) argv.push('--transport', o.transports[0]);
  if (o.suites) argv.push('--suite', o.suites.join(','));
  if (o.checkGlob) argv.push('--check', o.checkGlob);
  if (o.budgetS !== undefined) argv.push('--budget-s', String(o.budgetS));
  if (o.strict) argv.push('--strict');
  if (o.baseline) argv.push('--baseline', o.baseline.file);
  const args = parseRunArgs(argv, o.authToken ? { PROTO_COMPLY_AUTH_TOKEN: o.authToken } : {});
  return args === 'help' ? 'npx proto-comply run' : reproduceCommand(args);
}

async function certifyOnce(o: ResolvedOptions, out: string | undefined): Promise<RunResult> {
  const command = reproduceCommandFor(o);
  const certified = await certify({
    agentUrl: o.agentUrl,
    mcpUrl: o.mcpUrl,
    a2aUrl: o.a2aUrl,
    transports: o.transports,
    transportExplicit: o.transportExplicit,
    suites: o.suites,
    checkGlob: o.checkGlob,
    token: o.token,
    authToken: o.authToken,
    seed: o.seed,
    budgetS: o.budgetS,
    concurrency: o.concurrency,
    timeoutS: o.timeoutS,
    strict: o.strict,
    command,
  });
  const run = o.baseline ? applyBaseline(certified, o.baseline) : certified;
  if (out) await writeReports(run, { dir: resolve(out), formats: ['json', 'junit', 'html'] });
  return run;
}

async function describeForAllure(identity: AllureIdentity, attachments: Array<{ name: string; content: string; type: string }> = []): Promise<void> {
  const api = await allureApi();
  if (!api) return;
  const allure = api.facade;
  await allure.displayName(identity.name);
  await allure.historyId(identity.historyId);
  await allure.testCaseId(identity.testCaseId);
  await allure.description(identity.description);
  await allure.labels(...identity.labels.filter((l) => !SUITE_LABELS.has(l.name)));
  for (const p of identity.parameters) await allure.parameter(p.name, p.value);
  for (const a of attachments) await api.attach(a.name, a.content, a.type);
}

function skipNote(check: CheckResult): string {
  const why = check.not_run
    ? 'not run (budget exhausted)'
    : check.baselined
      ? `expected failure (baselined ${check.outcome})`
      : check.outcome.replaceAll('_', ' ');
  return sanitizeText(`${why}: ${check.message}`);
}

/** Mirrors one check result as the verdict of the running test. */
export async function mirrorCheck(ctx: TestContext, run: RunResult, check: CheckResult): Promise<void> {
  await describeForAllure(allureIdentity(run, check), evidenceAttachments(check));
  const details = allureStatusDetails(check);
  switch (allureStatus(check, run.selection.strict)) {
    case 'passed':
      if (check.outcome === 'warn' || check.outcome === 'info') {
        await ctx.annotate(sanitizeText(`${check.outcome.toUpperCase()} (${check.level}): ${check.message}`), check.outcome === 'warn' ? 'warning' : 'notice');
      }
      return;
    case 'skipped':
      ctx.skip(skipNote(check));
      return;
    case 'broken':
      throw new ComplianceHarnessError(details.message ?? check.message, details.trace);
    default:
      throw new ComplianceFailure(details.message ?? check.message, { expected: details.expected, actual: details.actual, trace: details.trace });
  }
}

async function mirrorEntry(ctx: TestContext, run: RunResult, entry: BaselineEntryResult): Promise<void> {
  await describeForAllure(baselineEntryIdentity(run, entry));
  const message = baselineEntryMessage(run.baseline!.file, entry);
  switch (baselineEntryStatus(entry)) {
    case 'passed':
      return;
    case 'skipped':
      ctx.skip(message);
      return;
    default:
      throw new ComplianceFailure(message, {});
  }
}

function noRun(run: RunResult | undefined, what: string): Error {
  if (!run) return new ComplianceHarnessError('the compliance run did not complete (see the error of the beforeAll hook)');
  if (run.overall_status === 'unreachable' || run.overall_status === 'auth_required') return new ComplianceHarnessError(sanitizeText(run.headline));
  return new ComplianceHarnessError(`no result for ${what} in the run`);
}

/**
 * Declares the compliance tests. Call it at the top level of a test file: the describe path
 * it declares is where the Allure parentSuite/suite/subSuite labels come from. Throws ComplianceOptionsError at collection time for a missing agent URL, an
 * unknown suite, a bad baseline and the like.
 */
export function defineComplianceSuites(options: DefineOptions = {}): void {
  const o = resolveOptions(options);
  const out = options.out ?? ((options.env ?? process.env).PROTO_COMPLY_OUT || undefined);
  let suites;
  try {
    const picked = pickSuites(o.suites);
    // The vitest entry certifies an agent (mcp/a2a columns); the registry face runs with `proto-comply run --registry`.
    const registryFace = picked.filter((s) => s.face === 'registry' && o.suites?.includes(s.id));
    if (registryFace.length)
      throw new ComplianceOptionsError(`proto-comply vitest: the ${registryFace[0]!.id} suite certifies a registry: use proto-comply run --registry`);
    suites = selectChecks(
      picked.filter((s) => s.face !== 'registry'),
      o.checkGlob,
      builtinSuites().kinds,
    );
  } catch (e) {
    if (e instanceof UnknownSuiteError) throw new ComplianceOptionsError(`proto-comply vitest: ${e.message}`);
    throw e;
  }
  if (suites.length === 0) throw new ComplianceOptionsError(`proto-comply vitest: the check glob ${JSON.stringify(o.checkGlob)} selects no check`);
  const hookTimeoutMs = ((o.budgetS ?? 900) + 120) * 1000;
  let run: RunResult | undefined;

  describe(sanitizeText(o.agentUrl), () => {
    beforeAll(async () => {
      run = await certifyOnce(o, out);
    }, hookTimeoutMs);

    for (const suite of suites) {
      describe(suite.id, () => {
        for (const transport of o.transports) {
          describe(transport, () => {
            for (const check of suite.checks) {
              it(sanitizeText(`${check.id}: ${check.title}`), async (ctx) => {
                const result = run?.checks.find((c) => c.suite_id === suite.id && c.check_id === check.id && c.transport === transport);
                if (!run || !result) throw noRun(run, `${check.id} [${transport}]`);
                await mirrorCheck(ctx, run, result);
              });
            }
          });
        }
      });
    }

    if (o.baseline) {
      const file = o.baseline;
      describe(BASELINE_SUITE, () => {
        file.entries.forEach((e, i) => {
          it(baselineEntryIdentity({ agent_url: o.agentUrl, harness: { name: 'proto-comply', version: '' } }, { ...e }).name, async (ctx) => {
            const entry = run?.baseline?.entries[i];
            if (!run || !entry) throw noRun(run, `baseline entry ${e.check_id}`);
            await mirrorEntry(ctx, run, entry);
          });
        });
      });
    }
  });
}
