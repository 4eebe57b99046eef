/** `proto-comply fuzz`: property-based fuzzing of an agent (harness/fuzz), reports as for `run`, and `--replay`. */
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { UsageError } from './usage.js';
import { FUZZ_HELP } from './fuzz-usage.js';
import { protocolIds, TokenError, DEFAULT_TOKEN } from '../core/token.js';
import { EXIT, exitCodeFor } from '../core/engine/summarize.js';
import { AddressPolicy } from '../core/net/address-policy.js';
import { allowHostFlags, refusedHost } from './address-flags.js';
import { namedUrls, resolveEndpoints, TransportConfigError, type TransportKind } from '../core/transport/index.js';
import { FixturesError, loadFixtures, type Fixtures } from '../core/fixtures/fixtures.js';
import { startBuiltinMocks } from './builtin-mocks.js';
import { writeReportsSafely } from './run-failure.js';
import type { RunFrame } from '../core/engine/error-run.js';
import { renderSummary } from '../../reports/console.js';
import { createFuzzProgress, type FuzzProgress } from '../../reports/fuzz-progress.js';
import { renderAgentComplianceJson, AGENT_COMPLIANCE_FILE } from '../../reports/json.js';
import { readComplianceReport } from './read-report.js';
import { runFuzz } from '../fuzz/run.js';
import { interpretationLookup } from '../certify/index.js';
import { FUZZ_PROPERTIES } from '../fuzz/properties/index.js';
import type { FuzzEvidence } from '../fuzz/report.js';
import { parseSentCalls, type SentCall } from '../fuzz/wire-log.js';
import { parseTargetFlag } from './target-flag.js';
import type { ProtocolLine } from '../core/protocol/lines.js';
import type { RunResult } from '../core/engine/result.js';

const OPTIONS = {
  agent: { type: 'string' },
  'mcp-url': { type: 'string' },
  'a2a-url': { type: 'string' },
  transport: { type: 'string', default: 'both' },
  token: { type: 'string', default: DEFAULT_TOKEN },
  target: { type: 'string' },
  'auth-token': { type: 'string' },
  fixtures: { type: 'string' },
  seed: { type: 'string' },
  runs: { type: 'string', default: '100' },
  'budget-s': { type: 'string' },
  'timeout-s': { type: 'string', default: '10' },
  task: { type: 'string' },
  out: { type: 'string', default: 'fuzz-report' },
  json: { type: 'boolean', default: false },
  replay: { type: 'string' },
  'deny-private': { type: 'boolean', default: false },
  'allow-host': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const MAX_SEED = 2_147_483_647;

export interface FuzzArgs {
  agent?: string;
  mcpUrl?: string;
  a2aUrl?: string;
  transports: TransportKind[];
  transportExplicit: boolean;
  token: string;
  /** The protocol line judged against (`--target`; a replay takes its report's). */
  target?: ProtocolLine;
  authToken?: string;
  fixtures?: string;
  seed: number;
  seedGiven: boolean;
  runs: number;
  budgetS?: number;
  timeoutS: number;
  tasks?: string[];
  out: string;
  json: boolean;
  replay?: { report: string; checkId: string; transport?: TransportKind };
  /** Refuse reserved addresses for every connection (`--deny-private`), but for `--allow-host`s. */
  denyPrivate: boolean;
  allowHosts: string[];
}

function positive(flag: string, raw: string | undefined, integer: boolean): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`fuzz: --${flag} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

export function parseFuzzArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): FuzzArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true });
  } catch (e) {
    throw new UsageError(`fuzz: ${(e as Error).message.split('\n')[0]}`);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  if (!['mcp', 'a2a', 'both'].includes(v.transport)) throw new UsageError(`fuzz: --transport must be mcp, a2a or both, got ${JSON.stringify(v.transport)}`);
  try {
    protocolIds(v.token);
  } catch (e) {
    if (e instanceof TokenError) throw new UsageError(`fuzz: --token: ${e.message}`);
    throw e;
  }
  let seed = Math.floor(Math.random() * MAX_SEED);
  if (v.seed !== undefined) {
    if (!/^\d{1,10}$/.test(v.seed) || Number(v.seed) > MAX_SEED)
      throw new UsageError(`fuzz: --seed must be an integer of 0..${MAX_SEED}, got ${JSON.stringify(v.seed)}`);
    seed = Number(v.seed);
  }
  const known = new Set(FUZZ_PROPERTIES.flatMap((p) => p.tasks ?? []));
  // The capabilities task by its name on the wire too (get_<token>_capabilities).
  const tasks = v.task
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => (t === protocolIds(v.token).capabilitiesTask ? 'capabilities' : t));
  if (v.task !== undefined && !tasks?.length) throw new UsageError('fuzz: --task needs at least one task name');
  const unknown = tasks?.filter((t) => !known.has(t)) ?? [];
  if (unknown.length)
    throw new UsageError(`fuzz: --task: unknown task ${unknown.map((t) => JSON.stringify(t)).join(', ')} (fuzzed tasks: ${[...known].join(', ')})`);
  let replay: FuzzArgs['replay'];
  if (v.replay !== undefined) {
    const m = /^(.+)#([a-z0-9_.-]+?)(?:@(mcp|a2a))?$/.exec(v.replay);
    if (!m) throw new UsageError(`fuzz: --replay must be REPORT#CHECK_ID[@mcp|@a2a], got ${JSON.stringify(v.replay)}`);
    replay = { report: m[1], checkId: m[2], transport: m[3] as TransportKind | undefined };
  }
  const allowHosts = allowHostFlags('fuzz', v['allow-host']);
  if (v.agent) {
    try {
      resolveEndpoints(v.agent, { mcpUrl: v['mcp-url'], a2aUrl: v['a2a-url'] });
    } catch (e) {
      if (e instanceof TransportConfigError) throw new UsageError(`fuzz: ${e.message}`);
      throw e;
    }
  }
  return {
    agent: v.agent,
    mcpUrl: v['mcp-url'],
    a2aUrl: v['a2a-url'],
    transports: v.transport === 'both' ? ['mcp', 'a2a'] : [v.transport as TransportKind],
    transportExplicit: v.transport !== 'both',
    token: v.token,
    target: parseTargetFlag('fuzz', v.target),
    authToken: v['auth-token'] ?? (env.PROTO_COMPLY_AUTH_TOKEN || undefined),
    fixtures: v.fixtures,
    seed,
    seedGiven: v.seed !== undefined,
    runs: positive('runs', v.runs, true) ?? 100,
    budgetS: positive('budget-s', v['budget-s'], false),
    timeoutS: positive('timeout-s', v['timeout-s'], false) ?? 10,
    tasks,
    out: v.out,
    json: v.json,
    replay,
    denyPrivate: v['deny-private'],
    allowHosts,
  };
}

