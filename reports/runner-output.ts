/**
 * `runner-output.json`: a storyboard run (`run --storyboards`) in the shape of the bundle's runner
 * output contract (`universal/runner-output-contract.yaml`, digest 6.1): one step_result per
 * storyboard step and transport (the controller seeding of a storyboard is the step
 * `prerequisites.controller_seeding`), each with its validation_results as the step judged them
 * (`CheckResult.storyboard_step`: nothing is judged again here), a skip_result for a step that was
 * not run, the request and response records with the contract's redaction, and a run_summary.
 * A step's advisory validations (its `….advisory` check) follow its required ones; they do not
 * decide `passed`. A run without storyboard steps gives the document with no steps and a note.
 */
import { toComplianceDetail } from './compliance-detail.js';
import { writeFileAtomic } from './fs.js';
import { join } from 'node:path';
import type { CheckResult, Outcome, RunResult } from '../harness/core/engine/result.js';
import type { RunnerSkipReason, SchemaIdentity, StoryboardStepInfo, ValidationRecord } from '../harness/core/engine/storyboard-step.js';
import type { TransportKind } from '../harness/core/transport/types.js';
import { peerBranchTaken, skipOf } from './runner-output-skip.js';
import { RUNNER_CAPABILITY_VERSION } from '../harness/core/storyboards/runner-capability.js';
import { redactKeys, type RequestRecord, type ResponseRecord, wireRecords } from './runner-output-wire.js';

export const RUNNER_OUTPUT_FILE = 'runner-output.json';
/** The contract this document follows: the one the pinned SDK bundle ships. */
export const RUNNER_OUTPUT_CONTRACT = { id: 'runner_output_contract', version: '1.1.0' } as const;

export type ExtractionPath = 'structured_content' | 'text_fallback' | 'error' | 'none';

export interface ValidationResultDoc {
  check: string;
  passed: boolean;
  description: string;
  severity: 'required' | 'advisory';
  /** Not judged (a kind the harness does not judge, a validation authored wrongly): passed, flagged, with why. */
  not_applicable?: true;
  note?: string;
  error?: string;
  json_pointer?: string | null;
  expected?: unknown;
  actual?: unknown;
  schema_id?: string | null;
  schema_url?: string | null;
  request?: RequestRecord | null;
  response?: ResponseRecord | null;
}

export interface StepResultDoc {
  storyboard_id: string;
  phase_id: string;
  step_id: string;
  task: string;
  passed: boolean;
  duration_ms: number;
  validations: ValidationResultDoc[];
  extraction: { path: ExtractionPath; note?: string };
  skip?: { reason: RunnerSkipReason; detail: string };
  /** The run's selection excluded the step before it ran: counted in steps_not_selected, not steps_skipped. */
  not_selected?: true;
  error?: string;
  request?: RequestRecord;
  response?: ResponseRecord;
  /** The harness's own terms: the transport, the check and its outcome. */
  transport: TransportKind;
  check_id: string;
  outcome: Outcome;
}

export interface TrackSummary {
  track: string;
  /** The registry's track status, as in compliance_detail.tracks. */
  status: string;
  storyboards: string[];
  steps_passed: number;
  steps_failed: number;
  steps_skipped: number;
  /** Skipped steps by skip reason. */
  skipped_by_reason: Partial<Record<RunnerSkipReason, number>>;
}

export interface RunSummary {
  total_steps: number;
  steps_passed: number;
  steps_failed: number;
  steps_skipped: number;
  /** Steps the run's selection excluded before they ran (the target line, a transport not offered); not counted as skipped. */
  steps_not_selected: number;
  tracks: TrackSummary[];
  schemas_used: Array<{ schema_id: string; schema_url: string; schema_file: string }>;
  validations_not_applicable: number;
  validations_advisory_failed: number;
  /** The runner capability level the run judged at (advisories past their expires_after_version are required). */
  runner_capability_version: string;
}

export interface RunnerOutputDocument {
  contract: typeof RUNNER_OUTPUT_CONTRACT;
  harness: RunResult['harness'];
  agent_url: string;
  requested_compliance_target: string;
  started_at: string;
  finished_at: string;
  transports: TransportKind[];
  run_summary: RunSummary;
  step_results: StepResultDoc[];
  harness_error?: string;
  note?: string;
}

