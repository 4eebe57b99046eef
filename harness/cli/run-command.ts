/** `proto-comply run`: certify an agent (or the built-in mock seller) and write the reports. */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { RUN_HELP, UsageError } from './usage.js';
import { protocolIds, TokenError, DEFAULT_TOKEN } from '../core/token.js';
import { isValidSeed, newSeed } from '../core/engine/rng.js';
import { compileCheckGlobs } from '../core/engine/glob.js';
import { EXIT, exitCodeFor } from '../core/engine/summarize.js';
import { AddressPolicy, type LookupFunction } from '../core/net/address-policy.js';
import { allowHostFlags, refusedHost } from './address-flags.js';
import type { CheckResult, RunResult } from '../core/engine/result.js';
import { Redactor } from '../core/transport/redact.js';
import { boundRun } from '../core/engine/bound.js';
import { DEFAULT_BUDGET_GRACE_MS } from '../core/engine/run.js';
import { oneLine } from '../../reports/text.js';
import { causeOf, errorRun, writeReportsSafely, type RunFrame } from './run-failure.js';
import { namedUrls, resolveEndpoints, TransportConfigError, DEFAULT_TRANSPORT_LIMITS, type AgentTransportKind } from '../core/transport/index.js';
import { certify, pickSuites, UnknownSuiteError } from '../certify/certify.js';
import { createProgress, renderSummary } from '../../reports/console.js';
import { renderAgentComplianceJson } from '../../reports/json.js';
import { loadRunBaseline } from './run-baseline.js';
import { BUILTIN_MOCK_CONCURRENCY, startBuiltinMocks } from './builtin-mocks.js';
import { applyBaseline } from '../baseline/apply.js';
import { FixturesError, loadFixtures, type Fixtures } from '../core/fixtures/fixtures.js';
import type { ReceiverTarget } from '../core/engine/resources.js';
import { receiverOnlySuites } from '../core/webhooks/receiver-probe/run.js';
import { type RegistryTarget, registryTargetOf } from '../core/registry-face/target.js';
import { parseTargetFlag } from './target-flag.js';
import { isLifecycleStage, LIFECYCLE_STAGES, type LifecycleStage } from '../core/engine/lifecycle.js';
import type { ProtocolLine } from '../core/protocol/lines.js';
import { targetInfo } from '../core/engine/run-envelope.js';
import { RECEIVER_RUN_OPTIONS, ReceiverFlagError, receiverFromFlags, receiverReproduceFlags, startRunSender } from '../core/webhooks/receiver-probe/cli.js';

const OPTIONS = {
  agent: { type: 'string' },
  'mcp-url': { type: 'string' },
  'a2a-url': { type: 'string' },
  transport: { type: 'string', default: 'both' },
  suite: { type: 'string' },
  check: { type: 'string' },
  token: { type: 'string', default: DEFAULT_TOKEN },
  target: { type: 'string' },
  'lifecycle-stage': { type: 'string' },
  'auth-token': { type: 'string' },
  out: { type: 'string', default: 'compliance-report' },
  'budget-s': { type: 'string' },
  seed: { type: 'string' },
  concurrency: { type: 'string' },
  'timeout-s': { type: 'string', default: String(DEFAULT_TRANSPORT_LIMITS.totalTimeoutMs / 1000) },
  strict: { type: 'boolean', default: false },
  'allow-gaps': { type: 'boolean', default: false },
  'require-full-coverage': { type: 'boolean', default: false },
  baseline: { type: 'string' },
  fixtures: { type: 'string' },
  allure: { type: 'string' },
  json: { type: 'boolean', default: false },
  'deny-private': { type: 'boolean', default: false },
  'allow-host': { type: 'string', multiple: true },
  'allow-card-origin': { type: 'boolean', default: false },
  'send-token-to-card-origin': { type: 'boolean', default: false },
  registry: { type: 'string' },
  'api-key': { type: 'string' },
  publisher: { type: 'string' },
  adagents: { type: 'string' },
  brand: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
  ...RECEIVER_RUN_OPTIONS,
} as const;

