/** Self-test support: certify a freshly started mock seller (optionally with faults). */
import { randomBytes } from 'node:crypto';
import { certify, type CertifyOptions } from '../../harness/certify/index.js';
import { builtinSuites } from '../index.js';
import type { CheckResult, RunResult } from '../../harness/core/engine/result.js';
import { startMockSeller } from '../../mocks/seller/index.js';
import type { MockSellerOptions } from '../../mocks/seller/options.js';
import type { FaultDef } from '../../mocks/seller/faults.js';

export interface MockRunOptions extends Omit<CertifyOptions, 'agentUrl' | 'authToken'> {
  mock?: MockSellerOptions;
  /** Give the mock a bearer token and the harness the same one (default true). */
  withAuth?: boolean;
  /**
   * Name the mock `http://seller.test` (no port) and reach its loopback port through
   * `--connect-to seller.test:80:127.0.0.1:PORT`: the agent URL of digest 1.6 step 4's probe.
   */
  portless?: boolean;
}

/** The port-less name certifyMock gives the mock with `portless` (a reserved TLD: never resolves). */
export const PORTLESS_HOST = 'seller.test';

export async function certifyMock(o: MockRunOptions = {}): Promise<RunResult> {
  const authToken = o.withAuth === false ? undefined : randomBytes(18).toString('base64url');
  // The mock speaks the run's target line unless the test says otherwise.
  // Named `localhost`, not by IP literal, so the host checks (digest 1.6 step 2) have a host to case.
  const mock = await startMockSeller({
    token: o.token,
    authToken,
    allowPrivateWebhooks: true,
    publicHost: 'localhost',
    ...(o.portless ? { publicOrigin: `http://${PORTLESS_HOST}` } : {}),
    ...(o.target ? { protocolLine: o.target } : {}),
    ...o.mock,
  });
  const connectTo = o.portless ? [{ host: PORTLESS_HOST, port: 80, connectHost: '127.0.0.1', connectPort: Number(new URL(mock.listenUrl).port) }] : undefined;
  try {
    return await certify({ ...o, agentUrl: mock.baseUrl, authToken, seed: o.seed ?? '20261122', ...(connectTo ? { connectTo } : {}) });
  } finally {
    await mock.close();
  }
}

/** Checks that did not pass and were not merely inapplicable. */
export function findings(run: RunResult): CheckResult[] {
  return run.checks.filter((c) => c.outcome !== 'pass' && c.outcome !== 'not_applicable');
}

export function findingIds(run: RunResult, transport?: string): string[] {
  return [
    ...new Set(
      findings(run)
        .filter((c) => !transport || c.transport === transport)
        .map((c) => c.check_id),
    ),
  ].sort();
}

/** What one fault run showed: targets missed on an affected transport, checks failing beyond targets and collateral. */
export interface FaultVerdict {
  caught: boolean;
  missed: string[];
  unexpected: string[];
}

/**
 * Judges a run of every suite against the mock with one fault: each target must fail (a verdict:
 * fail, warn or info, not blocked) on each transport the fault affects, and nothing outside its
 * targets and declared collateral may be a finding (failed, blocked, a gap, an error)
 * (unless the fault breaks the transport itself); a transport it does not affect must be clean.
 */
export function judgeFault(fault: FaultDef, run: RunResult): FaultVerdict {
  const affected = fault.transports ?? ['mcp', 'a2a'];
  const allowed = new Set([...fault.targets, ...(fault.collateral ?? [])]);
  const missed: string[] = [];
  const unexpected: string[] = [];
  const explain = (t: string, id: string) => {
    const c = run.checks.find((x) => x.transport === t && x.check_id === id);
    return `${t} ${id} (${c?.outcome}: ${c?.message})`;
  };
  for (const t of ['mcp', 'a2a'] as const) {
    // A check blocked by a target (or by a declared collateral check) is the cascade the fault is
    // expected to cause, not a finding of its own.
    const found = findings(run)
      .filter((c) => c.transport === t && !(c.outcome === 'blocked' && c.blocked_by !== undefined && allowed.has(c.blocked_by)))
      .map((c) => c.check_id);
    // A target must fail (fail, warn or info: a verdict against the rule); blocked or a gap is not a detection.
    const failed = new Set(
      run.checks.filter((c) => c.transport === t && (c.outcome === 'fail' || c.outcome === 'warn' || c.outcome === 'info')).map((c) => c.check_id),
    );
    if (affected.includes(t)) {
      for (const target of fault.targets) if (runsOn(target, t) && !failed.has(target)) missed.push(explain(t, target));
      if (!fault.breaksTransport) unexpected.push(...found.filter((id) => !allowed.has(id)).map((id) => explain(t, id)));
    } else {
      unexpected.push(...found.map((id) => explain(t, id)));
    }
  }
  return { caught: missed.length === 0, missed, unexpected };
}

