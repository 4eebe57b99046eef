/**
 * `proto-comply registry serve|probe`: the registry's Agent Compliance backend (harness/compliance-service/).
 * `serve` keeps a fleet of agents probed on a schedule behind a REST API (SQLite by default);
 * `probe` certifies a list of agents once and writes one report per agent and an index.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { RunResult } from '../core/engine/result.js';
import { registryStatus } from '../../reports/compliance-detail.js';
import { oneLine } from '../../reports/text.js';
import { AgentListError, probeFleet, readAgentList } from '../compliance-service/fleet-probe.js';
import { DEFAULT_PROBE_BUDGET_S, type ProbeSettings } from '../compliance-service/probe.js';
import { failingChecksOf, rootFailingChecksOf } from '../compliance-service/run-summary.js';
import { DEFAULT_INTERVAL_MS } from '../compliance-service/scheduler.js';
import { startRegistryService } from '../compliance-service/service.js';
import { SqliteRegistryStore } from '../compliance-service/sqlite-store.js';
import { PostgresRegistryStore } from '../compliance-service/postgres-store.js';
import { ProbeQueue, startProducer, startWorker, type WorkerOptions } from '../compliance-service/pg-queue.js';
import type { RegistryStore } from '../compliance-service/types.js';
import { hostname } from 'node:os';
import { allowHostFlags } from './address-flags.js';
import { FlagError, parsePortFlag, waitForStop } from '../core/cli-kit/serve.js';
import { writeReportsSafely } from './run-failure.js';
import { pickSuites } from '../certify/index.js';
import { UsageError } from './usage.js';
import { startReferenceSeller } from './builtin-mocks.js';
import { type MemberKey, memberKeyOf } from '../compliance-service/http/callers.js';
import { BadgeKeyFileError, badgeKeyPathBeside } from '../compliance-service/badge-tokens/index.js';
import type { NamedReference } from '../compliance-service/reference-agent.js';
import { agentUrlOf } from '../compliance-service/agent-input.js';
import { loadStoryboardBundle, StoryboardBundleError } from '../core/storyboards/load.js';
import { compileStoryboards } from '../core/storyboards/compile.js';
import { chooseSchemaSet } from '../core/schemas/schema-set/choose.js';
import { SchemaSetError } from '../core/schemas/schema-set/read.js';
import { type AgentTransportKind, TRANSPORT_KINDS } from '../core/transport/types.js';

export const REGISTRY_HELP = `usage: proto-comply registry serve [--port N] [--host H] [--db FILE | --postgres URL] [--workers N] [--per-host K]
                               [--interval-s N] [--budget-s N] [--api-key K]... [--member-key NAME=KEY]...
                               [--allow-host H]... [--suite S]... [--storyboards DIR [--schemas DIR]]
                               [--reference-agent URL [--reference-transport T,...]]
       proto-comply registry worker --postgres URL [--concurrency N] [--interval-s N] [--budget-s N] [--allow-host H]... [--suite S]...
                               [--storyboards DIR [--schemas DIR]]
       proto-comply registry probe --agents FILE [--concurrency N] [--per-host K] [--out DIR]
                               [--budget-s N] [--allow-host H]... [--suite S]...

serve   the Agent Compliance backend: a REST API (register agents with an API key, read their
        status, history, latest report, change feed and badge) and a scheduler probing every
        agent at most once per --interval-s, --workers at once, at most --per-host on one host,
        retrying unreachable agents with backoff. State is one SQLite file (--db); a run
        interrupted by a crash is redone, never recorded as a pass.
        With --postgres URL the state lives in PostgreSQL and probes are jobs of a pg-boss queue:
        serve sends them (at most --per-host per host, --max-in-flight in all) and runs --workers
        of them itself (0: none); any number of "registry worker" processes on any machine take the
        rest. A worker that dies mid-probe loses nothing: its job is retried once it expires.
worker  take probe jobs from the PostgreSQL queue (--concurrency at once) until SIGINT/SIGTERM.
probe   certify every agent of FILE once (a JSON array of URLs or {url, transports, token,
        auth_token} objects, or one URL per line), printing progress and a summary table,
        writing one report directory per agent and index.json / index.md in --out.

Private and reserved addresses are always refused; --allow-host lets a host, address or CIDR
block through (e.g. --allow-host 127.0.0.0/8 for local agents).

  --port N          port of the API (default 8080; 0: any free port)
  --host H          address of the API (default 127.0.0.1)
  --db FILE         the SQLite file (default registry.sqlite)
  --postgres URL    a PostgreSQL database instead (postgres://user:pw@host:port/db; or env PROTO_COMPLY_REGISTRY_POSTGRES)
  --max-in-flight N (serve --postgres) probe jobs sent and not finished, in all (default 64)
  --job-expire-s N  (--postgres) seconds after which the job of a worker that died is retried
                    (default --budget-s + 45; must exceed the longest probe)
  --workers N       probes at once (default 4)
  --per-host K      probes at once on one host (default 2)
  --interval-s N    minimum seconds between two probes of one agent (default 60)
  --budget-s N      budget of one probe in seconds (default ${DEFAULT_PROBE_BUDGET_S})
  --api-key K       an operator key: registers, removes and manages any agent, sees owner-only fields
                    (repeatable; or env PROTO_COMPLY_REGISTRY_API_KEY)
  --public-url URL  (serve) the service's public base URL, used in badge links and as the badge token issuer
                    (default: where it listens)
  --badge-keys FILE (serve) the badge-token signing keys (created owner-only on first start; default
                    badge-keys.json beside --db, or in the working directory with --postgres); one
                    serve process owns it
  --badge-grace-h N (serve) hours a badge stays "degraded" after the agent stops passing before it is
                    revoked (default 72)
  --member-key NAME=KEY  a member's key: registers and manages the member's own agents (owner NAME),
                    reads members-only data (repeatable)
  --suite S         suites to run (repeatable or comma-separated; default all; with --storyboards,
                    compiled storyboards: storyboard.<id>)
  --storyboards DIR a storyboard bundle (its index.json directory) or one storyboard file: every probe
                    runs its storyboards, compiled, instead of the built-in suites (as run --storyboards);
                    the storyboard operations (applicable-storyboards, storyboard/{sid}/run|step|compare)
                    then name the bundle's storyboards. Without it: the built-in suites, each a storyboard.
                    Give it to serve and to every worker alike.
  --schemas DIR     the released JSON Schemas to judge replies with (default: those beside the bundle, if any)
  --reference-agent URL  (serve) the reference agent storyboard comparisons run against (default: the built-in
                    mock seller, started on loopback when first needed); exempt from the private-address
                    refusal, being named by the operator
  --reference-transport T  (serve) its transports, mcp and/or a2a (comma-separated; default both)
  --agents FILE     (probe) the agent list
  --concurrency N   (probe, worker) agents at once (default 4)
  --out DIR         (probe) report directory (default fleet-report)

Exit codes (probe): 0 every agent passing, 1 some agent failing, 4 some agent not verified
(degraded or unknown) and none failing, 2 usage error.`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string', default: '127.0.0.1' },
  db: { type: 'string', default: 'registry.sqlite' },
  postgres: { type: 'string' },
  'max-in-flight': { type: 'string', default: '64' },
  'job-expire-s': { type: 'string' },
  workers: { type: 'string', default: '4' },
  'per-host': { type: 'string', default: '2' },
  'interval-s': { type: 'string' },
  'public-url': { type: 'string' },
  'badge-grace-h': { type: 'string' },
  'badge-keys': { type: 'string' },
  'budget-s': { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  'member-key': { type: 'string', multiple: true },
  'allow-host': { type: 'string', multiple: true },
  suite: { type: 'string', multiple: true },
  storyboards: { type: 'string' },
  schemas: { type: 'string' },
  'reference-agent': { type: 'string' },
  'reference-transport': { type: 'string' },
  agents: { type: 'string' },
  concurrency: { type: 'string', default: '4' },
  out: { type: 'string', default: 'fleet-report' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function parseValues(args: string[]) {
  return parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true }).values;
}

type Values = ReturnType<typeof parseValues>;

function positive(name: string, raw: string | undefined, dflt: number, max: number): number {
  if (raw === undefined) return dflt;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
    throw new UsageError(`registry: ${name} must be an integer from 1 to ${max}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function settingsOf(v: { 'budget-s'?: string; 'allow-host'?: string[]; suite?: string[]; storyboards?: string; schemas?: string }): ProbeSettings {
  const suites = (v.suite ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  // --storyboards: the bundle's storyboards, compiled, are probed instead of the built-in suites.
  let storyboards: ProbeSettings['storyboards'];
  let schemaSet: ProbeSettings['schemaSet'];
  try {
    const bundle = v.storyboards ? loadStoryboardBundle(v.storyboards) : undefined;
    storyboards = bundle ? { bundle, catalog: compileStoryboards(bundle) } : undefined;
    schemaSet = chooseSchemaSet({ dir: v.schemas, ...(bundle ? { bundle: { root: bundle.root, version: bundle.version } } : {}) });
  } catch (e) {
    if (e instanceof StoryboardBundleError) throw new UsageError(`registry: --storyboards: ${e.message}`);
    if (e instanceof SchemaSetError) throw new UsageError(`registry: --schemas: ${e.message}`);
    throw e;
  }
  // The suites are loaded now, not at the first probe: a bad --suite or a broken install stops
  // the command at start, and the first probes do not pay for the loading.
  try {
    pickSuites(suites.length ? suites : undefined, storyboards?.catalog);
  } catch (e) {
    throw new UsageError(`registry: ${suites.length ? '--suite: ' : ''}${(e as Error).message}`);
  }
  return {
    budgetS: positive('--budget-s', v['budget-s'], DEFAULT_PROBE_BUDGET_S, 86_400),
    denyPrivate: true,
    allowHosts: allowHostFlags('registry', v['allow-host']),
    ...(suites.length ? { suites } : {}),
    ...(storyboards ? { storyboards } : {}),
    ...(schemaSet ? { schemaSet } : {}),
  };
}

/** `--reference-agent URL [--reference-transport T,...]`. */
function referenceOf(v: Values): NamedReference | undefined {
  if (v['reference-agent'] === undefined) {
    if (v['reference-transport'] !== undefined) throw new UsageError('registry: --reference-transport needs --reference-agent');
    return undefined;
  }
  let url: string;
  try {
    url = agentUrlOf(v['reference-agent']);
  } catch (e) {
    throw new UsageError(`registry: --reference-agent: ${(e as Error).message}`);
  }
  const transports = (v['reference-transport'] ?? 'mcp,a2a').split(',').map((t) => t.trim());
  if (transports.length === 0 || transports.some((t) => !TRANSPORT_KINDS.includes(t as AgentTransportKind)))
    throw new UsageError(`registry: --reference-transport must list ${TRANSPORT_KINDS.join(', ')}`);
  return { url, transports: [...new Set(transports as AgentTransportKind[])] };
}