export interface RunArgs {
  agent?: string;
  mcpUrl?: string;
  a2aUrl?: string;
  transports: AgentTransportKind[];
  transportExplicit: boolean;
  suites?: string[];
  check?: string;
  token: string;
  /** The protocol line to judge against (`--target`); absent: the default, the newest released line. */
  target?: ProtocolLine;
  /** The agent's lifecycle stage as the user knows it (`--lifecycle-stage`); absent: inferred. */
  lifecycleStage?: LifecycleStage;
  authToken?: string;
  out: string;
  budgetS?: number;
  seed: string;
  /** Absent: certify's DEFAULT_CONCURRENCY, or BUILTIN_MOCK_CONCURRENCY against the built-in mocks. */
  concurrency?: number;
  timeoutS: number;
  strict: boolean;
  /** Coverage gaps (an optional feature the agent lacks by design) leave the exit code at 0. */
  allowGaps: boolean;
  /** Incomplete coverage fails the run (exit 1). */
  requireFullCoverage: boolean;
  /** Expected-failures baseline file (issue 6). */
  baseline?: string;
  /** Agent-specific setup values (harness/core/fixtures/fixtures.ts). */
  fixtures?: string;
  /** Allure results directory (default `<out>/allure-results`). */
  allure?: string;
  json: boolean;
  /** A buyer's webhook receiver to certify (`--receiver` and its options). */
  receiver?: ReceiverTarget;
  /** Refuse reserved addresses for every connection (`--deny-private`). */
  denyPrivate: boolean;
  /** Hosts, addresses and CIDR blocks let through under --deny-private (`--allow-host`, repeatable). */
  allowHosts: string[];
  /** Use an agent card url on another origin (`--allow-card-origin`), without the token unless `sendTokenToCardOrigin`. */
  allowCardOrigin: boolean;
  sendTokenToCardOrigin: boolean;
  /** The registry face to certify (`--registry URL`, `--api-key K` or $PROTO_COMPLY_REGISTRY_API_KEY). */
  registry?: RegistryTarget;
}

/** Test seams of `run` (the resolver, so names map to addresses without DNS). */
export interface RunDeps {
  lookup?: LookupFunction;
}

function positiveNumber(flag: string, raw: string | undefined, integer: boolean): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`run: --${flag} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

export function parseRunArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): RunArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true });
  } catch (e) {
    throw new UsageError(`run: ${(e as Error).message.split('\n')[0]}`);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  const transport = v.transport;
  if (!['mcp', 'a2a', 'both'].includes(transport)) throw new UsageError(`run: --transport must be mcp, a2a or both, got ${JSON.stringify(transport)}`);
  try {
    protocolIds(v.token);
  } catch (e) {
    if (e instanceof TokenError) throw new UsageError(`run: --token: ${e.message}`);
    throw e;
  }
  if (v.seed !== undefined && !isValidSeed(v.seed))
    throw new UsageError(`run: --seed must be a non-negative integer of at most 16 digits, got ${JSON.stringify(v.seed)}`);
  if (v.check !== undefined) {
    try {
      compileCheckGlobs(v.check);
    } catch (e) {
      throw new UsageError(`run: --check: ${(e as Error).message}`);
    }
  }
  const suites = v.suite
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (v.suite !== undefined && !suites?.length) throw new UsageError('run: --suite needs at least one suite id');
  if (v['allow-gaps'] && v['require-full-coverage']) throw new UsageError('run: --allow-gaps and --require-full-coverage exclude each other');
  const allowHosts = allowHostFlags('run', v['allow-host']);
  if (v.publisher !== undefined && v.adagents !== undefined) throw new UsageError('run: --publisher and --adagents name the same file: give one');
  let receiver: ReceiverTarget | undefined;
  let registry: RegistryTarget | undefined;
  try {
    receiver = receiverFromFlags(v, env);
    registry = registryTargetOf({
      url: v.registry,
      apiKey: v['api-key'] ?? (v.registry ? env.PROTO_COMPLY_REGISTRY_API_KEY || undefined : undefined),
      adagentsUrl: v.publisher ?? v.adagents,
      brandUrl: v.brand,
    });
  } catch (e) {
    if (e instanceof ReceiverFlagError || e instanceof TransportConfigError) throw new UsageError(`run: ${e.message}`);
    throw e;
  }
  if (registry && receiver && !v.agent)
    throw new UsageError('run: --registry and --receiver without --agent: run the registry on its own, or name the agent too');
  return {
    agent: v.agent,
    mcpUrl: v['mcp-url'],
    a2aUrl: v['a2a-url'],
    transports: transport === 'both' ? ['mcp', 'a2a'] : [transport as AgentTransportKind],
    transportExplicit: transport !== 'both',
    suites,
    check: v.check,
    token: v.token,
    target: parseTargetFlag('run', v.target),
    lifecycleStage: lifecycleStageFlag(v['lifecycle-stage']),
    authToken: v['auth-token'] ?? (env.PROTO_COMPLY_AUTH_TOKEN || undefined),
    out: v.out,
    budgetS: positiveNumber('budget-s', v['budget-s'], false),
    seed: v.seed ?? newSeed(),
    concurrency: positiveNumber('concurrency', v.concurrency, true),
    timeoutS: positiveNumber('timeout-s', v['timeout-s'], false) ?? 30,
    strict: v.strict,
    allowGaps: v['allow-gaps'],
    requireFullCoverage: v['require-full-coverage'],
    baseline: v.baseline,
    fixtures: v.fixtures,
    allure: v.allure,
    json: v.json,
    receiver,
    ...(registry ? { registry } : {}),
    denyPrivate: v['deny-private'],
    allowHosts,
    allowCardOrigin: v['allow-card-origin'] || v['send-token-to-card-origin'],
    sendTokenToCardOrigin: v['send-token-to-card-origin'],
  };
}

/** `--lifecycle-stage`: one of the registry's stages (digest 6.3), or a usage error naming them. */
function lifecycleStageFlag(raw: string | undefined): LifecycleStage | undefined {
  if (raw === undefined) return undefined;
  if (!isLifecycleStage(raw)) throw new UsageError(`run: --lifecycle-stage must be one of ${LIFECYCLE_STAGES.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw;
}