/** Does a check run on a transport at all? (A check restricted to A2A is a target there only.) */
function runsOn(checkId: string, transport: 'mcp' | 'a2a'): boolean {
  const check = builtinSuites()
    .suites.flatMap((s) => s.checks)
    .find((c) => c.id === checkId);
  return !check?.transports || check.transports.includes(transport);
}

/** Checks that errored (a harness or suite defect, never acceptable in a fault run). */
export function erroredChecks(run: RunResult): string[] {
  return run.checks.filter((c) => c.outcome === 'error').map((c) => `${c.transport} ${c.check_id}: ${c.message}`);
}

/**
 * Judges one run with every fault of a group active, as judgeFault judges one: each fault's
 * targets must fail (fail, warn or info) on the transports it affects, and nothing outside the
 * group's targets and collateral may be a finding (a check blocked by one of them is the expected
 * cascade). Returns the missed targets per fault and the unexpected findings of the whole group.
 */
export function judgeGroup(faults: readonly FaultDef[], run: RunResult): { missed: Map<string, string[]>; unexpected: string[] } {
  const missed = new Map<string, string[]>(faults.map((f) => [f.name, []]));
  const unexpected: string[] = [];
  const group = faults.map((f) => f.name).join(', ');
  for (const t of ['mcp', 'a2a'] as const) {
    const affecting = faults.filter((f) => (f.transports ?? ['mcp', 'a2a']).includes(t));
    const allowed = new Set(affecting.flatMap((f) => [...f.targets, ...(f.collateral ?? [])]));
    const failed = new Set(
      run.checks.filter((c) => c.transport === t && (c.outcome === 'fail' || c.outcome === 'warn' || c.outcome === 'info')).map((c) => c.check_id),
    );
    for (const f of affecting)
      missed.get(f.name)!.push(...f.targets.filter((id) => runsOn(id, t) && !failed.has(id)).map((id) => `${t} ${id} (with its group)`));
    for (const c of findings(run)) {
      if (c.transport !== t || allowed.has(c.check_id)) continue;
      if (c.outcome === 'blocked' && c.blocked_by !== undefined && allowed.has(c.blocked_by)) continue;
      unexpected.push(`${t} ${c.check_id} (${c.outcome}: ${c.message}) with the group ${group}`);
    }
  }
  return { missed, unexpected };
}

export interface MatrixVerdict extends FaultVerdict {
  /** Checks that errored in a run the fault took part in. */
  errored: string[];
}

/**
 * One certification of a fault matrix: the agent under test started with `faults` active (one
 * fault, or the faults of one group), limited to the checks of `checkGlob` when given.
 */
export type MatrixRun = (faults: readonly FaultDef[], checkGlob: string | undefined) => Promise<RunResult>;

/** The mock seller with the faults active (certifyMock), at their protocol line, with their fixtures. */
function mockSellerRun(certify: Omit<MockRunOptions, 'mock' | 'suites' | 'checkGlob'> = {}): MatrixRun {
  return (faults, checkGlob) => {
    const target = faults[0]!.target;
    const production = faults.length === 1 && faults[0]!.production;
    const portless = faults.length === 1 && faults[0]!.portless;
    return certifyMock({
      ...certify,
      mock: { faults: faults.map((f) => f.name), ...(production ? { testController: false } : {}) },
      ...(checkGlob ? { checkGlob } : {}),
      ...fixturesOf(faults),
      ...(target ? { target } : {}),
      ...(portless ? { portless: true } : {}),
    });
  };
}

/**
 * Runs a fault matrix with at most `parallel` certifications at once. A fault without a
 * `matrixGroup` runs alone against every suite (judgeFault). The faults of a group run together
 * once against every suite (judgeGroup: its unexpected findings count against each of them), then
 * each of them alone (judgeFault) against the checks the group names plus every check the shared
 * run did not judge on its own (groupRecheck): its targets fail there, none of the other faults'
 * targets or collateral does unless it declares them, and an effect of its own that another
 * fault's cascade or a not-applicable outcome hid in the shared run shows. The agent is the mock
 * seller unless `run` makes the certifications (the mock buyer's matrix: mocks/buyer/faults.test.ts).
 */
