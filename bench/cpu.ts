/**
 * CPU seconds of other processes (the mock fleet, registry workers, PostgreSQL), read from
 * /proc on Linux, so a benchmark can say where the CPU of a run went. Undefined elsewhere.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticks: number | undefined;
function clockTicks(): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  return ticks;
}

function statOf(pid: number | string): { comm: string; ppid: number; cpu: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    // ppid, utime and stime are fields 4, 14 and 15 of stat(5); fields[0] here is field 3.
    return { comm: text.slice(text.indexOf('(') + 1, close), ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / clockTicks() };
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds process `pid` has used so far. */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  return pid === undefined ? undefined : statOf(pid)?.cpu;
}

/**
 * User + system CPU seconds of every live process named `comm` (e.g. `postgres`: the server and
 * its backends); with `under`, only those descending from that process (not another user's server).
 */
export function cpuSecondsOfCommand(comm: string, under?: number): number | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  const stats = new Map(pids.map((p) => [Number(p), statOf(p)]));
  const descends = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = stats.get(p)?.ppid ?? 0, hops++) if (p === under) return true;
    return false;
  };
  let sum = 0;
  for (const [pid, s] of stats) if (s?.comm === comm && (under === undefined || descends(pid))) sum += s.cpu;
  return sum;
}

/** `12.3 s`, or `?` where it could not be read. */
export function seconds(cpu: number | undefined): string {
  return cpu === undefined ? '?' : `${cpu.toFixed(1)} s`;
}
