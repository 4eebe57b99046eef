/**
 * `certify`: one function for every target (an agent, a buyer's receiver, a registry, discovery
 * files), giving the canonical RunResult. The CLI's `run`, the vitest entry, the self-tests and
 * our compliance service probing many agents all go through here.
 */
import { DEFAULT_TOKEN, protocolIds } from '../core/token.js';
import { DEFAULT_TARGET, type ProtocolLine } from '../core/protocol/lines.js';
import { newSeed } from '../core/engine/rng.js';
import type { SuiteCatalog } from '../core/engine/loader.js';
import { builtinSuites } from '../../suites/index.js';
import type { Fixtures } from '../core/fixtures/fixtures.js';
import { executeRun } from '../core/engine/run.js';
import { buildProfile, type AgentProfile } from '../core/engine/profile.js';
import type { LifecycleStage } from '../core/engine/lifecycle.js';
import type { SuiteDef } from '../core/engine/model.js';
import type { CheckResult, RunResult } from '../core/engine/result.js';
import { AddressPolicy, type LookupFunction } from '../core/net/address-policy.js';
import type { ConnectTo } from '../core/net/connect-to.js';
import {
  createRecorder,
  createTransport,
  namedUrls,
  resolveEndpoints,
  DEFAULT_TRANSPORT_LIMITS,
  TransportConfigError,
  type Recorder,
  type Transport,
  type AgentTransportKind,
} from '../core/transport/index.js';
import type { RegistryTarget } from '../core/registry-face/target.js';
import { RegistryFaceTransport } from '../core/registry-face/transport.js';
import { createSchemaValidator } from '../core/schemas/validator.js';
import { responseSchemasInfo, type SchemaSetChoice } from '../core/schemas/schema-set/choose.js';
import type { SchemaChecker } from '../core/engine/kinds/types.js';
import { Redactor } from '../core/transport/redact.js';
import { boundRun } from '../core/engine/bound.js';
import { runTiming } from '../core/engine/timing.js';
import { receiverOnlyTransports, type ReceiverOptions } from '../core/webhooks/receiver-probe/run.js';
import type { SuiteSelection } from './pick-suites.js';
import { type RunTarget, runTargetOf, shapeOf, suitesFor, targetFlag, targetUrl } from './run-target.js';

/** Checks calling an agent at once unless the caller says otherwise: polite to an agent whose limits are not known. */
export const DEFAULT_CONCURRENCY = 4;

export interface CertifyOptions {
  /** Agent URL (MCP endpoint, agent card, A2A endpoint or base URL; see transport/endpoints.ts).
   *  Optional only for a receiver-only run (`receiverUrl` given): then only the suites that need
   *  no agent run, and each transport stands for a webhook envelope (MCP / A2A). */
  agentUrl?: string;
  mcpUrl?: string;
  a2aUrl?: string;
  /** Default both. */
  transports?: AgentTransportKind[];
  /** The caller named the transports (an absent A2A card is then a failure, not "not offered"). */
  transportExplicit?: boolean;
  /** Suite ids (default all) or already loaded suites (of `catalog`). */
  suites?: SuiteSelection;
  /** The suites to choose from and their kinds (default: the built-in suites, suites/index.ts). */
  catalog?: SuiteCatalog;
  checkGlob?: string;
  token?: string;
  /** The protocol line to judge against (digest 6.3 requested_compliance_target; default the newest released line, harness/core/protocol/lines.ts). */
  target?: ProtocolLine;
  /** The agent's lifecycle stage, when the caller knows it (`--lifecycle-stage`; default: inferred, engine/lifecycle.ts). */
  lifecycleStage?: LifecycleStage;
  authToken?: string;
  seed?: string;
  /** Run budget in seconds (default engine/run.ts DEFAULT_BUDGET_S). */
  budgetS?: number;
  /** Grace after the budget before checks that do not stop are given up (default 15 s). */
  budgetGraceMs?: number;
  /** Checks calling the agent at once (default DEFAULT_CONCURRENCY). */
  concurrency?: number;
  timeoutS?: number;
  strict?: boolean;
  /** Agent-specific setup values (`--fixtures FILE`, harness/core/fixtures/fixtures.ts): read by the setup suite; `tasks` adds arguments to every call of a task. */
  fixtures?: Fixtures;
  /** Recorded in the result's selection: coverage gaps leave the exit code at 0. */
  allowGaps?: boolean;
  /** Recorded in the result's selection: incomplete coverage fails the run. */
  requireFullCoverage?: boolean;
  /** A buyer's webhook receiver to certify (the webhook-receiver suite). */
  receiverUrl?: string;
  /** Options of the receiver under test (read-back hook, second endpoint, dedup bound, sender identity). */
  receiver?: ReceiverOptions;
  /** The registry face to certify (the registry suite, on the rest column): its URL and API key, discovery files. */
  registry?: RegistryTarget;
  /** Refuse reserved (private, loopback, link-local, ...) addresses for every connection of the run:
   *  agent endpoints, the agent card url, brand.json and JWKS fetches (default false; a registry or
   *  fleet probing agents it does not control should set it). */
  denyPrivate?: boolean;
  /** Host names, addresses and CIDR blocks let through under `denyPrivate` (`127.0.0.1`, `10.0.0.0/8`). */
  allowHosts?: string[];
  /** The resolver (tests: map names to addresses without DNS); default the system's. */
  lookup?: LookupFunction;
  /** `--connect-to` rules: connections to a host and port go elsewhere, the URLs and origins stay (net/connect-to.ts). */
  connectTo?: readonly ConnectTo[];
  /** A ready policy (takes precedence over denyPrivate / allowHosts / lookup), e.g. one the caller
   *  already checked the agent's hosts with, so each host is resolved once. */
  addressPolicy?: AddressPolicy;
  /** Use an A2A agent card `url` on an origin the user did not name (default false: A2A is then unusable). */
  allowCardOrigin?: boolean;
  /** Send the bearer token to that card origin too (implies `allowCardOrigin`; default false). */
  sendTokenToCardOrigin?: boolean;
  /** A released schema set named (`--schemas`) or looked for beside a storyboard bundle (schema-set/choose.ts): judged with where its line is the target. */
  schemaSet?: SchemaSetChoice;
  /** Recorded in the result as the command that reproduces the run. */
  command?: string;
  /** The run's redactor (the CLI shares it to redact progress lines too); default a new one. */
  redactor?: Redactor;
  onPlanned?: (total: number) => void;
  onCheck?: (result: CheckResult) => void;
}

