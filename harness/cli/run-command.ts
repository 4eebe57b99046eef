/** `proto-comply run`: certify an agent (or the built-in mock seller) and write the reports. */
import { resolve } from 'node:path';
import { RUN_HELP, UsageError } from './usage.js';
import { parseRunArgs, reproduceCommand, type RunArgs } from './run-args.js';
import { compileCheckGlobs } from '../core/engine/glob.js';
import { EXIT, exitCodeFor } from '../core/engine/summarize.js';
import { AddressPolicy, type LookupFunction } from '../core/net/address-policy.js';
import { refusedHost } from './address-flags.js';
import type { CheckResult, RunResult } from '../core/engine/result.js';
import { Redactor } from '../core/transport/redact.js';
import { boundRun } from '../core/engine/bound.js';
import { DEFAULT_BUDGET_GRACE_MS } from '../core/engine/run.js';
import { oneLine } from '../../reports/text.js';
import { writeReportsSafely } from './run-failure.js';
import { causeOf, errorRun, type RunFrame } from '../core/engine/error-run.js';
import { namedUrls, resolveEndpoints, TransportConfigError } from '../core/transport/index.js';
import { certify, runTargetOf, shapeOf, suitesFor, UnknownSuiteError, type RunTarget } from '../certify/index.js';
import type { SuiteDef } from '../core/engine/model.js';
import type { SuiteCatalog } from '../core/engine/loader.js';
import { loadStoryboardBundle, StoryboardBundleError } from '../core/storyboards/load.js';
import { compileStoryboards } from '../core/storyboards/compile.js';
import { chooseSchemaSet, responseSchemasInfo, type SchemaSetChoice } from '../core/schemas/schema-set/choose.js';
import { SchemaSetError } from '../core/schemas/schema-set/read.js';
import { DEFAULT_TARGET } from '../core/protocol/lines.js';
import { createProgress, renderSummary } from '../../reports/console.js';
import { renderAgentComplianceJson } from '../../reports/json.js';
import { loadRunBaseline } from './run-baseline.js';
import { BUILTIN_MOCK_CONCURRENCY, startBuiltinMocks, type BuiltinMocks } from './builtin-mocks.js';
import { MOCKS_ON_THREAD, startBuiltinMocksThread } from './builtin-mocks-thread.js';
import { applyBaseline } from '../baseline/apply.js';
import { FixturesError, loadFixtures, type Fixtures } from '../core/fixtures/fixtures.js';
import type { ReceiverTarget } from '../core/engine/resources.js';
import { targetInfo } from '../core/engine/run-result.js';
import { startRunSender } from './receiver-flags.js';

/** Test seams of `run` (the resolver, so names map to addresses without DNS). */
export interface RunDeps {
  lookup?: LookupFunction;
}

export async function runCommand(argv: string[], deps: RunDeps = {}): Promise<number> {
  const args = parseRunArgs(argv);
  if (args === 'help') {
    process.stdout.write(`${RUN_HELP}\n`);
    return 0;
  }
  const builtin = builtinMocksOf(args);
  try {
    return await runParsed(args, deps, builtin);
  } finally {
    // Mocks started early that the run never took over (it stopped at a usage error first).
    if (builtin?.started && !builtin.taken)
      await builtin.start().then(
        (m) => m.close(),
        () => undefined,
      );
  }
}

/** The built-in mocks of a run that names no target, and whether they started and were taken over. */
interface BuiltinMocksStart {
  start(): Promise<BuiltinMocks>;
  started: boolean;
  taken: boolean;
  /** Prints the log lines held so far, and from then on each line as it comes. */
  flush(): void;
}

/**
 * Without an agent, receiver or registry named: the built-in mocks. On their own thread (from
 * the bundle) they start at once and come up while this thread loads and validates the suites,
 * their log lines held back until the run takes them over; in this thread, when the run needs them.
 */
function builtinMocksOf(args: RunArgs): BuiltinMocksStart | undefined {
  try {
    if (runTargetOf({ agentUrl: args.agent, receiverUrl: args.receiver?.url, receiver: args.receiver, registry: args.registry })) return undefined;
  } catch {
    return undefined; // the same call in runParsed reports it
  }
  const held: string[] = [];
  let flushed = false;
  let mocks: Promise<BuiltinMocks> | undefined;
  const self: BuiltinMocksStart = {
    started: false,
    taken: false,
    start() {
      self.started = true;
      mocks ??= (MOCKS_ON_THREAD ? startBuiltinMocksThread : startBuiltinMocks)({
        token: args.token,
        ...(args.target ? { target: args.target } : {}),
        withBuyer: true,
        withRegistry: true,
        log: (line) => (flushed ? process.stderr.write(`${line}\n`) : held.push(line)),
      });
      return mocks;
    },
    flush() {
      flushed = true;
      for (const line of held.splice(0)) process.stderr.write(`${line}\n`);
    },
  };
  if (MOCKS_ON_THREAD) self.start().catch(() => undefined); // awaited where the run takes them over
  return self;
}