const EXTRACTION: Record<string, { path: ExtractionPath; note?: string }> = {
  structured_content: { path: 'structured_content' },
  content_text: { path: 'text_fallback', note: 'payload read from content[0].text, JSON-encoded: this harness reads the text before structuredContent' },
  artifact: { path: 'structured_content', note: 'A2A: the data part of the task artifact' },
  status_message: { path: 'structured_content', note: 'A2A: the data part of the status message (an interim state)' },
  none: { path: 'none' },
};

function extractionOf(step: StoryboardStepInfo): StepResultDoc['extraction'] {
  const reply = step.reply;
  if (!reply) return { path: 'none' };
  if (reply.failure !== undefined && reply.payload_source === 'none') return { path: 'error', note: reply.failure };
  if (reply.is_error) return { path: 'error', note: `the agent answered an error (payload from ${reply.payload_source})` };
  return EXTRACTION[reply.payload_source] ?? { path: 'none' };
}

/** The file of the schema applied: one of fixtures/schemas/ (the harness's own, at the run's target), or a released set's. */
const schemaFile = (s: SchemaIdentity) => (s.set === 'harness' ? `fixtures/schemas/${s.file}` : `released ${s.version ?? s.line}: ${s.file}`);

function validationDoc(v: ValidationRecord, wire: { request?: RequestRecord; response?: ResponseRecord }): ValidationResultDoc {
  const doc: ValidationResultDoc = { check: v.check, passed: v.outcome !== 'failed', description: v.description ?? '', severity: v.severity };
  if (v.outcome === 'not_applicable') Object.assign(doc, { not_applicable: true, ...(v.message ? { note: v.message } : {}) });
  const schema = v.schema !== undefined ? { schema_id: v.schema.id, schema_url: v.schema.id } : { schema_id: null, schema_url: null };
  if (v.check === 'response_schema') Object.assign(doc, schema);
  if (v.outcome !== 'failed') return doc;
  // A transport-level failure has no payload: pointer, expected and actual are null, the step's error says why.
  const transportLevel = v.check === 'transport';
  return {
    ...doc,
    ...(v.message !== undefined ? { error: v.message } : {}),
    json_pointer: transportLevel ? null : (v.pointer ?? ''),
    expected: transportLevel ? null : (redactKeys(v.expected) ?? null),
    actual: transportLevel ? null : (redactKeys(v.actual) ?? null),
    ...schema,
    request: wire.request ?? null,
    response: wire.response ?? null,
  };
}

/** The key of a step on a transport: its main check and its advisory check share it. */
const stepKey = (c: CheckResult) => {
  const s = c.storyboard_step!;
  return `${c.transport}\0${s.storyboard_id}\0${s.phase_id}\0${s.step_id}`;
};

function stepResults(run: RunResult): StepResultDoc[] {
  const steps = run.checks.filter((c) => c.storyboard_step);
  const byId = new Map(steps.map((c) => [`${c.transport}\0${c.check_id}`, c]));
  const advisory = new Map(steps.filter((c) => c.storyboard_step?.advisory).map((c) => [stepKey(c), c]));
  const out: StepResultDoc[] = [];
  for (const c of steps) {
    const s = c.storyboard_step!;
    if (s.advisory) continue;
    const resultOf = (id: string) => byId.get(`${c.transport}\0${id}`);
    const found = skipOf(c, resultOf);
    const peers = () => steps.filter((p) => p.transport === c.transport && p.storyboard_step?.storyboard_id === s.storyboard_id);
    const skip = found ? peerBranchTaken(c, found, peers()) : undefined;
    const wire = wireRecords(c.evidence?.exchanges ?? [], s.called ?? s.task);
    const judged = [...(s.validations ?? []), ...(advisory.get(stepKey(c))?.storyboard_step?.validations ?? [])];
    const validations = judged.map((v) => validationDoc(v, wire));
    const error = s.reply?.failure ?? (c.outcome === 'error' ? c.message : undefined);
    if (c.outcome === 'error')
      validations.push({
        check: 'harness',
        passed: false,
        description: 'the harness runs the step',
        severity: 'required',
        error: c.message,
        json_pointer: null,
        expected: null,
        actual: null,
        schema_id: null,
        schema_url: null,
        request: wire.request ?? null,
        response: wire.response ?? null,
      });
    out.push({
      storyboard_id: s.storyboard_id,
      phase_id: s.phase_id,
      step_id: s.step_id,
      task: s.task,
      passed: c.outcome === 'pass',
      duration_ms: c.duration_ms,
      validations,
      extraction: extractionOf(s),
      ...(skip ? { skip: { reason: skip.reason, detail: skip.detail } } : {}),
      ...(skip?.not_selected ? { not_selected: true as const } : {}),
      ...(error !== undefined ? { error } : {}),
      ...wire,
      transport: c.transport,
      check_id: c.check_id,
      outcome: c.outcome,
    });
  }
  return out;
}

