/**
 * Interop: the harness against sellers we did not write, the example sellers shipped with the
 * public @adcp/sdk (pinned in suites/interop/adcp-sdk-sellers/package.json), run unmodified as
 * child processes on loopback. For each, the committed table beside this file lists every
 * non-pass with the spec line it rests on, and the run must match it exactly: no harness error,
 * get_products and create_media_buy pass in setup (so nothing is blocked by what we sent), and on
 * the hybrid seller MCP and A2A agree check by check. Then `proto-comply fuzz` with every
 * property: its non-passes must be exactly those of the fuzz-*.md table beside this file, so the
 * fuzzer reports on these sellers nothing the spec does not state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { certify } from '../../harness/certify.js';
import { FUZZ_PROPERTIES } from '../../harness/fuzz/properties/index.js';
import { runFuzz, type FuzzOptions } from '../../harness/fuzz/run.js';
import type { RunResult } from '../../harness/engine/result.js';
import { loadFixtures } from '../setup/fixtures.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const STARTUP_MS = 45_000;

interface Launched {
  child: ChildProcess;
  facts: Record<string, string>;
}

/** Starts a launcher of adcp-sdk-sellers/ and waits (bounded) for its `READY {json}` line. */
function launch(script: string): Promise<Launched> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', join(here, 'adcp-sdk-sellers', 'loopback.mjs'), join(here, 'adcp-sdk-sellers', script)],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err = (err + d).slice(-4000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start within ${STARTUP_MS} ms: ${err}`));
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
      reject(new Error(`${script} exited with ${code} before it was ready: ${err}`));
    });
  });
}