async function runParsed(args: RunArgs, deps: RunDeps, builtin: BuiltinMocksStart | undefined): Promise<number> {
  // What the run certifies, decided by the library (harness/certify/run-target.ts); nothing
  // named: the built-in mocks, an agent with a receiver and a registry.
  let named: RunTarget | undefined;
  let suites: SuiteDef[];
  let catalog: SuiteCatalog | undefined;
  let schemaSet: SchemaSetChoice | undefined;
  try {
    // --storyboards: the bundle's storyboards, compiled into suites, run instead of the built-in ones.
    const bundle = args.storyboards ? loadStoryboardBundle(args.storyboards) : undefined;
    catalog = bundle ? compileStoryboards(bundle) : undefined;
    // --schemas, or the released schemas beside the bundle.
    schemaSet = chooseSchemaSet({ dir: args.schemas, ...(bundle ? { bundle: { root: bundle.root, version: bundle.version } } : {}) });
    named = runTargetOf({ agentUrl: args.agent, receiverUrl: args.receiver?.url, receiver: args.receiver, registry: args.registry });
    suites = suitesFor(named ? shapeOf(named) : { kind: 'agent', registry: true }, args.suites, catalog);
  } catch (e) {
    if (e instanceof UnknownSuiteError || e instanceof TransportConfigError) throw new UsageError(`run: ${e.message}`);
    if (e instanceof StoryboardBundleError) throw new UsageError(`run: --storyboards: ${e.message}`);
    if (e instanceof SchemaSetError) throw new UsageError(`run: --schemas: ${e.message}`);
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

  const responseSchemas = schemaSet ? responseSchemasInfo(schemaSet, args.target ?? DEFAULT_TARGET) : undefined;
  if (responseSchemas) process.stderr.write(`proto-comply: response schemas: ${responseSchemas.note}\n`);

  // Without --agent: the built-in mock seller and mock buyer (harness/cli/builtin-mocks.ts).
  let stopMocks: (() => Promise<void>) | undefined;
  let authToken = args.authToken;
  let agentUrl: string | undefined = args.agent;
  let builtinReceiver: ReceiverTarget | undefined;
  let registry = args.registry;
  if (!named) {
    // builtinMocksOf's (the same options name no target there); the run's to stop from here on.
    builtin!.taken = true;
    builtin!.flush();
    const mocks = await builtin!.start();
    stopMocks = () => mocks.close();
    agentUrl = mocks.agentUrl;
    authToken = mocks.authToken;
    builtinReceiver = mocks.receiver;
    registry = mocks.registry;
  }

  // The harness's webhook sender identity, started first so its brand URL is known (and printed).
  const sender = args.receiver ? await startRunSender(args.receiver, args.token, (line) => process.stderr.write(`${line}\n`)) : undefined;
  const receiver = sender?.target ?? builtinReceiver;
  const addressPolicy = new AddressPolicy({ denyPrivate: args.denyPrivate, allowHosts: args.allowHosts, lookup: deps.lookup, connectTo: args.connectTo });

  try {
    const urls = [
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
    const refused = await refusedHost(addressPolicy, urls);
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
      target: targetInfo(args.target, undefined, responseSchemas),
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
        ...(catalog ? { catalog } : {}),
        ...(schemaSet ? { schemaSet } : {}),
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
    // The built-in mocks have answered every check: they stop while the reports are written.
    const stopping = stopMocks?.();
    stopping?.catch(() => undefined); // awaited below, where the run ends
    if (stopping) stopMocks = () => stopping;
    if (stray.length > 0 && run.harness_error === undefined) {
      const cause = `unhandled error during the run: ${stray.join('; ')}`;
      run = { ...run, overall_status: 'error', harness_error: cause, headline: `harness error: ${cause}`, coverage: { ...run.coverage, complete: false } };
    }
    run = boundRun(redactor.value(run));

    const saved = await writeReportsSafely(run, frame, {
      dir: resolve(args.out),
      allureDir: args.allure ? resolve(args.allure) : undefined,
      formats: args.formats,
    });
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
