/** `run --baseline FILE`: read the baseline against every check id the suites define. */
import { BaselineError, loadBaseline, type Baseline } from '../baseline/file.js';
import { loadSuites } from '../engine/loader.js';
import { UsageError } from './usage.js';

export function knownCheckIds(): Set<string> {
  return new Set(loadSuites().flatMap((s) => s.checks.map((c) => c.id)));
}

/** Throws UsageError (one line) for an unreadable or malformed baseline. */
export async function loadRunBaseline(path: string): Promise<Baseline> {
  try {
    return await loadBaseline(path, knownCheckIds());
  } catch (e) {
    if (e instanceof BaselineError) throw new UsageError(`run: --${e.message}`);
    throw e;
  }
}
