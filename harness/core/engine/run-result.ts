/**
 * `newRunResult` builds every RunResult, whatever produced it (a certification run, a fuzz run, a
 * proxy audit, a run that broke): the envelope (who ran what against which agent, judged against
 * which protocol line, when, and how to run it again), the checks with their root causes, the
 * counts and the per-suite summaries. One place, so the result's schema version and its target
 * are spelled once; the producer supplies only its verdict (status, coverage, headline).
 */
import { RESULT_SCHEMA_VERSION, type CheckResult, type ResponseSchemasInfo, type RunResult, type TargetInfo, type TransportInfo } from './result.js';
import type { SuiteDef } from './model.js';
import type { TransportKind } from '../transport/types.js';
import { HARNESS_VERSION } from '../version.js';
import { DEFAULT_TARGET, isProtocolLine, lineOfVersion, type ProtocolLine } from '../protocol/lines.js';
import { withRootCauses } from './root-cause.js';
import { countOutcomes, summarizeSuites } from './summarize.js';

export { RESULT_SCHEMA_VERSION };

export interface RunFacts {
  agentUrl: string;
  token: string;
  transports: TransportKind[];
  target: TargetInfo;
  seed: string;
  command: string;
  startedAt: Date;
}

type Envelope = Pick<
  RunResult,
  'schema_version' | 'harness' | 'agent_url' | 'token' | 'transports' | 'target' | 'seed' | 'started_at' | 'finished_at' | 'duration_ms' | 'command'
>;

/** What the producer of a result decides; newRunResult adds the rest. */
export interface RunVerdict {
  /** The suites the checks belong to (root causes, per-suite summaries). */
  suites: SuiteDef[];
  /** The checks in report order, without root causes (newRunResult names them). */
  checks: CheckResult[];
  transportInfo: TransportInfo[];
  status: RunResult['overall_status'];
  coverage: RunResult['coverage'];
  lifecycleStage: RunResult['lifecycle_stage'];
  headline: string;
  selection: RunResult['selection'];
  harnessError?: string;
  injected?: RunResult['injected'];
}

/** The RunResult of a run described by `f` that ends now (or `durationMs` after its start). Not yet bounded or redacted. */
export function newRunResult(f: RunFacts, v: RunVerdict, durationMs?: number): RunResult {
  const checks = withRootCauses(v.checks, v.suites);
  return {
    ...runEnvelope(f, durationMs),
    transport_info: v.transportInfo,
    overall_status: v.status,
    coverage: v.coverage,
    lifecycle_stage: v.lifecycleStage,
    headline: v.headline,
    ...(v.harnessError !== undefined ? { harness_error: v.harnessError } : {}),
    selection: v.selection,
    counts: countOutcomes(checks),
    suites: summarizeSuites(v.suites, checks, f.transports, v.selection.strict),
    checks,
    ...(v.injected ? { injected: v.injected } : {}),
  };
}

/** The envelope of a run that started at `f.startedAt` and ends now (or `durationMs` after its start, measured by the caller). */
export function runEnvelope(f: RunFacts, durationMs?: number): Envelope {
  return {
    schema_version: RESULT_SCHEMA_VERSION,
    harness: { name: 'proto-comply', version: HARNESS_VERSION },
    agent_url: f.agentUrl,
    token: f.token,
    transports: f.transports,
    target: f.target,
    seed: f.seed,
    started_at: f.startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    duration_ms: durationMs ?? Date.now() - f.startedAt.getTime(),
    command: f.command,
  };
}

/**
 * The target of a run: the line asked for (`--target`, default DEFAULT_TARGET) and, when the
 * agent's capabilities were read, what it declares about versions (digest 1.15's peers: the
 * `<token>` block's `supported_versions`, `major_versions`, `build_version`).
 */
export function targetInfo(requested: ProtocolLine | undefined, declaredBlock?: unknown, responseSchemas?: ResponseSchemasInfo): TargetInfo {
  const info: TargetInfo = {
    requested_compliance_target: requested ?? DEFAULT_TARGET,
    explicit: requested !== undefined,
    ...(responseSchemas ? { response_schemas: responseSchemas } : {}),
  };
  const declared = declaredVersions(declaredBlock);
  if (declared) {
    info.agent_declared = declared;
    const lines = (declared.supported_versions ?? []).map(lineOfVersion).filter(isProtocolLine);
    if (declared.supported_versions?.length && !lines.includes(info.requested_compliance_target)) info.agent_lacks_target = true;
  }
  return info;
}

/** A version string as the schemas allow it (semver-like); anything else an agent sends is left out, so reports never carry agent text here. */
const VERSION_TEXT = /^[0-9A-Za-z.+-]{1,64}$/;

/** The version members of the capability block (`<token>: {supported_versions, major_versions, build_version}`), bounded; undefined when none is usable. */
function declaredVersions(block: unknown): TargetInfo['agent_declared'] {
  if (block === null || typeof block !== 'object' || Array.isArray(block)) return undefined;
  const b = block as Record<string, unknown>;
  const out: NonNullable<TargetInfo['agent_declared']> = {};
  const strings = Array.isArray(b.supported_versions)
    ? b.supported_versions.filter((v): v is string => typeof v === 'string' && v.length <= 32 && VERSION_TEXT.test(v)).slice(0, 16)
    : [];
  if (strings.length) out.supported_versions = strings;
  const majors = Array.isArray(b.major_versions) ? b.major_versions.filter((v): v is number => Number.isInteger(v) && v >= 0 && v < 1000).slice(0, 16) : [];
  if (majors.length) out.major_versions = majors;
  if (typeof b.build_version === 'string' && VERSION_TEXT.test(b.build_version)) out.build_version = b.build_version;
  return Object.keys(out).length ? out : undefined;
}