function runSummary(run: RunResult, steps: StepResultDoc[]): RunSummary {
  const detail = toComplianceDetail(run);
  const trackOf = new Map(run.suites.filter((s) => s.storyboard_id && s.track).map((s) => [s.storyboard_id!, s.track!]));
  const untracked = { passed: 0, failed: 0, skipped: 0 };
  const tracks = new Map<string, TrackSummary>();
  const schemas = new Map<string, RunSummary['schemas_used'][number]>();
  let notApplicable = 0;
  let advisoryFailed = 0;
  let notSelected = 0;
  for (const step of steps) {
    if (step.not_selected) {
      notSelected += 1;
      continue;
    }
    for (const v of step.validations) {
      if (v.not_applicable) notApplicable += 1;
      if (v.severity === 'advisory' && !v.passed) advisoryFailed += 1;
    }
    // A storyboard the bundle puts in no track counts in the totals only, as the reference runner does.
    const track = trackOf.get(step.storyboard_id);
    if (track === undefined) {
      if (step.skip) untracked.skipped += 1;
      else if (step.passed) untracked.passed += 1;
      else untracked.failed += 1;
      continue;
    }
    let t = tracks.get(track);
    if (!t) {
      t = { track, status: detail.tracks[track] ?? 'skip', storyboards: [], steps_passed: 0, steps_failed: 0, steps_skipped: 0, skipped_by_reason: {} };
      tracks.set(track, t);
    }
    if (!t.storyboards.includes(step.storyboard_id)) t.storyboards.push(step.storyboard_id);
    if (step.skip) {
      t.steps_skipped += 1;
      t.skipped_by_reason[step.skip.reason] = (t.skipped_by_reason[step.skip.reason] ?? 0) + 1;
    } else if (step.passed) t.steps_passed += 1;
    else t.steps_failed += 1;
  }
  for (const c of run.checks)
    for (const v of c.storyboard_step?.validations ?? [])
      if (v.schema) schemas.set(v.schema.id, { schema_id: v.schema.id, schema_url: v.schema.id, schema_file: schemaFile(v.schema) });
  const all = [...tracks.values()];
  const sum = (k: 'steps_passed' | 'steps_failed' | 'steps_skipped') => all.reduce((n, t) => n + t[k], 0);
  return {
    total_steps: steps.length,
    steps_passed: sum('steps_passed') + untracked.passed,
    steps_failed: sum('steps_failed') + untracked.failed,
    steps_skipped: sum('steps_skipped') + untracked.skipped,
    steps_not_selected: notSelected,
    tracks: all,
    schemas_used: [...schemas.values()],
    validations_not_applicable: notApplicable,
    validations_advisory_failed: advisoryFailed,
    runner_capability_version: RUNNER_CAPABILITY_VERSION,
  };
}

/** Pure: the runner output document of a run. */
export function toRunnerOutput(run: RunResult): RunnerOutputDocument {
  const steps = stepResults(run);
  return {
    contract: RUNNER_OUTPUT_CONTRACT,
    harness: run.harness,
    agent_url: run.agent_url,
    requested_compliance_target: run.target.requested_compliance_target,
    started_at: run.started_at,
    finished_at: run.finished_at,
    transports: run.transports,
    run_summary: runSummary(run, steps),
    step_results: steps,
    ...(run.harness_error !== undefined ? { harness_error: run.harness_error } : {}),
    ...(steps.length === 0 ? { note: 'the run has no storyboard steps: the runner output contract reports storyboard runs (run --storyboards BUNDLE)' } : {}),
  };
}

export async function writeRunnerOutput(run: RunResult, dir: string): Promise<string> {
  const path = join(dir, RUNNER_OUTPUT_FILE);
  await writeFileAtomic(path, `${JSON.stringify(toRunnerOutput(run), null, 2)}\n`);
  return path;
}