export async function registryCommand(argv: string[], o: { stop?: AbortSignal } = {}): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(`${REGISTRY_HELP}\n`);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'serve' && sub !== 'probe' && sub !== 'worker')
    throw new UsageError(`registry: expected "serve", "worker" or "probe", got ${JSON.stringify(sub)}`);
  const v = parseValues(rest);
  if (v.help) {
    process.stdout.write(`${REGISTRY_HELP}\n`);
    return 0;
  }
  if (sub === 'worker') return worker(v, o.stop);
  return sub === 'serve' ? serve(v, o.stop) : probe(v);
}

async function serve(v: Values, stop?: AbortSignal): Promise<number> {
  const settings = settingsOf(v);
  const referenceAgent = referenceOf(v);
  const keys = [...(v['api-key'] ?? []), ...(process.env.PROTO_COMPLY_REGISTRY_API_KEY ? [process.env.PROTO_COMPLY_REGISTRY_API_KEY] : [])];
  if (keys.some((k) => k.length < 16)) throw new UsageError('registry: an API key must have at least 16 characters');
  let memberKeys: MemberKey[];
  try {
    memberKeys = (v['member-key'] ?? []).map(memberKeyOf);
  } catch (e) {
    throw new UsageError(`registry: ${(e as Error).message}`);
  }
  let port: number;
  try {
    port = parsePortFlag(v.port ?? '8080') ?? 8080;
  } catch (e) {
    if (e instanceof FlagError) throw new UsageError(`registry: ${e.message}`);
    throw e;
  }
  const workers = Number(v.workers) === 0 ? 0 : positive('--workers', v.workers, 4, 256);
  const perHost = positive('--per-host', v['per-host'], 2, 256);
  const intervalMs = positive('--interval-s', v['interval-s'], DEFAULT_INTERVAL_MS / 1000, 604_800) * 1000;
  const badgeGraceMs = positive('--badge-grace-h', v['badge-grace-h'], 72, 8_760) * 3_600_000;
  const publicUrl = v['public-url'];
  if (publicUrl !== undefined && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(publicUrl))
    throw new UsageError(`registry: --public-url must be an http(s) base URL without query or fragment, not ${JSON.stringify(publicUrl.slice(0, 100))}`);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  const postgres = postgresUrl(v);
  const maxInFlight = positive('--max-in-flight', v['max-in-flight'], 64, 100_000);
  let store: RegistryStore;
  let pg: { queue: ProbeQueue; producer: { stop(): void; wake(): void } } | undefined;
  if (postgres) {
    const opened = await openPostgres(postgres, settings.budgetS, v['job-expire-s']);
    store = opened.store;
    pg = {
      queue: opened.queue,
      producer: startProducer({
        store: opened.store,
        queue: opened.queue,
        perHost,
        maxInFlight,
        onError: (e) => err(`registry: ${oneLine(e instanceof Error ? e.message : String(e), 300)}`),
      }),
    };
    if (workers > 0) await startWorker(workerOptions(opened, workers, settings, intervalMs, err));
  } else {
    try {
      store = new SqliteRegistryStore(resolve(v.db));
    } catch (e) {
      throw new UsageError(`registry: cannot open ${v.db}: ${oneLine((e as Error).message, 200)}`);
    }
  }
  const service = await startRegistryService({
    store,
    host: v.host,
    port,
    apiKeys: keys,
    memberKeys,
    badgeGraceMs,
    badgeKeysPath: resolve(v['badge-keys'] ?? (postgres ? 'badge-keys.json' : badgeKeyPathBeside(resolve(v.db)))),
    ...(publicUrl ? { publicUrl } : {}),
    // With Postgres the queue's workers probe; the in-process scheduler is the SQLite mode's.
    workers: pg ? 0 : workers,
    perHost,
    intervalMs,
    settings,
    ...(referenceAgent ? { referenceAgent } : { startReferenceSeller }),
    onRegistered: () => pg?.producer.wake(),
    onRun: (agent, r) => err(`probed ${agent.url}: ${registryStatus(r.overall_status)} (${r.overall_status}) ${oneLine(r.headline, 160)}`),
    onError: (e) => err(`registry: ${oneLine(e instanceof Error ? e.message : String(e), 300)}`),
  }).catch(async (e: unknown) => {
    pg?.producer.stop();
    await pg?.queue.stop();
    await store.close();
    if (e instanceof BadgeKeyFileError) throw new UsageError(`registry: ${oneLine(e.message, 300)}`);
    throw new UsageError(`registry: cannot listen on ${v.host}:${port}: ${(e as Error).message}`);
  });
  if (service.recovered) err(`${service.recovered} run(s) interrupted by a previous stop will be redone`);
  err(
    `registry listening on ${service.url} (${postgres ? 'postgres' : `db ${resolve(v.db)}`}, ${workers} workers, ${perHost} per host, every ${intervalMs / 1000} s)`,
  );
  if (!keys.length && !memberKeys.length) err('no API key given (--api-key or PROTO_COMPLY_REGISTRY_API_KEY): registering agents is refused');
  await waitForStop(stop);
  pg?.producer.stop();
  await service.close();
  await pg?.queue.stop();
  await store.close();
  return 0;
}

