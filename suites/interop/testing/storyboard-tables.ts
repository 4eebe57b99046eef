/**
 * Generates the storyboard side-by-side tables, `suites/interop/storyboards-<agent>.md`: for each
 * example agent of @adcp/sdk (agents.ts), served over MCP and A2A, the SDK's 3.0.6 bundle run by
 * the reference runner (MCP) against one fresh copy of the agent and by proto-comply (MCP, then A2A,
 * one run) against another, so that neither run meets the other's buys and seeds.
 *
 *   node --import tsx suites/interop/testing/storyboard-tables.ts [agent…]   writes the tables
 *
 * storyboards.test.ts regenerates them the same way and fails when a committed table is stale.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadStoryboardBundle } from '../../../harness/core/storyboards/load.js';
import type { AgentComplianceDocument } from '../../../reports/json.js';
import type { RunnerOutputDocument } from '../../../reports/runner-output.js';
import { INTEROP_AGENTS, launch, stop, type InteropAgent } from './agents.js';
import { BUNDLE_DIR, BUNDLE_VERSION, runOurs, runReference } from './storyboard-runs.js';
import { loadReasons, renderStoryboardTable, type SideBySide } from './storyboard-table.js';
import { ourVerdicts, referenceVerdicts, type ReferenceResult } from './storyboard-verdicts.js';
import { tableIn, withTable } from './tables.js';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REASONS_FILE = join(here, 'storyboard-reasons.yaml');
export const TABLE_NAME = `storyboards@${BUNDLE_VERSION}`;
export const tableFile = (agent: InteropAgent) => join(here, `storyboards-${agent.id}.md`);

export interface AgentRuns {
  reference: ReferenceResult;
  ours: AgentComplianceDocument;
  /** The runner output our run wrote (runner-output.json). */
  runnerOutput: RunnerOutputDocument;
}

/** Both runners against the agent, each against a fresh copy of it (served over MCP and A2A). */
export async function runBoth(agent: InteropAgent): Promise<AgentRuns> {
  const once = async <T>(run: (l: Awaited<ReturnType<typeof launch>>) => Promise<T>) => {
    const l = await launch(agent, { a2a: true });
    try {
      return await run(l);
    } finally {
      await stop(l);
    }
  };
  const reference = (await once(runReference)).json;
  const ours = await once((l) => runOurs(l, '20261129'));
  return { reference, ours: ours.json, runnerOutput: ours.runnerOutput };
}

let bundle: ReturnType<typeof loadStoryboardBundle> | undefined;

export function sideBySide(agent: InteropAgent, runs: AgentRuns): SideBySide {
  bundle ??= loadStoryboardBundle(BUNDLE_DIR);
  return {
    agent: agent.id,
    bundle,
    reference: referenceVerdicts(runs.reference, bundle),
    ours: runs.ours.transports.map((transport) => ({ transport, verdicts: ourVerdicts(runs.ours, bundle!, transport) })),
    reasons: loadReasons(REASONS_FILE),
  };
}

const heading = `## The ${BUNDLE_VERSION} bundle: reference runner (MCP) and proto-comply (MCP, A2A)`;

/** The committed table of the agent, or undefined. */
export function committedTable(agent: InteropAgent): string | undefined {
  const file = tableFile(agent);
  return existsSync(file) ? tableIn(readFileSync(file, 'utf8'), TABLE_NAME) : undefined;
}

/** The text above the table of a new document. */
function intro(agent: InteropAgent): string {
  const served = agent.transports.includes('a2a')
    ? 'served over MCP and A2A by its launcher'
    : 'served over MCP by the example and over A2A by `adcp-sdk-sellers/a2a.mjs` (`ADCP_SELLER_A2A=1`)';
  return [
    `# Storyboards side by side: ${agent.title}`,
    '',
    `The ${BUNDLE_VERSION} bundle of \`@adcp/sdk\` against \`adcp-sdk-sellers/${agent.id}.mjs\`, ${served}: the SDK's`,
    'reference runner (MCP) and proto-comply (MCP, then A2A, one run), each against a fresh copy of the agent.',
    'Verdict classes, the agreement rule and the reason classes are in docs/interop.md ("Storyboards side by',
    'side with the reference runner"); the reasons are in `storyboard-reasons.yaml`. The table is generated',
    `(\`node --import tsx suites/interop/testing/storyboard-tables.ts ${agent.id}\`); storyboards.test.ts fails when it is stale.`,
    '',
  ].join('\n');
}

export function writeTable(agent: InteropAgent, table: string): void {
  const file = tableFile(agent);
  const doc = existsSync(file) ? readFileSync(file, 'utf8') : intro(agent);
  writeFileSync(file, withTable(doc, TABLE_NAME, heading, table));
}

/** Runs `each` over the agents, two at a time (each agent's two runs stay one after another). */
export async function forAgents(agents: readonly InteropAgent[], each: (a: InteropAgent) => Promise<void>): Promise<void> {
  const queue = [...agents];
  const worker = async () => {
    for (let a = queue.shift(); a; a = queue.shift()) await each(a);
  };
  await Promise.all([worker(), worker()]);
}

async function main(ids: string[]): Promise<void> {
  await forAgents(
    INTEROP_AGENTS.filter((a) => ids.length === 0 || ids.includes(a.id)),
    async (agent) => {
      const t0 = performance.now();
      const table = renderStoryboardTable(sideBySide(agent, await runBoth(agent)));
      writeTable(agent, table);
      console.log(`${tableFile(agent)}: ${table.split('\n')[0]} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    },
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
