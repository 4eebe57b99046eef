/**
 * `proto-comply fuzz` progress on stderr: properties done (checks of property × task × transport),
 * cases run and counterexamples found. On a TTY one status line rewritten in place, at most every
 * `ttyIntervalMs` (a fast property runs hundreds of cases a second), with each failing check printed
 * above it; elsewhere (CI logs) plain lines only: one per finished check, and while one check runs
 * long a status line at most every `plainIntervalMs`.
 */
import { isFailing, type CheckResult } from '../harness/core/engine/result.js';
import { checkLine } from './console.js';
import { oneLine, truncate } from './text.js';

export interface FuzzProgressOptions {
  out: NodeJS.WritableStream;
  tty: boolean;
  /** Checks the run will report (FuzzOptions.onPlanned). */
  total: number;
  ttyIntervalMs?: number;
  plainIntervalMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

export interface FuzzProgress {
  /** A check starts (its id, shown on the status line). */
  onStart(checkId: string): void;
  /** One case (a request, a command sequence) ran. */
  onCase(): void;
  onCheck(result: CheckResult): void;
  /** Ends the status line (TTY) or prints the closing tally. Idempotent. */
  done(): void;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

export function createFuzzProgress(o: FuzzProgressOptions): FuzzProgress {
  const now = o.now ?? Date.now;
  const ttyInterval = o.ttyIntervalMs ?? 200;
  const plainInterval = o.plainIntervalMs ?? 30_000;
  let done = 0;
  let cases = 0;
  let found = 0;
  let current = '';
  let lastDraw = Number.NEGATIVE_INFINITY;
  let lastWidth = 0;
  let closed = false;

  const status = () =>
    `fuzz: ${done}/${o.total} properties · ${plural(cases, 'case', 'cases')} · ${plural(found, 'counterexample', 'counterexamples')}` +
    (current ? ` · ${oneLine(current, 80)}` : '');
  const draw = () => {
    lastDraw = now();
    if (!o.tty) {
      o.out.write(`${status()}\n`);
      return;
    }
    const columns = (o.out as { columns?: number }).columns;
    const line = columns && columns > 10 ? truncate(status(), columns - 1) : status();
    o.out.write(`\r${line}${' '.repeat(Math.max(0, lastWidth - line.length))}`);
    lastWidth = line.length;
  };
  const clear = () => {
    if (lastWidth > 0) o.out.write(`\r${' '.repeat(lastWidth)}\r`);
    lastWidth = 0;
  };
  const maybeDraw = () => {
    if (now() - lastDraw >= (o.tty ? ttyInterval : plainInterval)) draw();
  };

  return {
    onStart(checkId) {
      if (closed) return;
      current = checkId;
      if (o.tty) maybeDraw();
      else lastDraw = now(); // the check's own line follows; a status line only if it runs long
    },
    onCase() {
      if (closed) return;
      cases += 1;
      maybeDraw();
    },
    onCheck(result) {
      if (closed) return;
      done += 1;
      current = '';
      if ((result.evidence?.actual as { fuzz?: unknown } | undefined)?.fuzz !== undefined) found += 1;
      if (!o.tty) {
        o.out.write(`[${done}/${o.total}] ${checkLine(result)}\n`);
        lastDraw = now();
        return;
      }
      if (isFailing(result, false)) {
        clear();
        o.out.write(`${checkLine(result)}\n`);
      }
      draw();
    },
    done() {
      if (closed) return;
      closed = true;
      current = '';
      if (o.tty) {
        draw();
        o.out.write('\n');
      } else o.out.write(`${status()}\n`);
    },
  };
}