/**
 * Certify what the options name (runTargetOf): one plan for every target, the transports the
 * target needs, one `executeRun`, one redaction pass and the size bounds. Throws
 * TransportConfigError for unusable URLs or nothing to certify, and UnknownSuiteError for unknown
 * suites.
 */
export async function certify(o: CertifyOptions): Promise<RunResult> {
  const target = runTargetOf(o);
  if (!target)
    throw new TransportConfigError('an agent URL (or, for a receiver-only run, a receiver URL; for a registry-only run, a registry URL) is required');
  const catalog = o.catalog ?? builtinSuites();
  const suites = suitesFor(shapeOf(target), o.suites, catalog);
  const token = o.token ?? DEFAULT_TOKEN;
  const seed = o.seed ?? newSeed();
  const redactor = o.redactor ?? new Redactor();
  const addressPolicy = addressPolicyOf(o);
  // One recorder for every column of the run: it also keeps when each exchange ran (the run's timing).
  const recorder = createRecorder({ token, secrets: target.kind === 'agent' && o.authToken ? [o.authToken] : [], redactor });
  const transports = transportsFor(target, suites, o, token, recorder, addressPolicy);
  const concurrency = o.concurrency ?? DEFAULT_CONCURRENCY;
  const cpu0 = process.cpuUsage();
  const agentCredentials =
    target.kind === 'agent' && o.authToken
      ? { agentCredentials: { token: o.authToken, origins: namedUrls(target.agentUrl, { mcpUrl: o.mcpUrl, a2aUrl: o.a2aUrl }) } }
      : {};
  const receiver = target.kind === 'agent' || target.kind === 'receiver' ? target.receiver : undefined;
  try {
    const run = await executeRun({
      token,
      target: o.target,
      ...(o.lifecycleStage ? { lifecycleStage: o.lifecycleStage } : {}),
      transportExplicit: o.transportExplicit ?? false,
      checkGlob: o.checkGlob,
      seed,
      budgetS: o.budgetS,
      budgetGraceMs: o.budgetGraceMs,
      concurrency,
      strict: o.strict ?? false,
      allowGaps: o.allowGaps ?? false,
      fixtures: o.fixtures,
      taskArgs: o.fixtures?.tasks,
      requireFullCoverage: o.requireFullCoverage ?? false,
      schemas: schemasOf(o, token),
      ...(o.schemaSet ? { responseSchemas: responseSchemasInfo(o.schemaSet, o.target ?? DEFAULT_TARGET) } : {}),
      receiverUrl: receiver?.url,
      receiver,
      onPlanned: o.onPlanned,
      onCheck: o.onCheck,
      addressPolicy,
      redactor,
      ...agentCredentials,
      agentUrl: targetUrl(target),
      transports,
      suites,
      kinds: catalog.kinds,
      ...(catalog.transportsInTurn ? { transportsInTurn: true } : {}),
      authTokenSet: target.kind === 'agent' && o.authToken !== undefined,
      command: o.command ?? `npx proto-comply run ${targetFlag(target)} ${targetUrl(target)} --seed ${seed}`,
    });
    const cpu = process.cpuUsage(cpu0);
    const timing = runTiming({ wallMs: run.duration_ms, concurrency, exchanges: recorder.intervals(), cpuMicros: cpu.user + cpu.system });
    // One redaction pass over the whole result (every secret the run learnt), then the size bounds.
    return { ...boundRun(redactor.value(run)), timing };
  } finally {
    await Promise.race([Promise.allSettled(transports.map((t) => t.close())), new Promise((r) => setTimeout(r, 5_000).unref())]);
  }
}

