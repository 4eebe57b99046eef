/**
 * The third-party agents of the interop tests: example agents shipped with the public @adcp/sdk
 * (pinned in adcp-sdk-sellers/package.json), each run unmodified as a child process on loopback by
 * its launcher in adcp-sdk-sellers/, and how the harness certifies and fuzzes each one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { certify, interpretationLookup } from '../../../harness/certify/index.js';
import { FUZZ_PROPERTIES } from '../../../harness/fuzz/properties/index.js';
import { runFuzz } from '../../../harness/fuzz/run.js';
import type { RunResult } from '../../../harness/core/engine/result.js';
import type { ProtocolLine } from '../../../harness/core/protocol/lines.js';
import type { AgentTransportKind } from '../../../harness/core/transport/index.js';
import { loadFixtures } from '../../../harness/core/fixtures/fixtures.js';

/** suites/interop/, where the launchers, fixtures and tables live. */
const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(here, '..', '..');
const STARTUP_MS = 45_000;

export interface InteropAgent {
  /** The name of its tables (`<id>.md`, `fuzz-<id>.md`) and launcher (`adcp-sdk-sellers/<id>.mjs`). */
  id: string;
  title: string;
  transports: AgentTransportKind[];
  /** Fixtures beside this file (`<file>`), as a certifier would give them after onboarding. */
  fixtures?: string;
}

export const INTEROP_AGENTS: readonly InteropAgent[] = [
  { id: 'non-guaranteed', title: 'sales-non-guaranteed adapter with its mock upstream', transports: ['mcp'] },
  { id: 'hybrid', title: 'hybrid mock seller over MCP and A2A', transports: ['mcp', 'a2a'], fixtures: 'hybrid.fixtures.yaml' },
  { id: 'guaranteed', title: 'sales-guaranteed adapter (HITL) with its mock upstream', transports: ['mcp'] },
  { id: 'signals', title: 'signal-marketplace agent with its mock upstream', transports: ['mcp'], fixtures: 'signals.fixtures.yaml' },
];

/** The lines each agent is certified at: the SDK's own (3.0, it implements 3.0.6) and the default. */
export const INTEROP_TARGETS: readonly (ProtocolLine | undefined)[] = ['3.0', undefined];

export interface Launched {
  child: ChildProcess;
  /** What the launcher printed: `mcp`, and `a2a` / `card` / `token` when it has them. */
  facts: Record<string, string>;
}

/**
 * Starts an agent's launcher and waits (bounded) for its `READY {json}` line. With `a2a`, an example
 * that serves MCP only is served over A2A too (adcp-sdk-sellers/a2a.mjs; the hybrid seller always is).
 */
export function launch(agent: InteropAgent, opts: { a2a?: boolean } = {}): Promise<Launched> {
  const dir = join(here, 'adcp-sdk-sellers');
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', join(dir, 'loopback.mjs'), join(dir, `${agent.id}.mjs`)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ADCP_SELLER_A2A: opts.a2a ? '1' : '0' },
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err = (err + d).slice(-4000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${agent.id} did not start within ${STARTUP_MS} ms: ${err}`));
    }, STARTUP_MS);
    child.stdout!.on('data', (d) => {
      out += d;
      const line = /^READY (.*)$/m.exec(out)?.[1];
      if (line) {
        clearTimeout(timer);
        resolve({ child, facts: JSON.parse(line) });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${agent.id} exited with ${code} before it was ready: ${err}`));
    });
  });
}

/** Stops a launched agent: SIGTERM, SIGKILL after 3 s. */
export async function stop(l: Launched | undefined): Promise<void> {
  if (!l || l.child.exitCode !== null || l.child.signalCode !== null) return;
  const exited = new Promise((r) => l.child.once('exit', r));
  l.child.kill('SIGTERM');
  const timer = setTimeout(() => l.child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

function fixturesOf(agent: InteropAgent) {
  return agent.fixtures ? loadFixtures(join(here, agent.fixtures)) : undefined;
}

/** `proto-comply run --token adcp --lifecycle-stage development` against the agent, at `target` (default: the harness's default line). */
export function certifyAgent(agent: InteropAgent, l: Launched, target?: ProtocolLine): Promise<RunResult> {
  return certify({
    agentUrl: l.facts.mcp,
    ...(l.facts.card ? { a2aUrl: l.facts.card } : {}),
    transports: agent.transports,
    transportExplicit: true,
    token: 'adcp',
    ...(target ? { target } : {}),
    // Every launcher here starts its example with NODE_ENV=development (the SDK keeps in-memory
    // state only there, and there lets plain-http push URLs through): a development deployment.
    lifecycleStage: 'development',
    ...(l.facts.token ? { authToken: l.facts.token } : {}),
    fixtures: fixturesOf(agent),
    // One seed per target: both runs meet the same long-lived agent, and a seed's keys are its own.
    seed: `20261127${target ? target.replace('.', '') : '00'}`,
    concurrency: 4,
  });
}

/** `proto-comply fuzz` with every property (after the run: the fuzzer books buys of its own). */
export function fuzzAgent(agent: InteropAgent, l: Launched, target?: ProtocolLine): Promise<RunResult> {
  return runFuzz({
    agentUrl: l.facts.mcp,
    ...(l.facts.card ? { a2aUrl: l.facts.card } : {}),
    transports: agent.transports,
    token: 'adcp',
    ...(target ? { target } : {}),
    ...(l.facts.token ? { authToken: l.facts.token } : {}),
    fixtures: fixturesOf(agent),
    seed: 5,
    runs: 40,
    properties: FUZZ_PROPERTIES,
    interpretationOf: interpretationLookup(),
    reportFile: 'fuzz-report/agent-compliance.json',
    command: 'test',
  });
}
