/**
 * The library entry point: certify one agent and get the canonical RunResult. The CLI's `run`,
 * the self-tests and a registry probing many agents all go through here.
 */
import { DEFAULT_TOKEN } from '../core/token.js';
import { DEFAULT_TARGET, type ProtocolLine } from '../core/protocol/lines.js';
import { newSeed } from '../core/engine/rng.js';
import { factPublishersOf, type SuiteCatalog } from '../core/engine/loader.js';
import { builtinSuites } from '../../suites/index.js';
import type { Fixtures } from '../core/fixtures/fixtures.js';
import { executeRun } from '../core/engine/run.js';
import type { LifecycleStage } from '../core/engine/lifecycle.js';
import type { SuiteDef } from '../core/engine/model.js';
import type { ReceiverTarget } from '../core/engine/resources.js';
import type { CheckResult, RunResult } from '../core/engine/result.js';
import { AddressPolicy, type LookupFunction } from '../core/net/address-policy.js';
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
import { type RegistryTarget, registryTargetOf } from '../core/registry-face/target.js';
import { RegistryFaceTransport } from '../core/registry-face/transport.js';
import { createSchemaValidator } from '../core/schemas/validator.js';
import { Redactor } from '../core/transport/redact.js';
import { boundRun } from '../core/engine/bound.js';
import { receiverOnlySuites, receiverOnlyTransports, receiverTargetOf, type ReceiverOptions } from '../core/webhooks/receiver-probe/run.js';

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
  suites?: string[] | SuiteDef[];
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
  /** A ready policy (takes precedence over denyPrivate / allowHosts / lookup), e.g. one the caller
   *  already checked the agent's hosts with, so each host is resolved once. */
  addressPolicy?: AddressPolicy;
  /** Use an A2A agent card `url` on an origin the user did not name (default false: A2A is then unusable). */
  allowCardOrigin?: boolean;
  /** Send the bearer token to that card origin too (implies `allowCardOrigin`; default false). */
  sendTokenToCardOrigin?: boolean;
  /** Recorded in the result as the command that reproduces the run. */
  command?: string;
  /** The run's redactor (the CLI shares it to redact progress lines too); default a new one. */
  redactor?: Redactor;
  onPlanned?: (total: number) => void;
  onCheck?: (result: CheckResult) => void;
}

export class UnknownSuiteError extends Error {}

/**
 * The suites to run: all, the ones named, or the given ones; named suites bring along the
 * checks that publish facts they read (setup checks: the account, the product), recursively.
 */
export function pickSuites(selection: CertifyOptions['suites'], catalog: SuiteCatalog = builtinSuites()): SuiteDef[] {
  const all = catalog.suites;
  if (!selection) return all;
  if (selection.length > 0 && typeof selection[0] !== 'string') return selection as SuiteDef[];
  const ids = selection as string[];
  const known = new Set(all.map((s) => s.id));
  const unknown = ids.filter((s) => !known.has(s));
  if (unknown.length) {
    throw new UnknownSuiteError(`unknown suite ${unknown.map((s) => JSON.stringify(s)).join(', ')} (suites: ${[...known].join(', ')})`);
  }
  // Of the suites not named, only the checks publishing facts the named ones read (recursively).
  const byId = new Map(all.flatMap((s) => s.checks.map((c) => [c.id, c] as const)));
  const needed = new Set<string>();
  const need = (id: string) => {
    if (needed.has(id)) return;
    needed.add(id);
    for (const p of factPublishersOf(byId.get(id)!, catalog.kinds)) need(p);
  };
  for (const s of all) if (ids.includes(s.id)) for (const c of s.checks) for (const p of factPublishersOf(c, catalog.kinds)) need(p);
  return all.map((s) => (ids.includes(s.id) ? s : { ...s, checks: s.checks.filter((c) => needed.has(c.id)) })).filter((s) => s.checks.length > 0);
}