/**
 * What a run would learn of an agent before any check: each transport's profile (reachable, its
 * tasks, its capabilities), over the same connections `certify` opens (the address policy, the
 * bearer token only to the agent's own origins, the timeouts), and nothing else sent. For a
 * registry telling an owner what will be graded before anything runs.
 */
export async function profileAgent(o: CertifyOptions & { agentUrl: string; signal: AbortSignal }): Promise<AgentProfile[]> {
  const target = runTargetOf({ agentUrl: o.agentUrl });
  if (target?.kind !== 'agent') throw new TransportConfigError('an agent URL is required');
  const token = o.token ?? DEFAULT_TOKEN;
  const recorder = createRecorder({ token, secrets: o.authToken ? [o.authToken] : [], redactor: o.redactor ?? new Redactor() });
  const transports = transportsFor(target, [], o, token, recorder, addressPolicyOf(o));
  try {
    return await Promise.all(
      transports.map((t) =>
        buildProfile(t, protocolIds(token), {
          signal: o.signal,
          authTokenSet: o.authToken !== undefined,
          explicitlyRequested: o.transportExplicit ?? false,
          ...(o.lifecycleStage ? { lifecycleStage: o.lifecycleStage } : {}),
        }),
      ),
    );
  } finally {
    await Promise.race([Promise.allSettled(transports.map((t) => t.close())), new Promise((r) => setTimeout(r, 5_000).unref())]);
  }
}

/** The harness's schemas at the target, with the released set when there is one. */
function schemasOf(o: CertifyOptions, token: string): SchemaChecker {
  const own = createSchemaValidator({ token, target: o.target ?? DEFAULT_TARGET });
  return o.schemaSet?.set ? { ...own, released: o.schemaSet.set } : own;
}

/** The run's private-address policy: the caller's, or one built from the options. */
export function addressPolicyOf(o: Pick<CertifyOptions, 'addressPolicy' | 'denyPrivate' | 'allowHosts' | 'lookup' | 'connectTo'>): AddressPolicy {
  return o.addressPolicy ?? new AddressPolicy({ denyPrivate: o.denyPrivate, allowHosts: o.allowHosts, lookup: o.lookup, connectTo: o.connectTo });
}

/**
 * The columns of the run: the agent's MCP and A2A transports; for a receiver alone, one stand-in
 * per webhook envelope; the registry face's rest column when a registry suite runs.
 */
function transportsFor(target: RunTarget, suites: SuiteDef[], o: CertifyOptions, token: string, recorder: Recorder, addressPolicy: AddressPolicy): Transport[] {
  const kinds = o.transports ?? ['mcp', 'a2a'];
  if (target.kind === 'receiver') return receiverOnlyTransports(kinds, target.receiver);
  const totalTimeoutMs = Math.round((o.timeoutS ?? DEFAULT_TRANSPORT_LIMITS.totalTimeoutMs / 1000) * 1000);
  if (target.kind !== 'agent') return [registryTransport(target.registry, recorder, addressPolicy, totalTimeoutMs)];
  const endpoints = resolveEndpoints(target.agentUrl, { mcpUrl: o.mcpUrl, a2aUrl: o.a2aUrl });
  const cardOrigin = o.sendTokenToCardOrigin ? 'allow-with-token' : o.allowCardOrigin ? 'allow' : 'refuse';
  const transports: Transport[] = kinds.map((kind) =>
    createTransport(
      kind,
      {
        agentUrl: target.agentUrl,
        token,
        authToken: o.authToken,
        connectTimeoutMs: DEFAULT_TRANSPORT_LIMITS.connectTimeoutMs,
        totalTimeoutMs,
        maxResponseBytes: DEFAULT_TRANSPORT_LIMITS.maxResponseBytes,
        capture: recorder,
        addressPolicy,
        credentialOrigins: namedUrls(target.agentUrl, { mcpUrl: o.mcpUrl, a2aUrl: o.a2aUrl }),
      },
      endpoints,
      { a2a: { cardOrigin } },
    ),
  );
  if (target.registry && suites.some((s) => s.face === 'registry'))
    transports.push(registryTransport(target.registry, recorder, addressPolicy, totalTimeoutMs));
  return transports;
}

/** The rest column: the registry face under the run's recorder and address policy. */
function registryTransport(registry: RegistryTarget, capture: Recorder, addressPolicy: AddressPolicy, totalTimeoutMs: number): Transport {
  if (registry.apiKey) capture.addSecret(registry.apiKey);
  return new RegistryFaceTransport(registry, {
    capture,
    addressPolicy,
    connectTimeoutMs: DEFAULT_TRANSPORT_LIMITS.connectTimeoutMs,
    totalTimeoutMs,
    maxResponseBytes: DEFAULT_TRANSPORT_LIMITS.maxResponseBytes,
  });
}
