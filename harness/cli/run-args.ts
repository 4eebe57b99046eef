/** The flags of `proto-comply run`: parsed and checked into RunArgs, and the command line that reproduces a run. */
import { parseArgs } from 'node:util';
import { UsageError } from './usage.js';
import { protocolIds, TokenError, DEFAULT_TOKEN } from '../core/token.js';
import { isValidSeed, newSeed } from '../core/engine/rng.js';
import { compileCheckGlobs } from '../core/engine/glob.js';
import { allowHostFlags, connectToFlags } from './address-flags.js';
import type { ConnectTo } from '../core/net/connect-to.js';
import { TransportConfigError, DEFAULT_TRANSPORT_LIMITS, type AgentTransportKind } from '../core/transport/index.js';
import type { ReceiverTarget } from '../core/engine/resources.js';
import { type RegistryTarget, registryTargetOf } from '../core/registry-face/target.js';
import { parseTargetFlag } from './target-flag.js';
import { isLifecycleStage, LIFECYCLE_STAGES, type LifecycleStage } from '../core/engine/lifecycle.js';
import type { ProtocolLine } from '../core/protocol/lines.js';
import { RECEIVER_RUN_OPTIONS, ReceiverFlagError, receiverFromFlags, receiverReproduceFlags } from './receiver-flags.js';
import { DEFAULT_REPORT_FORMATS, REPORT_FORMATS, type ReportFormat } from '../../reports/index.js';

const OPTIONS = {
  agent: { type: 'string' },
  'mcp-url': { type: 'string' },
  'a2a-url': { type: 'string' },
  transport: { type: 'string', default: 'both' },
  suite: { type: 'string' },
  storyboards: { type: 'string' },
  schemas: { type: 'string' },
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
  format: { type: 'string' },
  json: { type: 'boolean', default: false },
  'deny-private': { type: 'boolean', default: false },
  'allow-host': { type: 'string', multiple: true },
  'connect-to': { type: 'string', multiple: true },
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
  /** A storyboard bundle directory or one storyboard file (`--storyboards`): its storyboards run instead of the built-in suites. */
  storyboards?: string;
  /** A directory of one protocol line's released JSON Schemas (`--schemas`): judged with where its line is the target. */
  schemas?: string;
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
  /** The report formats to write (`--format`); default DEFAULT_REPORT_FORMATS, and runner-output with --storyboards. */
  formats: ReportFormat[];
  json: boolean;
  /** A buyer's webhook receiver to certify (`--receiver` and its options). */
  receiver?: ReceiverTarget;
  /** Refuse reserved addresses for every connection (`--deny-private`). */
  denyPrivate: boolean;
  /** Hosts, addresses and CIDR blocks let through under --deny-private (`--allow-host`, repeatable). */
  allowHosts: string[];
  /** `--connect-to HOST:PORT:CONNECT_HOST:CONNECT_PORT` (repeatable): where connections to HOST:PORT really go. */
  connectTo: ConnectTo[];
  /** The `--connect-to` values as given (for the reproduce command). */
  connectToFlags: string[];
  /** Use an agent card url on another origin (`--allow-card-origin`), without the token unless `sendTokenToCardOrigin`. */
  allowCardOrigin: boolean;
  sendTokenToCardOrigin: boolean;
  /** The registry face to certify (`--registry URL`, `--api-key K` or $PROTO_COMPLY_REGISTRY_API_KEY). */
  registry?: RegistryTarget;
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
  const connectTo = connectToFlags('run', v['connect-to']);
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
  const formats = formatsFlag(v.format, v.storyboards !== undefined);
  if (registry && receiver && !v.agent)
    throw new UsageError('run: --registry and --receiver without --agent: run the registry on its own, or name the agent too');
  return {
    agent: v.agent,
    mcpUrl: v['mcp-url'],
    a2aUrl: v['a2a-url'],
    transports: transport === 'both' ? ['mcp', 'a2a'] : [transport as AgentTransportKind],
    transportExplicit: transport !== 'both',
    suites,
    ...(v.storyboards !== undefined ? { storyboards: v.storyboards } : {}),
    ...(v.schemas !== undefined ? { schemas: v.schemas } : {}),
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
    formats,
    json: v.json,
    receiver,
    ...(registry ? { registry } : {}),
    denyPrivate: v['deny-private'],
    allowHosts,
    connectTo,
    connectToFlags: v['connect-to'] ?? [],
    allowCardOrigin: v['allow-card-origin'] || v['send-token-to-card-origin'],
    sendTokenToCardOrigin: v['send-token-to-card-origin'],
  };
}

/**
 * `--format F[,F…]`: the report formats to write. `runner-output` renders storyboard steps, so it
 * needs --storyboards: asked for without them it is a usage error, before any agent is called.
 */
function formatsFlag(raw: string | undefined, storyboards: boolean): ReportFormat[] {
  if (raw === undefined) return [...DEFAULT_REPORT_FORMATS, ...(storyboards ? (['runner-output'] as const) : [])];
  const names = [...new Set(raw.split(',').map((f) => f.trim()))].filter(Boolean);
  if (names.length === 0) throw new UsageError('run: --format needs at least one format');
  const unknown = names.find((f) => !(REPORT_FORMATS as readonly string[]).includes(f));
  if (unknown !== undefined) throw new UsageError(`run: --format must name formats of ${REPORT_FORMATS.join(', ')}, got ${JSON.stringify(unknown)}`);
  if (names.includes('runner-output') && !storyboards)
    throw new UsageError('run: --format runner-output needs --storyboards: the runner output contract reports the steps of a storyboard run');
  return names as ReportFormat[];
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
  if (a.storyboards) parts.push(`--storyboards ${shellQuote(a.storyboards)}`);
  if (a.schemas) parts.push(`--schemas ${shellQuote(a.schemas)}`);
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
  for (const c of a.connectToFlags) parts.push(`--connect-to ${shellQuote(c)}`);
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