/** Throws TransportConfigError for unusable URLs and UnknownSuiteError for unknown suites. */
export async function certify(o: CertifyOptions): Promise<RunResult> {
  const token = o.token ?? DEFAULT_TOKEN;
  const receiver = receiverTargetOf(o.receiverUrl, o.receiver);
  const registry = registryTargetOf(o.registry);
  if (o.agentUrl === undefined) {
    if (receiver) {
      if (registry) throw new TransportConfigError('a receiver-only run certifies no registry: give --agent too, or run the registry on its own');
      return certifyReceiverOnly(o, receiver, token);
    }
    if (registry) return certifyRegistryOnly(o, registry, token);
    throw new TransportConfigError('an agent URL (or, for a receiver-only run, a receiver URL; for a registry-only run, a registry URL) is required');
  }
  const agentUrl = o.agentUrl;
  const catalog = o.catalog ?? builtinSuites();
  const picked = pickSuites(o.suites, catalog);
  // The registry face is certified only when the run names one (it has its own rest column).
  const suites = registry ? picked : picked.filter((s) => s.face !== 'registry');
  const named = (o.suites ?? []).filter((x): x is string => typeof x === 'string');
  if (!registry && picked.some((s) => s.face === 'registry' && named.includes(s.id)))
    throw new TransportConfigError(
      'the registry and discovery suites certify the registry face: give --registry URL, --publisher DOMAIN|URL or --brand DOMAIN|URL',
    );
  const endpoints = resolveEndpoints(o.agentUrl, { mcpUrl: o.mcpUrl, a2aUrl: o.a2aUrl });
  const addressPolicy = addressPolicyOf(o);
  const cardOrigin = o.sendTokenToCardOrigin ? 'allow-with-token' : o.allowCardOrigin ? 'allow' : 'refuse';
  const redactor = o.redactor ?? new Redactor();
  const recorder = createRecorder({ token, secrets: o.authToken ? [o.authToken] : [], redactor });
  const transports: Transport[] = (o.transports ?? ['mcp', 'a2a']).map((kind) =>
    createTransport(
      kind,
      {
        agentUrl,
        token,
        authToken: o.authToken,
        connectTimeoutMs: DEFAULT_TRANSPORT_LIMITS.connectTimeoutMs,
        totalTimeoutMs: Math.round((o.timeoutS ?? DEFAULT_TRANSPORT_LIMITS.totalTimeoutMs / 1000) * 1000),
        maxResponseBytes: DEFAULT_TRANSPORT_LIMITS.maxResponseBytes,
        capture: recorder,
        addressPolicy,
        credentialOrigins: namedUrls(agentUrl, { mcpUrl: o.mcpUrl, a2aUrl: o.a2aUrl }),
      },
      endpoints,
      { a2a: { cardOrigin } },
    ),
  );
  if (registry && suites.some((s) => s.face === 'registry')) transports.push(registryTransport(o, registry, recorder, addressPolicy));
  const seed = o.seed ?? newSeed();
  try {
    const run = await executeRun({
      ...planBase(o, token, seed, receiver),
      addressPolicy,
      redactor,
      ...(o.authToken ? { agentCredentials: { token: o.authToken, origins: namedUrls(agentUrl, { mcpUrl: o.mcpUrl, a2aUrl: o.a2aUrl }) } } : {}),
      agentUrl,
      transports,
      suites,
      kinds: catalog.kinds,
      authTokenSet: o.authToken !== undefined,
      command: o.command ?? `npx proto-comply run --agent ${agentUrl} --seed ${seed}`,
    });
    // One redaction pass over the whole result (every secret the run learnt), then the size bounds.
    return boundRun(redactor.value(run));
  } finally {
    await Promise.race([Promise.allSettled(transports.map((t) => t.close())), new Promise((r) => setTimeout(r, 5_000).unref())]);
  }
}

/** The rest column: the registry face under the run's recorder and address policy. */
function registryTransport(o: CertifyOptions, registry: RegistryTarget, capture: Recorder, addressPolicy: AddressPolicy): Transport {
  if (registry.apiKey) capture.addSecret(registry.apiKey);
  return new RegistryFaceTransport(registry, {
    capture,
    addressPolicy,
    connectTimeoutMs: DEFAULT_TRANSPORT_LIMITS.connectTimeoutMs,
    totalTimeoutMs: Math.round((o.timeoutS ?? DEFAULT_TRANSPORT_LIMITS.totalTimeoutMs / 1000) * 1000),
    maxResponseBytes: DEFAULT_TRANSPORT_LIMITS.maxResponseBytes,
  });
}

