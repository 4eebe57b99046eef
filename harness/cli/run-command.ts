/** `proto-comply run`: certify an agent (or the built-in mock seller) and write the reports. */
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { RUN_HELP, UsageError } from './usage.js';
import { protocolIds, TokenError, DEFAULT_TOKEN } from '../token.js';
import { isValidSeed, newSeed } from '../engine/rng.js';
import { compileCheckGlobs } from '../engine/glob.js';
import { exitCodeFor } from '../engine/summarize.js';
import type { RunResult } from '../engine/result.js';
import { resolveEndpoints, TransportConfigError, DEFAULT_TRANSPORT_LIMITS, type TransportKind } from '../transport/index.js';
import { certify, pickSuites, UnknownSuiteError } from '../certify.js';
import { createProgress, renderSummary } from '../../reports/console.js';
import { writeReports } from '../../reports/index.js';
import { renderAgentComplianceJson } from '../../reports/json.js';

const OPTIONS = {
  agent: { type: 'string' },
  'mcp-url': { type: 'string' },
  'a2a-url': { type: 'string' },
  transport: { type: 'string', default: 'both' },
  suite: { type: 'string' },
  check: { type: 'string' },
  token: { type: 'string', default: DEFAULT_TOKEN },
  'auth-token': { type: 'string' },
  out: { type: 'string', default: 'compliance-report' },
  'budget-s': { type: 'string' },
  seed: { type: 'string' },
  concurrency: { type: 'string', default: '4' },
  'timeout-s': { type: 'string', default: String(DEFAULT_TRANSPORT_LIMITS.totalTimeoutMs / 1000) },
  strict: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export interface RunArgs {
  agent?: string;
  mcpUrl?: string;
  a2aUrl?: string;
  transports: TransportKind[];
  transportExplicit: boolean;
  suites?: string[];
  check?: string;
  token: string;
  authToken?: string;
  out: string;
  budgetS?: number;
  seed: string;
  concurrency: number;
  timeoutS: number;
  strict: boolean;
  json: boolean;
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
  if (v.seed !== undefined && !isValidSeed(v.seed)) throw new UsageError(`run: --seed must be a non-negative integer of at most 16 digits, got ${JSON.stringify(v.seed)}`);
  if (v.check !== undefined) {
    try {
      compileCheckGlobs(v.check);
    } catch (e) {
      throw new UsageError(`run: --check: ${(e as Error).message}`);
    }
  }
  const suites = v.suite?.split(',').map((s) => s.trim()).filter(Boolean);
  if (v.suite !== undefined && !suites?.length) throw new UsageError('run: --suite needs at least one suite id');
  return {
    agent: v.agent,
    mcpUrl: v['mcp-url'],
    a2aUrl: v['a2a-url'],
    transports: transport === 'both' ? ['mcp', 'a2a'] : [transport as TransportKind],
    transportExplicit: transport !== 'both',
    suites,
    check: v.check,
    token: v.token,
    authToken: v['auth-token'] ?? (env.PROTO_COMPLY_AUTH_TOKEN || undefined),
    out: v.out,
    budgetS: positiveNumber('budget-s', v['budget-s'], false),
    seed: v.seed ?? newSeed(),
    concurrency: positiveNumber('concurrency', v.concurrency, true) ?? 4,
    timeoutS: positiveNumber('timeout-s', v['timeout-s'], false) ?? 30,
    strict: v.strict,
    json: v.json,
  };
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
  if (a.authToken && a.agent) parts.push('--auth-token "$PROTO_COMPLY_AUTH_TOKEN"');
  if (a.budgetS !== undefined) parts.push(`--budget-s ${a.budgetS}`);
  if (a.strict) parts.push('--strict');
  parts.push(`--seed ${a.seed}`);
  return parts.join(' ');
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:,*?=@%+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

export async function runCommand(argv: string[]): Promise<number> {
  const args = parseRunArgs(argv);
  if (args === 'help') {
    process.stdout.write(RUN_HELP + '\n');
    return 0;
  }
  let suites;
  try {
    suites = pickSuites(args.suites);
  } catch (e) {
    if (e instanceof UnknownSuiteError) throw new UsageError(`run: ${e.message}`);
    throw e;
  }
  if (args.check) {
    const match = compileCheckGlobs(args.check);
    if (!suites.some((s) => s.checks.some((c) => match(c.id)))) throw new UsageError(`run: --check ${JSON.stringify(args.check)} selects no check`);
  }
  if (args.agent) {
    try {
      resolveEndpoints(args.agent, { mcpUrl: args.mcpUrl, a2aUrl: args.a2aUrl });
    } catch (e) {
      if (e instanceof TransportConfigError) throw new UsageError(`run: ${e.message}`);
      throw e;
    }
  }

  // Without --agent: the built-in mock seller, with a fresh bearer token so the auth checks run.
  let stopMock: (() => Promise<void>) | undefined;
  let authToken = args.authToken;
  let agentUrl: string;
  if (args.agent) {
    agentUrl = args.agent;
  } else {
    const { startMockSeller } = await import('../../mocks/seller/index.js');
    authToken = randomBytes(24).toString('base64url');
    const mock = await startMockSeller({ token: args.token, authToken });
    stopMock = () => mock.close();
    agentUrl = mock.baseUrl;
    process.stderr.write(`proto-comply: certifying the built-in mock seller at ${mock.baseUrl}\n`);
  }

  try {
    const progressOut = args.json ? process.stderr : process.stdout;
    let progress: ReturnType<typeof createProgress> | undefined;
    const run: RunResult = await certify({
      agentUrl,
      mcpUrl: args.mcpUrl,
      a2aUrl: args.a2aUrl,
      transports: args.transports,
      transportExplicit: args.transportExplicit,
      suites,
      checkGlob: args.check,
      token: args.token,
      authToken,
      seed: args.seed,
      budgetS: args.budgetS,
      concurrency: args.concurrency,
      timeoutS: args.timeoutS,
      strict: args.strict,
      command: reproduceCommand(args),
      onPlanned: (total) => {
        progress = createProgress({ out: progressOut, tty: Boolean((progressOut as NodeJS.WriteStream).isTTY), total, strict: args.strict });
      },
      onCheck: (r) => progress?.onCheck(r),
    });
    progress?.done();

    const written = await writeReports(run, { dir: resolve(args.out) });
    const summary = renderSummary(run, { written });
    if (args.json) {
      process.stderr.write(summary + '\n');
      process.stdout.write(renderAgentComplianceJson(run) + '\n');
    } else {
      process.stdout.write(summary + '\n');
    }
    if (run.overall_status === 'unreachable' || run.overall_status === 'auth_required') {
      process.stderr.write(`proto-comply: ${run.headline}\n`);
    }
    return exitCodeFor(run, args.strict);
  } finally {
    await stopMock?.();
  }
}
