/**
 * Options of the vitest entry point, from code or from the environment, validated at
 * collection time so a misconfigured run fails at once with one clear message.
 *
 *   PROTO_COMPLY_AGENT       agent URL (required)            PROTO_COMPLY_AUTH_TOKEN  bearer token
 *   PROTO_COMPLY_MCP_URL     MCP endpoint override           PROTO_COMPLY_A2A_URL     A2A card/endpoint override
 *   PROTO_COMPLY_TRANSPORT   mcp | a2a | both (default both) PROTO_COMPLY_SUITES      comma-separated suite ids
 *   PROTO_COMPLY_CHECK       check id globs                  PROTO_COMPLY_TOKEN       protocol token (default proto)
 *   PROTO_COMPLY_SEED        seed                            PROTO_COMPLY_STRICT      1/true: SHOULD failures fail
 *   PROTO_COMPLY_BASELINE    expected-failures baseline file PROTO_COMPLY_BUDGET_S    run budget in seconds
 *   PROTO_COMPLY_TIMEOUT_S   total timeout of one call in seconds
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_TOKEN, protocolIds } from '../core/token.js';
import { isValidSeed, newSeed } from '../core/engine/rng.js';
import { compileCheckGlobs } from '../core/engine/glob.js';
import { resolveEndpoints, type AgentTransportKind } from '../core/transport/index.js';
import { BaselineError, MAX_BASELINE_BYTES, parseBaseline, type Baseline } from '../baseline/file.js';
import { builtinCheckIds } from '../../suites/index.js';

export interface ComplianceSuitesOptions {
  /** Default env PROTO_COMPLY_AGENT. */
  agentUrl?: string;
  mcpUrl?: string;
  a2aUrl?: string;
  /** Default env PROTO_COMPLY_AUTH_TOKEN. Never written to reports. */
  authToken?: string;
  /** Default env PROTO_COMPLY_TRANSPORT, else both. */
  transports?: AgentTransportKind[];
  /** Suite ids; default env PROTO_COMPLY_SUITES, else all. */
  suites?: string[];
  checkGlob?: string;
  /** Protocol token; default env PROTO_COMPLY_TOKEN, else `proto`. */
  token?: string;
  seed?: string;
  strict?: boolean;
  /** Expected-failures baseline file; default env PROTO_COMPLY_BASELINE. */
  baseline?: string;
  budgetS?: number;
  timeoutS?: number;
  concurrency?: number;
  /** Where the env defaults come from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface ResolvedOptions {
  agentUrl: string;
  mcpUrl?: string;
  a2aUrl?: string;
  authToken?: string;
  transports: AgentTransportKind[];
  transportExplicit: boolean;
  suites?: string[];
  checkGlob?: string;
  token: string;
  seed: string;
  strict: boolean;
  baseline?: Baseline;
  budgetS?: number;
  timeoutS?: number;
  concurrency: number;
}

export class ComplianceOptionsError extends Error {}

function fail(message: string): never {
  throw new ComplianceOptionsError(`proto-comply vitest: ${message}`);
}

function positive(name: string, raw: number | string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) fail(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

function readBaseline(path: string): Baseline {
  try {
    const text = readFileSync(path, 'utf8');
    if (Buffer.byteLength(text) > MAX_BASELINE_BYTES) fail(`baseline ${path}: larger than ${MAX_BASELINE_BYTES} bytes`);
    return parseBaseline(text, { file: path, knownCheckIds: builtinCheckIds() });
  } catch (e) {
    if (e instanceof ComplianceOptionsError) throw e;
    if (e instanceof BaselineError) fail(e.message);
    fail(`baseline ${path}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export function resolveOptions(o: ComplianceSuitesOptions = {}): ResolvedOptions {
  const env = o.env ?? process.env;
  const agentUrl = o.agentUrl ?? (env.PROTO_COMPLY_AGENT || undefined);
  if (!agentUrl) fail('no agent: set PROTO_COMPLY_AGENT to the agent URL (or pass agentUrl)');
  const mcpUrl = o.mcpUrl ?? (env.PROTO_COMPLY_MCP_URL || undefined);
  const a2aUrl = o.a2aUrl ?? (env.PROTO_COMPLY_A2A_URL || undefined);
  try {
    resolveEndpoints(agentUrl, { mcpUrl, a2aUrl });
  } catch (e) {
    fail((e as Error).message);
  }
  let transports = o.transports;
  if (!transports) {
    const t = env.PROTO_COMPLY_TRANSPORT || 'both';
    if (!['mcp', 'a2a', 'both'].includes(t)) fail(`PROTO_COMPLY_TRANSPORT must be mcp, a2a or both, got ${JSON.stringify(t)}`);
    transports = t === 'both' ? ['mcp', 'a2a'] : [t as AgentTransportKind];
  }
  if (transports.length === 0 || transports.some((t) => t !== 'mcp' && t !== 'a2a'))
    fail(`transports must be mcp and/or a2a, got ${JSON.stringify(transports)}`);
  const suites =
    o.suites ??
    env.PROTO_COMPLY_SUITES?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const checkGlob = o.checkGlob ?? (env.PROTO_COMPLY_CHECK || undefined);
  if (checkGlob) {
    try {
      compileCheckGlobs(checkGlob);
    } catch (e) {
      fail(`check glob: ${(e as Error).message}`);
    }
  }
  const token = o.token ?? (env.PROTO_COMPLY_TOKEN || DEFAULT_TOKEN);
  try {
    protocolIds(token);
  } catch (e) {
    fail(`token: ${(e as Error).message}`);
  }
  const seed = o.seed ?? (env.PROTO_COMPLY_SEED || newSeed());
  if (!isValidSeed(seed)) fail(`seed must be a non-negative integer of at most 16 digits, got ${JSON.stringify(seed)}`);
  const strict = o.strict ?? ['1', 'true', 'yes'].includes((env.PROTO_COMPLY_STRICT ?? '').toLowerCase());
  const baselineFile = o.baseline ?? (env.PROTO_COMPLY_BASELINE || undefined);
  return {
    agentUrl,
    mcpUrl,
    a2aUrl,
    authToken: o.authToken ?? (env.PROTO_COMPLY_AUTH_TOKEN || undefined),
    transports,
    transportExplicit: transports.length === 1,
    suites: suites?.length ? suites : undefined,
    checkGlob,
    token,
    seed,
    strict,
    baseline: baselineFile ? readBaseline(baselineFile) : undefined,
    budgetS: positive('budget', o.budgetS ?? env.PROTO_COMPLY_BUDGET_S),
    timeoutS: positive('timeout', o.timeoutS ?? env.PROTO_COMPLY_TIMEOUT_S),
    concurrency: positive('concurrency', o.concurrency) ?? 4,
  };
}