/** The command line that reproduces a run (never the bearer token). */
export function reproduceCommand(a: RunArgs): string {
  const parts = ['npx proto-comply run'];
  if (a.agent) parts.push(`--agent ${shellQuote(a.agent)}`);
  if (a.mcpUrl) parts.push(`--mcp-url ${shellQuote(a.mcpUrl)}`);
  if (a.a2aUrl) parts.push(`--a2a-url ${shellQuote(a.a2aUrl)}`);
  if (a.transportExplicit) parts.push(`--transport ${a.transports[0]}`);
  if (a.suites) parts.push(`--suite ${shellQuote(a.suites.join(','))}`);
  if (a.check) parts.push(`--check ${shellQuote(a.check)}`);
  if (a.token !== DEFAULT_TOKEN) parts.push(`--token ${a.token}`);
  if (a.target) parts.push(`--target ${a.target}`);
  if (a.lifecycleStage) parts.push(`--lifecycle-stage ${a.lifecycleStage}`);
  if (a.authToken && a.agent) parts.push('--auth-token "$PROTO_COMPLY_AUTH_TOKEN"');
  if (a.budgetS !== undefined) parts.push(`--budget-s ${a.budgetS}`);
  if (a.strict) parts.push('--strict');
  if (a.allowGaps) parts.push('--allow-gaps');
  if (a.requireFullCoverage) parts.push('--require-full-coverage');
  if (a.baseline) parts.push(`--baseline ${shellQuote(a.baseline)}`);
  if (a.fixtures) parts.push(`--fixtures ${shellQuote(a.fixtures)}`);
  if (a.denyPrivate) parts.push('--deny-private');
  for (const h of a.allowHosts) parts.push(`--allow-host ${shellQuote(h)}`);
  if (a.sendTokenToCardOrigin) parts.push('--send-token-to-card-origin');
  else if (a.allowCardOrigin) parts.push('--allow-card-origin');
  parts.push(...receiverReproduceFlags(a.receiver, shellQuote));
  if (a.registry?.url) parts.push(`--registry ${shellQuote(a.registry.url)}`);
  if (a.registry?.apiKey) parts.push('--api-key "$PROTO_COMPLY_REGISTRY_API_KEY"');
  if (a.registry?.adagentsUrl) parts.push(`--publisher ${shellQuote(a.registry.adagentsUrl)}`);
  if (a.registry?.brandUrl) parts.push(`--brand ${shellQuote(a.registry.brandUrl)}`);
  parts.push(`--seed ${a.seed}`);
  return parts.join(' ');
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:,*?=@%+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

export async function runCommand(argv: string[], deps: RunDeps = {}): Promise<number> {
  const args = parseRunArgs(argv);
  if (args === 'help') {
    process.stdout.write(`${RUN_HELP}\n`);
    return 0;
  }
  // --receiver without --agent: a receiver-only run (only suites that need no agent).
  const receiverOnly = args.receiver !== undefined && args.agent === undefined;
  // --registry without --agent: a registry-only run (the registry suites, on the rest column).
  const registryOnly = args.registry !== undefined && args.agent === undefined && !receiverOnly;
  let suites;
  try {
    suites = pickSuites(receiverOnly ? receiverOnlySuites(args.suites) : args.suites);
    if (registryOnly) suites = suites.filter((s) => s.face === 'registry');
    const registryNamed = suites.filter((s) => s.face === 'registry' && args.suites?.includes(s.id));
    if (args.agent && !args.registry && registryNamed.length > 0)
      throw new TransportConfigError(
        `the ${registryNamed[0]!.id} suite certifies the registry face: give --registry URL, --publisher DOMAIN|URL or --brand DOMAIN|URL`,
      );
    if (registryOnly && suites.length === 0)
      throw new UnknownSuiteError(
        'a registry-face run (--registry, --publisher or --brand without --agent) runs only the registry and discovery suites; none is selected',
      );
  } catch (e) {
    if (e instanceof UnknownSuiteError || e instanceof TransportConfigError) throw new UsageError(`run: ${e.message}`);
    throw e;
  }
  if (args.check) {
    const match = compileCheckGlobs(args.check);
    if (!suites.some((s) => s.checks.some((c) => match(c.id)))) throw new UsageError(`run: --check ${JSON.stringify(args.check)} selects no check`);
  }
  // A bad baseline or fixtures file is a usage error, found before any agent is called.
  const baseline = args.baseline ? await loadRunBaseline(args.baseline) : undefined;
  let fixtures: Fixtures | undefined;
  try {
    fixtures = args.fixtures ? loadFixtures(args.fixtures) : undefined;
  } catch (e) {
    if (e instanceof FixturesError) throw new UsageError(`run: --${e.message}`);
    throw e;
  }
  if (args.agent) {
    try {
      resolveEndpoints(args.agent, { mcpUrl: args.mcpUrl, a2aUrl: args.a2aUrl });
    } catch (e) {
      if (e instanceof TransportConfigError) throw new UsageError(`run: ${e.message}`);
      throw e;
    }
  }

  // Without --agent: the built-in mock seller and mock buyer (harness/cli/builtin-mocks.ts).
  let stopMocks: (() => Promise<void>) | undefined;
  let authToken = args.authToken;
  let agentUrl: string | undefined = args.agent;
  let builtinReceiver: ReceiverTarget | undefined;
  let registry = args.registry;
  if (!args.agent && !receiverOnly && !registryOnly) {
    const mocks = await startBuiltinMocks({
      token: args.token,
      ...(args.target ? { target: args.target } : {}),
      withBuyer: args.receiver === undefined,
      withRegistry: args.registry === undefined,
      log: (line) => process.stderr.write(`${line}\n`),
    });
    stopMocks = () => mocks.close();
    agentUrl = mocks.agentUrl;
    authToken = mocks.authToken;
    builtinReceiver = mocks.receiver;
    registry ??= mocks.registry;
  }

  // The harness's webhook sender identity, started first so its brand URL is known (and printed).
  const sender = args.receiver ? await startRunSender(args.receiver, args.token, (line) => process.stderr.write(`${line}\n`)) : undefined;
  const receiver = sender?.target ?? builtinReceiver;
  const addressPolicy = new AddressPolicy({ denyPrivate: args.denyPrivate, allowHosts: args.allowHosts, lookup: deps.lookup });

  try {
    const named = [
      ...(agentUrl ? namedUrls(agentUrl, { mcpUrl: args.mcpUrl, a2aUrl: args.a2aUrl }) : []),
      ...[
        receiver?.url,
        receiver?.stateUrl,
        receiver?.altUrl,
        receiver?.hmac?.url,
        receiver?.bearer?.url,
        registry?.url,
        registry?.adagentsUrl,
        registry?.brandUrl,
      ].filter((u): u is string => u !== undefined),
    ];
    const refused = await refusedHost(addressPolicy, named);
    if (refused) {
      process.stderr.write(`proto-comply: ${refused}\n`);
      return EXIT.unreachable;
    }
    const progressOut = args.json ? process.stderr : process.stdout;
    let progress: ReturnType<typeof createProgress> | undefined;
    // Every secret the run knows is redacted from everything printed or written, progress lines included.
    const redactor = new Redactor([authToken, registry?.apiKey, receiver?.hmac?.secret, receiver?.bearer?.secret].filter((s): s is string => s !== undefined));
    const finished: CheckResult[] = [];
    const frame: RunFrame = {
      agentUrl: agentUrl ?? receiver?.url ?? registry?.url ?? '',
      token: args.token,
      transports: args.transports,
      seed: args.seed,
      command: reproduceCommand(args),
      suites,
      strict: args.strict,
      budgetS: args.budgetS,
      startedAt: new Date(),
      target: targetInfo(args.target),
    };
    // A rejection or exception nothing handled, while the run is under way, is a harness error of the run, not a crash.
    const stray: string[] = [];
    const onStray = (e: unknown): void => {
      if (stray.length < 5) stray.push(causeOf(e));
    };
    process.on('unhandledRejection', onStray);
    process.on('uncaughtException', onStray);
    let run: RunResult;
    try {
      const certified: RunResult = await certify({
        agentUrl,
        mcpUrl: args.mcpUrl,
        a2aUrl: args.a2aUrl,
        transports: args.transports,
        transportExplicit: args.transportExplicit,
        suites,
        checkGlob: args.check,
        token: args.token,
        target: args.target,
        lifecycleStage: args.lifecycleStage,
        authToken,
        seed: args.seed,
        budgetS: args.budgetS,
        // Checks that ignore the budget are given up once a call could no longer be running.
        budgetGraceMs: Math.min(DEFAULT_BUDGET_GRACE_MS, args.timeoutS * 1000 + 2_000),
        // Unset: certify's DEFAULT_CONCURRENCY for an agent URL.
        concurrency: args.concurrency ?? (stopMocks ? BUILTIN_MOCK_CONCURRENCY : undefined),
        timeoutS: args.timeoutS,
        strict: args.strict,
        allowGaps: args.allowGaps,
        requireFullCoverage: args.requireFullCoverage,
        fixtures,
        receiverUrl: receiver?.url,
        receiver,
        ...(registry ? { registry } : {}),
        addressPolicy,
        allowCardOrigin: args.allowCardOrigin,
        sendTokenToCardOrigin: args.sendTokenToCardOrigin,
        command: frame.command,
        redactor,
        onPlanned: (total) => {
          progress = createProgress({ out: progressOut, tty: Boolean((progressOut as NodeJS.WriteStream).isTTY), total, strict: args.strict });
        },
        onCheck: (r) => {
          finished.push(r);
          progress?.onCheck(redactor.value(r));
        },
      });
      run = baseline ? applyBaseline(certified, baseline) : certified;
    } catch (e) {
      run = errorRun(frame, causeOf(e), finished);
    } finally {
      process.off('unhandledRejection', onStray);
      process.off('uncaughtException', onStray);
    }
    progress?.done();
    if (stray.length > 0 && run.harness_error === undefined) {
      const cause = `unhandled error during the run: ${stray.join('; ')}`;
      run = { ...run, overall_status: 'error', harness_error: cause, headline: `harness error: ${cause}`, coverage: { ...run.coverage, complete: false } };
    }
    run = boundRun(redactor.value(run));

    const saved = await writeReportsSafely(run, frame, { dir: resolve(args.out), allureDir: args.allure ? resolve(args.allure) : undefined });
    run = saved.run;
    let summary: string;
    try {
      summary = redactor.text(renderSummary(run, { written: saved.written }));
    } catch (e) {
      summary = `proto-comply: the summary could not be rendered: ${oneLine(redactor.text(causeOf(e)), 400)}`;
    }
    if (args.json) {
      process.stderr.write(`${summary}\n`);
      let json: string;
      try {
        json = renderAgentComplianceJson(run);
      } catch (e) {
        json = JSON.stringify({ overall_status: 'error', harness_error: causeOf(e) });
      }
      process.stdout.write(`${redactor.text(json)}\n`);
    } else {
      process.stdout.write(`${summary}\n`);
    }
    if (saved.writeError) process.stderr.write(`proto-comply: ${oneLine(redactor.text(saved.writeError), 400)}\n`);
    if (run.overall_status === 'unreachable' || run.overall_status === 'auth_required' || run.harness_error !== undefined) {
      process.stderr.write(`proto-comply: ${oneLine(redactor.text(run.headline), 400)}\n`);
    }
    return exitCodeFor(run);
  } finally {
    await stopMocks?.();
    await sender?.sender.close();
  }
}
