/** `run --baseline FILE`: read the baseline against every check id the suites define. */
import { BaselineError, loadBaseline, type Baseline } from '../baseline/file.js';
import { builtinCheckIds } from '../../suites/index.js';
import { UsageError } from './usage.js';

/** Throws UsageError (one line) for an unreadable or malformed baseline. */
export async function loadRunBaseline(path: string): Promise<Baseline> {
  try {
    return await loadBaseline(path, builtinCheckIds());
  } catch (e) {
    if (e instanceof BaselineError) throw new UsageError(`run: --${e.message}`);
    throw e;
  }
}
