/**
 * The benchmark's fleet in its own process (so its CPU is not the prober's): N mock sellers, one
 * loopback address each, every tenth with a fault, each requiring the bearer given as the second
 * argument (if any). Prints their URLs as one JSON line, then serves
 * until its stdin closes.
 */
import { startMockFleet } from '../mocks/fleet/index.js';

const FAULTS = ['replay-not-flagged', 'context-not-echoed', 'missing-key-accepted'];
const count = Number(process.argv[2] ?? 200);
// A bearer as real sellers have (it is what shadow-mode signing, digest 1.10, falls back on: without it that check is a coverage gap).
const authToken = process.argv[3];
const fleet = await startMockFleet({
  count,
  faultsFor: (i) => (i % 10 === 9 ? [FAULTS[((i / 10) % FAULTS.length) | 0]!] : []),
  ...(authToken ? { authToken } : {}),
});
process.stdout.write(`${JSON.stringify(fleet.agents)}\n`);
process.stdin.resume();
process.stdin.on('end', () => void fleet.close().then(() => process.exit(0)));
