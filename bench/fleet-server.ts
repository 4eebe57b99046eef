/**
 * The benchmark's fleet in its own process (so its CPU is not the prober's): N mock sellers, one
 * loopback address each, every tenth with a fault. Prints their URLs as one JSON line, then serves
 * until its stdin closes.
 */
import { startMockFleet } from '../mocks/fleet/index.js';

const FAULTS = ['replay-not-flagged', 'context-not-echoed', 'missing-key-accepted'];
const count = Number(process.argv[2] ?? 200);
const fleet = await startMockFleet({ count, faultsFor: (i) => (i % 10 === 9 ? [FAULTS[((i / 10) % FAULTS.length) | 0]!] : []) });
process.stdout.write(`${JSON.stringify(fleet.agents)}\n`);
process.stdin.resume();
process.stdin.on('end', () => void fleet.close().then(() => process.exit(0)));