/** A registry without an agent: only the registry-face suites, on the rest column. */
async function certifyRegistryOnly(o: CertifyOptions, registry: RegistryTarget, token: string): Promise<RunResult> {
  const catalog = o.catalog ?? builtinSuites();
  const suites = pickSuites(o.suites, catalog).filter((s) => s.face === 'registry');
  if (suites.length === 0) throw new UnknownSuiteError('a registry-only run runs the registry suites; none is selected');
  const seed = o.seed ?? newSeed();
  const redactor = o.redactor ?? new Redactor();
  const addressPolicy = addressPolicyOf(o);
  const transports = [registryTransport(o, registry, createRecorder({ token, redactor }), addressPolicy)];
  const where = registry.url ?? registry.adagentsUrl ?? registry.brandUrl ?? '';
  try {
    const run = await executeRun({
      ...planBase(o, token, seed, undefined),
      addressPolicy,
      redactor,
      agentUrl: where,
      transports,
      suites,
      kinds: catalog.kinds,
      authTokenSet: false,
      command: o.command ?? `npx proto-comply run --registry ${where} --seed ${seed}`,
    });
    return boundRun(redactor.value(run));
  } finally {
    await Promise.allSettled(transports.map((t) => t.close()));
  }
}

/** The run's private-address policy: the caller's, or one built from the options. */
export function addressPolicyOf(o: Pick<CertifyOptions, 'addressPolicy' | 'denyPrivate' | 'allowHosts' | 'lookup'>): AddressPolicy {
  return o.addressPolicy ?? new AddressPolicy({ denyPrivate: o.denyPrivate, allowHosts: o.allowHosts, lookup: o.lookup });
}

/** The parts of a run plan that do not depend on what is certified. */
function planBase(o: CertifyOptions, token: string, seed: string, receiver: ReceiverTarget | undefined) {
  return {
    token,
    target: o.target,
    ...(o.lifecycleStage ? { lifecycleStage: o.lifecycleStage } : {}),
    transportExplicit: o.transportExplicit ?? false,
    checkGlob: o.checkGlob,
    seed,
    budgetS: o.budgetS,
    budgetGraceMs: o.budgetGraceMs,
    concurrency: o.concurrency ?? DEFAULT_CONCURRENCY,
    strict: o.strict ?? false,
    allowGaps: o.allowGaps ?? false,
    fixtures: o.fixtures,
    taskArgs: o.fixtures?.tasks,
    requireFullCoverage: o.requireFullCoverage ?? false,
    schemas: createSchemaValidator({ token, target: o.target ?? DEFAULT_TARGET }),
    receiverUrl: receiver?.url,
    receiver,
    onPlanned: o.onPlanned,
    onCheck: o.onCheck,
  };
}

/** A buyer's receiver without an agent: transports stand for the webhook envelopes. */
async function certifyReceiverOnly(o: CertifyOptions, receiver: ReceiverTarget, token: string): Promise<RunResult> {
  const catalog = o.catalog ?? builtinSuites();
  const suites =
    o.suites !== undefined && o.suites.length > 0 && typeof o.suites[0] !== 'string'
      ? (o.suites as SuiteDef[])
      : pickSuites(receiverOnlySuites(o.suites as string[] | undefined), catalog);
  const seed = o.seed ?? newSeed();
  const redactor = o.redactor ?? new Redactor();
  const run = await executeRun({
    ...planBase(o, token, seed, receiver),
    addressPolicy: addressPolicyOf(o),
    redactor,
    agentUrl: receiver.url,
    transports: receiverOnlyTransports(o.transports ?? ['mcp', 'a2a'], receiver),
    suites,
    kinds: catalog.kinds,
    authTokenSet: false,
    command: o.command ?? `npx proto-comply run --receiver ${receiver.url} --seed ${seed}`,
  });
  return boundRun(redactor.value(run));
}