async function stop(l: Launched | undefined): Promise<void> {
  if (!l || l.child.exitCode !== null || l.child.signalCode !== null) return;
  const exited = new Promise((r) => l.child.once('exit', r));
  l.child.kill('SIGTERM');
  const timer = setTimeout(() => l.child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

/** `transport check outcome` for every row of the table in `file` (a transport cell may name both: `mcp, a2a`). */
export function tableRows(file: string): string[] {
  const rows: string[] = [];
  for (const line of readFileSync(join(here, file), 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !/^(mcp|a2a)/.test(cells[1])) continue;
    const check = cells[2].replace(/`/g, '');
    for (const t of cells[1].split(',').map((s) => s.trim())) rows.push(`${t} ${check} ${cells[3]}`);
  }
  return rows.sort();
}

function nonPasses(run: RunResult): string[] {
  return run.checks
    .filter((c) => c.outcome !== 'pass' && c.outcome !== 'not_applicable')
    .map((c) => `${c.transport} ${c.check_id} ${c.outcome}`)
    .sort();
}

function outcomeOf(run: RunResult, check: string, transport: string): string | undefined {
  return run.checks.find((c) => c.check_id === check && c.transport === transport)?.outcome;
}

function commonExpectations(run: () => RunResult, table: string, transports: string[]) {
  it('completes with no harness error', () => {
    expect(
      run()
        .checks.filter((c) => c.outcome === 'error')
        .map((c) => `${c.transport} ${c.check_id}: ${c.message}`),
    ).toEqual([]);
  });

  it('gets through setup: an account, get_products and create_media_buy pass', () => {
    for (const t of transports) {
      for (const id of ['setup.account.usable', 'setup.products.offered', 'setup.media-buy.created'])
        expect(`${t} ${id} ${outcomeOf(run(), id, t)}`).toBe(`${t} ${id} pass`);
    }
  });

  it('blocks nothing on a setup call (every blocked check names a failure of the seller in the table)', () => {
    const failing = new Set(
      run()
        .checks.filter((c) => c.outcome === 'fail' || c.outcome === 'warn')
        .map((c) => `${c.transport} ${c.check_id}`),
    );
    for (const c of run().checks.filter((x) => x.outcome === 'blocked')) {
      expect(c.blocked_by, `${c.transport} ${c.check_id}`).not.toMatch(/^(setup\.|transport\.)/);
      expect(
        failing.has(`${c.transport} ${c.blocked_by}`) || c.blocked_by?.startsWith('state-machine.controller.'),
        `${c.transport} ${c.check_id} blocked by ${c.blocked_by}`,
      ).toBe(true);
    }
  });

  it(`has exactly the non-passes listed in ${table}`, () => {
    expect(nonPasses(run())).toEqual(tableRows(table));
  });
}

/** `proto-comply fuzz` with every property against the seller, after its `run` (the fuzzer books buys of its own). */
function fuzzSeller(o: Pick<FuzzOptions, 'agentUrl' | 'a2aUrl' | 'transports' | 'authToken' | 'fixtures'>): Promise<RunResult> {
  return runFuzz({ ...o, token: 'adcp', seed: 5, runs: 40, properties: FUZZ_PROPERTIES, reportFile: 'fuzz-report/agent-compliance.json', command: 'test' });
}

function fuzzExpectations(fuzz: () => RunResult, table: string) {
  it(`fuzz: has exactly the non-passes listed in ${table}, each failure shrunk with its replay command`, () => {
    expect(nonPasses(fuzz())).toEqual(tableRows(table));
    for (const c of fuzz().checks.filter((x) => x.outcome === 'fail' || x.outcome === 'warn')) {
      expect(c.evidence?.notes?.[0], `${c.transport} ${c.check_id}`).toMatch(/^replay: npx proto-comply fuzz --replay /);
      expect((c.evidence?.actual as { fuzz?: { counterexample?: unknown } } | undefined)?.fuzz?.counterexample, c.check_id).toBeDefined();
    }
  });
}

describe('@adcp/sdk example: sales-non-guaranteed adapter with its mock upstream (MCP)', () => {
  let seller: Launched | undefined;
  let run: RunResult;
  let fuzz: RunResult;

  beforeAll(async () => {
    seller = await launch('non-guaranteed.mjs');
    run = await certify({
      agentUrl: seller.facts.mcp,
      transports: ['mcp'],
      transportExplicit: true,
      token: 'adcp',
      authToken: seller.facts.token,
      concurrency: 4,
    });
    fuzz = await fuzzSeller({ agentUrl: seller.facts.mcp, transports: ['mcp'], authToken: seller.facts.token });
  }, 210_000);

  afterAll(() => stop(seller));

  commonExpectations(() => run, 'non-guaranteed.md', ['mcp']);
  fuzzExpectations(() => fuzz, 'fuzz-non-guaranteed.md');
});

describe('@adcp/sdk example: hybrid mock seller over MCP and A2A', () => {
  let seller: Launched | undefined;
  let run: RunResult;
  let fuzz: RunResult;

  beforeAll(async () => {
    seller = await launch('hybrid.mjs');
    run = await certify({
      agentUrl: seller.facts.mcp,
      a2aUrl: seller.facts.card,
      transports: ['mcp', 'a2a'],
      transportExplicit: true,
      token: 'adcp',
      fixtures: loadFixtures(join(here, 'hybrid.fixtures.yaml')),
      concurrency: 4,
    });
    fuzz = await fuzzSeller({
      agentUrl: seller.facts.mcp,
      a2aUrl: seller.facts.card,
      transports: ['mcp', 'a2a'],
      fixtures: loadFixtures(join(here, 'hybrid.fixtures.yaml')),
    });
  }, 210_000);

  afterAll(() => stop(seller));

  commonExpectations(() => run, 'hybrid.md', ['mcp', 'a2a']);
  fuzzExpectations(() => fuzz, 'fuzz-hybrid.md');

  /** Where the seller itself differs between its transports (the table says how). */
  const SELLER_DIFFERS = new Set(['capabilities.tasks.listed']);

  it('gives the same verdict over MCP and A2A for every check that applies to both', () => {
    const differ: string[] = [];
    for (const id of new Set(run.checks.map((c) => c.check_id))) {
      const mcp = outcomeOf(run, id, 'mcp');
      const a2a = outcomeOf(run, id, 'a2a');
      if (mcp === 'not_applicable' || a2a === 'not_applicable' || SELLER_DIFFERS.has(id)) continue;
      if (mcp !== a2a) differ.push(`${id}: mcp ${mcp}, a2a ${a2a}`);
    }
    expect(differ).toEqual([]);
  });
});
