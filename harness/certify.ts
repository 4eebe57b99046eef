/**
 * The library entry point: certify one agent and get the canonical RunResult. The CLI's `run`,
 * the self-tests and a registry probing many agents all go through here.
 */
import { DEFAULT_TOKEN } from './token.js';
import { newSeed } from './engine/rng.js';
import { loadSuites } from './engine/loader.js';
import { executeRun } from './engine/run.js';
import type { SuiteDef } from './engine/model.js';
import type { CheckResult, RunResult } from './engine/result.js';
import {
  createRecorder,
  createTransport,
  resolveEndpoints,
  DEFAULT_TRANSPORT_LIMITS,
  type Transport,
  type TransportKind,
} from './transport/index.js';
import { createSchemaValidator } from './schemas/validator.js';

export interface CertifyOptions {
  /** Agent URL (MCP endpoint, agent card, A2A endpoint or base URL; see transport/endpoints.ts). */
  agentUrl: string;
  mcpUrl?: string;
  a2aUrl?: string;
  /** Default both. */
  transports?: TransportKind[];
  /** The caller named the transports (an absent A2A card is then a failure, not "not offered"). */
  transportExplicit?: boolean;
  /** Suite ids (default all) or already loaded suites. */
  suites?: string[] | SuiteDef[];
  checkGlob?: string;
  token?: string;
  authToken?: string;
  seed?: string;
  budgetS?: number;
  concurrency?: number;
  timeoutS?: number;
  strict?: boolean;
  /** A buyer's webhook receiver to certify (the webhook-receiver suite). */
  receiverUrl?: string;
  /** Recorded in the result as the command that reproduces the run. */
  command?: string;
  onPlanned?: (total: number) => void;
  onCheck?: (result: CheckResult) => void;
}

export class UnknownSuiteError extends Error {}

export function pickSuites(selection: CertifyOptions['suites']): SuiteDef[] {
  const all = loadSuites();
  if (!selection) return all;
  if (selection.length > 0 && typeof selection[0] !== 'string') return selection as SuiteDef[];
  const ids = selection as string[];
  const known = new Set(all.map((s) => s.id));
  const unknown = ids.filter((s) => !known.has(s));
  if (unknown.length) {
    throw new UnknownSuiteError(`unknown suite ${unknown.map((s) => JSON.stringify(s)).join(', ')} (suites: ${[...known].join(', ')})`);
  }
  return all.filter((s) => ids.includes(s.id));
}

/** Throws TransportConfigError for unusable URLs and UnknownSuiteError for unknown suites. */
export async function certify(o: CertifyOptions): Promise<RunResult> {
  const token = o.token ?? DEFAULT_TOKEN;
  const suites = pickSuites(o.suites);
  const endpoints = resolveEndpoints(o.agentUrl, { mcpUrl: o.mcpUrl, a2aUrl: o.a2aUrl });
  const recorder = createRecorder({ token, secrets: o.authToken ? [o.authToken] : [] });
  const transports: Transport[] = (o.transports ?? ['mcp', 'a2a']).map((kind) =>
    createTransport(
      kind,
      {
        agentUrl: o.agentUrl,
        token,
        authToken: o.authToken,
        connectTimeoutMs: DEFAULT_TRANSPORT_LIMITS.connectTimeoutMs,
        totalTimeoutMs: Math.round((o.timeoutS ?? DEFAULT_TRANSPORT_LIMITS.totalTimeoutMs / 1000) * 1000),
        maxResponseBytes: DEFAULT_TRANSPORT_LIMITS.maxResponseBytes,
        capture: recorder,
      },
      endpoints,
    ),
  );
  const seed = o.seed ?? newSeed();
  try {
    return await executeRun({
      agentUrl: o.agentUrl,
      token,
      transports,
      transportExplicit: o.transportExplicit ?? false,
      suites,
      checkGlob: o.checkGlob,
      seed,
      budgetS: o.budgetS,
      concurrency: o.concurrency ?? 4,
      strict: o.strict ?? false,
      authTokenSet: o.authToken !== undefined,
      command: o.command ?? `npx proto-comply run --agent ${o.agentUrl} --seed ${seed}`,
      schemas: createSchemaValidator({ token }),
      receiverUrl: o.receiverUrl,
      onPlanned: o.onPlanned,
      onCheck: o.onCheck,
    });
  } finally {
    await Promise.allSettled(transports.map((t) => t.close()));
  }
}
