/**
 * Interop: the harness against agents we did not write, the example agents shipped with the public
 * @adcp/sdk (agents.ts), run unmodified as child processes on loopback. Each is certified and
 * fuzzed at `--target 3.0` (the SDK implements the 3.0 line) and at the default target, and each
 * run's non-passes must be exactly the generated table of the same name in `<agent>.md` /
 * `fuzz-<agent>.md` beside this file, compared whole: transport, check, outcome, root cause, reason
 * and spec line (tables.ts; the rows of a check whose verdict depends on timing, TIMING_DEPENDENT,
 * may be missing from either side). Besides: no harness error; setup passes on sellers (so nothing is
 * blocked by what we sent); every blocked check names a failure of the agent; over MCP and A2A the
 * same verdicts; at 3.0 no failure of a rule of a later line; every fuzz failure shrunk with its
 * replay command. `UPDATE_INTEROP_TABLES=1` writes the tables from the runs instead of comparing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../../harness/core/engine/result.js';
import { INTEROP_AGENTS, INTEROP_TARGETS, certifyAgent, fuzzAgent, launch, stop, type InteropAgent, type Launched } from './testing/agents.js';
import { renderTable, tableDifferences, tableIn, withTable } from './testing/tables.js';
import { DEFAULT_TARGET, inLines, type ProtocolLine } from '../../harness/core/protocol/lines.js';
import { builtinSuites } from '../index.js';

const here = dirname(fileURLToPath(import.meta.url));
const UPDATE = process.env.UPDATE_INTEROP_TABLES === '1';
const SETUP = ['setup.account.usable', 'setup.products.offered', 'setup.media-buy.created'];
const lineOf = (target: ProtocolLine | undefined) => target ?? DEFAULT_TARGET;
const checkDefs = new Map(builtinSuites().suites.flatMap((s) => s.checks.map((c) => [c.id, c] as const)));

function outcomeOf(run: RunResult, check: string, transport: string): string | undefined {
  return run.checks.find((c) => c.check_id === check && c.transport === transport)?.outcome;
}

/** Compares the run's table with the committed one (or writes it under UPDATE_INTEROP_TABLES=1). */
function expectTable(file: string, name: string, heading: string, run: RunResult): void {
  const path = join(here, file);
  const table = renderTable(run);
  const doc = readFileSync(path, 'utf8');
  if (UPDATE) {
    writeFileSync(path, withTable(doc, name, heading, table));
    return;
  }
  const committed = tableIn(doc, name);
  expect(committed, `${file}: no table "${name}" (run with UPDATE_INTEROP_TABLES=1 to write it)`).toBeDefined();
  expect(tableDifferences(table, committed as string), `${file} "${name}"`).toEqual({ missing: [], extra: [] });
}

function runExpectations(agent: InteropAgent, target: ProtocolLine | undefined, run: () => RunResult, fuzz: () => RunResult): void {
  const line = lineOf(target);
  const label = target ? `--target ${target}` : `the default target ${line}`;

  it(`${label}: completes with no harness error, judged against ${line}`, () => {
    expect(run().target.requested_compliance_target).toBe(line);
    expect(
      run()
        .checks.filter((c) => c.outcome === 'error')
        .map((c) => `${c.transport} ${c.check_id}: ${c.message}`),
    ).toEqual([]);
  });

  it(`${label}: a seller gets through setup (an account, get_products, create_media_buy pass)`, () => {
    for (const t of agent.transports)
      for (const id of SETUP) {
        const o = outcomeOf(run(), id, t);
        if (o !== 'not_applicable') expect(`${t} ${id} ${o}`).toBe(`${t} ${id} pass`);
      }
  });

  it(`${label}: every blocked check names a failure of the agent (nothing blocked by setup or the transport)`, () => {
    const failing = new Set(
      run()
        .checks.filter((c) => c.outcome === 'fail' || c.outcome === 'warn')
        .map((c) => `${c.transport} ${c.check_id}`),
    );
    for (const c of run().checks.filter((x) => x.outcome === 'blocked')) {
      expect(c.blocked_by, `${c.transport} ${c.check_id}`).not.toMatch(/^(setup\.|transport\.)/);
      expect(failing.has(`${c.transport} ${c.blocked_by}`), `${c.transport} ${c.check_id} blocked by ${c.blocked_by}`).toBe(true);
    }
  });

  it(`${label}: no check fails on a rule of another line`, () => {
    for (const c of run().checks.filter((x) => x.outcome === 'fail' || x.outcome === 'warn'))
      expect(inLines(line, checkDefs.get(c.check_id)?.lines), `${c.check_id} belongs to ${checkDefs.get(c.check_id)?.lines}`).toBe(true);
  });

  it(`${label}: has exactly the non-passes of ${agent.id}.md "run@${line}"`, () => {
    expectTable(`${agent.id}.md`, `run@${line}`, `## proto-comply run ${target ? `--target ${target}` : `(default target ${line})`}`, run());
  });

  it(`${label}: fuzz has exactly the non-passes of fuzz-${agent.id}.md "fuzz@${line}", each failure shrunk with its replay command`, () => {
    expectTable(`fuzz-${agent.id}.md`, `fuzz@${line}`, `## proto-comply fuzz ${target ? `--target ${target}` : `(default target ${line})`}`, fuzz());
    for (const c of fuzz().checks.filter((x) => x.outcome === 'fail' || x.outcome === 'warn')) {
      expect(c.evidence?.notes?.[0], `${c.transport} ${c.check_id}`).toMatch(/^replay: npx proto-comply fuzz --replay /);
      expect((c.evidence?.actual as { fuzz?: { counterexample?: unknown } } | undefined)?.fuzz?.counterexample, c.check_id).toBeDefined();
    }
  });

  if (agent.transports.length > 1) {
    it(`${label}: gives the same verdict over MCP and A2A for every check that applies to both`, () => {
      const differ: string[] = [];
      for (const id of new Set(run().checks.map((c) => c.check_id))) {
        const [a, b] = agent.transports.map((t) => outcomeOf(run(), id, t));
        if (a === 'not_applicable' || b === 'not_applicable') continue;
        if (a !== b) differ.push(`${id}: ${agent.transports[0]} ${a}, ${agent.transports[1]} ${b}`);
      }
      expect(differ).toEqual([]);
    });
  }
}

for (const agent of INTEROP_AGENTS) {
  describe(`@adcp/sdk example: ${agent.title} (${agent.transports.join(', ')})`, () => {
    let launched: Launched | undefined;
    const runs = new Map<string, { run: RunResult; fuzz: RunResult }>();

    beforeAll(async () => {
      launched = await launch(agent);
      for (const target of INTEROP_TARGETS) {
        const run = await certifyAgent(agent, launched, target);
        const fuzz = await fuzzAgent(agent, launched, target);
        runs.set(lineOf(target), { run, fuzz });
      }
    }, 420_000);

    afterAll(() => stop(launched));

    for (const target of INTEROP_TARGETS)
      runExpectations(
        agent,
        target,
        () => runs.get(lineOf(target))!.run,
        () => runs.get(lineOf(target))!.fuzz,
      );
  });
}