function q(s: string): string {
  return /^[A-Za-z0-9_./:,=@%+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

export function fuzzReproduceCommand(a: FuzzArgs): string {
  const parts = ['npx proto-comply fuzz'];
  if (a.agent) parts.push(`--agent ${q(a.agent)}`);
  if (a.mcpUrl) parts.push(`--mcp-url ${q(a.mcpUrl)}`);
  if (a.a2aUrl) parts.push(`--a2a-url ${q(a.a2aUrl)}`);
  if (a.transportExplicit) parts.push(`--transport ${a.transports[0]}`);
  if (a.token !== DEFAULT_TOKEN) parts.push(`--token ${a.token}`);
  if (a.target) parts.push(`--target ${a.target}`);
  if (a.authToken && a.agent) parts.push('--auth-token "$PROTO_COMPLY_AUTH_TOKEN"');
  if (a.fixtures) parts.push(`--fixtures ${q(a.fixtures)}`);
  if (a.tasks) parts.push(`--task ${q(a.tasks.join(','))}`);
  if (a.budgetS !== undefined) parts.push(`--budget-s ${a.budgetS}`);
  if (a.denyPrivate) parts.push('--deny-private');
  for (const h of a.allowHosts) parts.push(`--allow-host ${q(h)}`);
  parts.push(`--runs ${a.runs}`, `--seed ${a.seed}`);
  return parts.join(' ');
}

/** What `--replay` takes from the report: the agent, the transport, the seed and path of the check. */
async function replayTarget(a: FuzzArgs): Promise<{
  run: RunResult;
  transport: TransportKind;
  seed: number;
  path: string;
  runs: number;
  builtin: boolean;
  sent?: SentCall[];
}> {
  const r = a.replay as NonNullable<FuzzArgs['replay']>;
  const run = await readComplianceReport(r.report, 'fuzz --replay');
  const check = run.checks.find(
    (c) =>
      c.check_id === r.checkId && (r.transport === undefined || c.transport === r.transport) && (c.evidence?.actual as FuzzEvidence | undefined)?.fuzz?.path,
  );
  if (!check)
    throw new UsageError(`fuzz --replay: ${r.report} has no failing fuzz check ${r.checkId}${r.transport ? ` on ${r.transport}` : ''} with a counterexample`);
  const fz = (check.evidence?.actual as FuzzEvidence | undefined)?.fuzz as FuzzEvidence['fuzz'];
  const sent = parseSentCalls(fz.sent);
  return { run, transport: check.transport, seed: fz.seed, path: fz.path, runs: fz.runs, builtin: !/\s--agent\s/.test(run.command), ...(sent ? { sent } : {}) };
}

export async function fuzzCommand(argv: string[]): Promise<number> {
  const args = parseFuzzArgs(argv);
  if (args === 'help') {
    process.stdout.write(`${FUZZ_HELP}\n`);
    return 0;
  }
  let fixtures: Fixtures | undefined;
  try {
    fixtures = args.fixtures ? loadFixtures(args.fixtures) : undefined;
  } catch (e) {
    if (e instanceof FixturesError) throw new UsageError(`fuzz: --${e.message}`);
    throw e;
  }
  const target = args.replay ? await replayTarget(args) : undefined;
  let agentUrl = args.agent ?? (target && !target.builtin ? target.run.agent_url : undefined);
  let authToken = args.authToken;
  let stopMocks: (() => Promise<void>) | undefined;
  if (!agentUrl) {
    const mocks = await startBuiltinMocks({
      token: args.token,
      ...(args.target ? { target: args.target } : {}),
      withBuyer: false,
      withRegistry: false,
      log: (line) => process.stderr.write(`${line.replace('certifying', 'fuzzing')}\n`),
    });
    stopMocks = () => mocks.close();
    agentUrl = mocks.agentUrl;
    authToken = mocks.authToken;
  }
  // The built-in mock is on loopback, which the user did not name: the policy is for agents they did.
  const addressPolicy = new AddressPolicy({ denyPrivate: args.denyPrivate && !stopMocks, allowHosts: args.allowHosts });
  try {
    const refused = await refusedHost(addressPolicy, namedUrls(agentUrl, { mcpUrl: args.mcpUrl, a2aUrl: args.a2aUrl }));
    if (refused) {
      process.stderr.write(`proto-comply: ${refused}\n`);
      return EXIT.unreachable;
    }
    const out = resolve(args.out);
    const transports = target ? [target.transport] : args.transports;
    const seed = target?.seed ?? args.seed;
    const command = target
      ? `npx proto-comply fuzz --replay ${q(`${args.replay?.report}#${args.replay?.checkId}@${target.transport}`)}`
      : fuzzReproduceCommand(args);
    if (!args.seedGiven && !target) process.stderr.write(`proto-comply: fuzz seed ${seed}\n`);
    if (target)
      process.stderr.write(
        target.sent
          ? `proto-comply: replaying ${args.replay?.checkId}: re-sending the ${target.sent.length} recorded request bod${target.sent.length === 1 ? 'y' : 'ies'} byte for byte\n`
          : `proto-comply: replaying ${args.replay?.checkId} from seed ${seed} and path ${target.path} (the report kept no request bodies)\n`,
      );
    // Progress on stderr: stdout is the summary (or the JSON report).
    const progressOut = process.stderr;
    let progress: FuzzProgress | undefined;
    let run = await runFuzz({
      agentUrl,
      mcpUrl: args.mcpUrl,
      a2aUrl: args.a2aUrl,
      transports,
      token: args.token,
      target: args.target ?? (target?.run.target?.explicit ? target.run.target.requested_compliance_target : undefined),
      authToken,
      fixtures,
      seed,
      runs: target?.runs ?? args.runs,
      budgetS: args.budgetS,
      timeoutS: args.timeoutS,
      tasks: args.tasks,
      properties: FUZZ_PROPERTIES,
      interpretationOf: interpretationLookup(),
      replay: target ? { checkId: args.replay?.checkId as string, path: target.path, ...(target.sent ? { sent: target.sent } : {}) } : undefined,
      reportFile: join(out, AGENT_COMPLIANCE_FILE),
      command,
      addressPolicy,
      onPlanned: (total) => {
        progress = createFuzzProgress({ out: progressOut, tty: Boolean((progressOut as NodeJS.WriteStream).isTTY), total });
      },
      onStart: (id, kind) => progress?.onStart(`${id} (${kind})`),
      onCase: () => progress?.onCase(),
      onCheck: (c) => progress?.onCheck(c),
    });
    progress?.done();
    const frame: RunFrame = {
      agentUrl,
      token: args.token,
      transports,
      seed: String(seed),
      command,
      suites: [],
      strict: false,
      budgetS: args.budgetS,
      startedAt: new Date(run.started_at),
      target: run.target,
    };
    const saved = await writeReportsSafely(run, frame, { dir: out });
    run = saved.run;
    const summary = renderSummary(run, { written: saved.written });
    if (args.json) {
      process.stderr.write(`${summary}\n`);
      process.stdout.write(`${renderAgentComplianceJson(run)}\n`);
    } else process.stdout.write(`${summary}\n`);
    if (saved.writeError) process.stderr.write(`proto-comply: ${saved.writeError}\n`);
    if (target) {
      const again = run.checks.find((c) => c.check_id === args.replay?.checkId);
      process.stderr.write(
        `proto-comply: replay of ${args.replay?.checkId}: ${again?.outcome === 'fail' ? 'still fails' : `does not fail now (${again?.outcome ?? 'not run'})`}\n`,
      );
    }
    return exitCodeFor(run);
  } finally {
    await stopMocks?.();
  }
}