export async function runFaultMatrix(
  faults: readonly FaultDef[],
  o: {
    parallel: number;
    certify?: Omit<MockRunOptions, 'mock' | 'suites' | 'checkGlob'>;
    /** How a run is made (default: the mock seller with the faults, certifyMock with `certify`). */
    run?: MatrixRun;
  },
): Promise<Map<string, MatrixVerdict>> {
  const certifyWith = o.run ?? mockSellerRun(o.certify);
  const groups = new Map<string, FaultDef[]>();
  for (const f of faults) {
    if (!f.matrixGroup) continue;
    if (f.breaksTransport) throw new Error(`fault ${f.name} breaks its transport and cannot be judged in a group`);
    if (f.production) throw new Error(`fault ${f.name} is judged without the test controller and cannot be judged in a group`);
    if (f.portless) throw new Error(`fault ${f.name} is judged at a port-less agent URL and cannot be judged in a group`);
    const members = groups.get(f.matrixGroup) ?? [];
    // A group runs at one protocol line: faults judged at their own target share it.
    if (members.length > 0 && members[0]!.target !== f.target) {
      throw new Error(
        `fault ${f.name} (target ${f.target ?? 'default'}) and ${members[0]!.name} (target ${members[0]!.target ?? 'default'}) share matrix group ${f.matrixGroup}`,
      );
    }
    groups.set(f.matrixGroup, [...members, f]);
  }
  const verdicts = new Map<string, MatrixVerdict>();
  const add = (name: string, v: Partial<MatrixVerdict>) => {
    const prev = verdicts.get(name) ?? { caught: true, missed: [], unexpected: [], errored: [] };
    const missed = [...prev.missed, ...(v.missed ?? [])];
    verdicts.set(name, {
      caught: missed.length === 0,
      missed,
      unexpected: [...prev.unexpected, ...(v.unexpected ?? [])],
      errored: [...prev.errored, ...(v.errored ?? [])],
    });
  };
  const alone = (f: FaultDef, checkGlob?: string) => async () => {
    const run = await certifyWith([f], checkGlob);
    add(f.name, { ...judgeFault(f, run), errored: erroredChecks(run) });
  };
  const pool = new JobPool(o.parallel);
  // The shared runs of the groups first (each queues its faults' own runs when it ends), then the
  // full runs of the faults judged alone.
  for (const group of groups.values()) {
    pool.push(async () => {
      const run = await certifyWith(group, undefined);
      const judged = judgeGroup(group, run);
      const errored = erroredChecks(run);
      for (const f of group) add(f.name, { missed: judged.missed.get(f.name), unexpected: judged.unexpected, errored });
      const checkGlob = groupRecheck(group, run).join(',');
      for (const f of group) pool.push(alone(f, checkGlob));
    });
  }
  for (const f of faults.filter((x) => !x.matrixGroup))
    pool.push(alone(f, f.production || f.portless ? [...f.targets, ...(f.collateral ?? [])].join(',') : undefined));
  await pool.done();
  return verdicts;
}

/**
 * The checks each fault of a group runs again alone: those the group names (its targets and
 * collateral) and those its shared run did not judge on their own, on either transport (blocked
 * through one of the group's checks, or not applicable), which one fault's cascade could have
 * hidden from another's.
 */
export function groupRecheck(group: readonly FaultDef[], run: RunResult): string[] {
  const named = new Set(group.flatMap((f) => [...f.targets, ...(f.collateral ?? [])]));
  const hidden = run.checks.filter((c) => c.outcome === 'not_applicable' || (c.outcome === 'blocked' && c.blocked_by !== undefined && named.has(c.blocked_by)));
  return [...new Set([...named, ...hidden.map((c) => c.check_id)])].sort();
}

/** Runs jobs at most `parallel` at a time; a job may queue more while it runs. */
class JobPool {
  private readonly queue: (() => Promise<void>)[] = [];
  private running = 0;
  private failure: unknown;
  private settle?: { resolve: () => void; reject: (e: unknown) => void };

  constructor(private readonly parallel: number) {}

  push(job: () => Promise<void>): void {
    this.queue.push(job);
    this.pump();
  }

  done(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
      this.pump();
    });
  }

  private pump(): void {
    while (this.failure === undefined && this.running < this.parallel && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running++;
      job().then(
        () => {
          this.running--;
          this.pump();
        },
        (e: unknown) => {
          this.running--;
          this.failure ??= e;
          this.pump();
        },
      );
    }
    if (this.running > 0 || !this.settle) return;
    if (this.failure !== undefined) this.settle.reject(this.failure);
    else if (this.queue.length === 0) this.settle.resolve();
  }
}

/** The fixtures the faults of a run ask for (FaultDef.fixtures), merged; none when no fault asks. */
function fixturesOf(faults: readonly FaultDef[]): Pick<MockRunOptions, 'fixtures'> {
  const given = faults.filter((f) => f.fixtures);
  return given.length ? { fixtures: Object.assign({}, ...given.map((f) => f.fixtures)) } : {};
}

/** Webhook checks that make their event happen without the test controller (suites/webhooks/webhooks.yaml: no `requires`). */
export const CONTROLLER_FREE_WEBHOOKS: readonly string[] = [
  'webhooks.task.terminal-silent',
  'webhooks.task.failed-terminal-silent',
  'webhooks.auth.bearer-refused',
  'webhooks.auth.short-credential-refused',
  'webhooks.registration.reserved-url-refused',
  'webhooks.registration.http-url-refused',
  'webhooks.activity.only-when-asked',
  // The activation challenge is sent at registration, with no event to force.
  'webhooks.subscription.challenge-signed',
  'webhooks.subscription.challenge-shape',
];
