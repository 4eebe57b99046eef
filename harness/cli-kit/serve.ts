/** Shared by the long-running commands (`mock seller`, `mock buyer`, `keys --serve`). */

/** A bad flag value: the command prints one line and exits 2. */
export class FlagError extends Error {}

/** `--port`: an integer 0-65535 (0 = ephemeral); undefined when the flag is absent. */
export function parsePortFlag(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65_535) throw new FlagError(`--port must be an integer 0-65535, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Resolves on SIGINT, SIGTERM or when `stop` aborts, removing its listeners. */
export function waitForStop(stop: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      stop?.removeEventListener('abort', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (stop?.aborted) done();
    else stop?.addEventListener('abort', done);
  });
}

/** `--list-faults`: one fault a line, its name first, then the rule it breaks and its target checks. */
export function formatFaultList(faults: ReadonlyArray<{ name: string; rule: string; targets: readonly string[] }>): string {
  const width = Math.max(0, ...faults.map((f) => f.name.length));
  return faults.map((f) => `${f.name.padEnd(width)}  ${f.rule}  [${f.targets.join(', ')}]\n`).join('');
}