function postgresUrl(v: Values): string | undefined {
  const url = v.postgres ?? process.env.PROTO_COMPLY_REGISTRY_POSTGRES;
  if (url === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//.test(url) || !URL.canParse(url)) throw new UsageError('registry: --postgres must be a postgres:// URL');
  return url;
}

async function openPostgres(url: string, budgetS: number, expireRaw: string | undefined): Promise<{ store: PostgresRegistryStore; queue: ProbeQueue }> {
  const expireInSeconds = expireRaw === undefined ? undefined : positive('--job-expire-s', expireRaw, 60, 86_400);
  if (expireInSeconds !== undefined && expireInSeconds <= budgetS)
    throw new UsageError(`registry: --job-expire-s (${expireInSeconds}) must exceed --budget-s (${budgetS}), or live probes would be retried`);
  // Where the password may be: never echo the URL.
  const where = new URL(url).host;
  let store: PostgresRegistryStore | undefined;
  try {
    store = await PostgresRegistryStore.open(url);
    return { store, queue: await ProbeQueue.open({ url, budgetS, ...(expireInSeconds ? { expireInSeconds } : {}) }) };
  } catch (e) {
    await store?.close();
    throw new UsageError(`registry: cannot use the PostgreSQL database at ${where}: ${oneLine((e as Error).message ?? String(e), 200)}`);
  }
}

function workerOptions(
  pg: { store: PostgresRegistryStore; queue: ProbeQueue },
  concurrency: number,
  settings: ProbeSettings,
  intervalMs: number,
  err: (line: string) => void,
): WorkerOptions {
  return {
    ...pg,
    concurrency,
    settings,
    intervalMs,
    runner: `${hostname()}:${process.pid}`,
    onStart: (agent) => err(`probing ${agent.url}`),
    onRun: (agent, r) => err(`probed ${agent.url}: ${registryStatus(r.overall_status)} (${r.overall_status}) ${oneLine(r.headline, 160)}`),
    onError: (e) => err(`registry worker: ${oneLine(e instanceof Error ? e.message : String(e), 300)}`),
  };
}

async function worker(v: Values, stop?: AbortSignal): Promise<number> {
  const url = postgresUrl(v);
  if (!url) throw new UsageError('registry worker: --postgres URL is required (the queue and the store it shares)');
  const settings = settingsOf(v);
  const concurrency = positive('--concurrency', v.concurrency, 4, 256);
  const intervalMs = positive('--interval-s', v['interval-s'], DEFAULT_INTERVAL_MS / 1000, 604_800) * 1000;
  const err = (line: string) => process.stderr.write(`${line}\n`);
  const pg = await openPostgres(url, settings.budgetS, v['job-expire-s']);
  await startWorker(workerOptions(pg, concurrency, settings, intervalMs, err));
  err(`registry worker ${hostname()}:${process.pid} taking probe jobs from ${new URL(url).host} (${concurrency} at once)`);
  await waitForStop(stop);
  await pg.queue.stop();
  await pg.store.close();
  return 0;
}

function dirName(i: number, url: string): string {
  const u = new URL(url);
  return `${String(i + 1).padStart(4, '0')}-${`${u.hostname}-${u.port || (u.protocol === 'https:' ? '443' : '80')}`.replace(/[^A-Za-z0-9.-]/g, '_')}`;
}

async function probe(v: Values): Promise<number> {
  if (!v.agents) throw new UsageError('registry probe: --agents FILE is required');
  const settings = settingsOf(v);
  const concurrency = positive('--concurrency', v.concurrency, 4, 256);
  const perHost = positive('--per-host', v['per-host'], 2, 256);
  let agents: Awaited<ReturnType<typeof readAgentList>>;
  try {
    agents = await readAgentList(v.agents);
  } catch (e) {
    if (e instanceof AgentListError) throw new UsageError(`registry probe: ${e.message}`);
    throw e;
  }
  const out = resolve(v.out);
  await mkdir(out, { recursive: true });
  const tty = process.stderr.isTTY === true;
  let done = 0;
  const started = Date.now();
  const bar = (last: string): void => {
    const width = 30;
    const filled = Math.round((done / agents.length) * width);
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${agents.length} ${last}`;
    process.stderr.write(tty ? `\r\x1b[2K${line.slice(0, (process.stderr.columns ?? 100) - 1)}` : `${line}\n`);
  };
  const written = new Map<number, string>();
  const results = await probeFleet(agents, {
    concurrency,
    perHost,
    settings,
    onDone: (i, r) => {
      done++;
      bar(`${agents[i]!.url}: ${registryStatus(r.overall_status)}`);
    },
  });
  if (tty) process.stderr.write('\n');
  for (const [i, r] of results.entries()) {
    const dir = join(out, dirName(i, agents[i]!.url));
    const saved = await writeReportsSafely(r, frameOf(r), { dir });
    if (saved.writeError) process.stderr.write(`proto-comply: ${agents[i]!.url}: ${saved.writeError}\n`);
    written.set(i, dir);
  }
  const rows = results.map((r, i) => ({
    agent_url: agents[i]!.url,
    status: registryStatus(r.overall_status),
    overall_status: r.overall_status,
    headline: r.headline,
    failing_checks: failingChecksOf(r),
    root_failing_checks: rootFailingChecksOf(r),
    duration_ms: Math.round(r.duration_ms),
    report_dir: written.get(i)!.slice(out.length + 1),
  }));
  await writeFile(join(out, 'index.json'), `${JSON.stringify({ generated_at: new Date().toISOString(), agents: rows }, null, 2)}\n`);
  const md = [
    '| Agent | Status | Failing checks | Report |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${mdCell(r.agent_url)} | ${r.status} | ${mdCell(r.failing_checks.join(', ') || '-')} | ${mdCell(r.report_dir)}/report.html |`),
  ];
  await writeFile(join(out, 'index.md'), `${md.join('\n')}\n`);
  const w = Math.min(60, Math.max(...rows.map((r) => r.agent_url.length)));
  process.stdout.write(`${'agent'.padEnd(w)}  ${'status'.padEnd(8)}  first failing check / headline\n`);
  for (const r of rows)
    process.stdout.write(
      `${oneLine(r.agent_url, w).padEnd(w)}  ${r.status.padEnd(8)}  ${oneLine(r.root_failing_checks[0] ?? r.failing_checks[0] ?? r.headline, 100)}\n`,
    );
  const count = (s: string) => rows.filter((r) => r.status === s).length;
  process.stdout.write(
    `\n${rows.length} agents in ${((Date.now() - started) / 1000).toFixed(1)} s: ${count('passing')} passing, ${count('degraded')} degraded, ${count('failing')} failing, ${count('unknown')} unknown\nindex: ${join(out, 'index.json')}\n`,
  );
  if (count('failing')) return 1;
  return count('passing') === rows.length ? 0 : 4;
}

function mdCell(s: string): string {
  return oneLine(s, 300).replace(/[|\\`*_[\]<>]/g, (c) => `\\${c}`);
}

function frameOf(r: RunResult) {
  return {
    agentUrl: r.agent_url,
    token: r.token,
    transports: r.transports,
    seed: r.seed,
    command: r.command,
    suites: [],
    strict: r.selection.strict,
    startedAt: new Date(r.started_at),
    target: r.target,
  };
}
