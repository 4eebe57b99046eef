/** Shared by the long-running commands (`mock seller`, `mock buyer`, `mock registry`, `keys --serve`). */
import { parseArgs, type ParseArgsConfig } from 'node:util';

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

/** The flags every `proto-comply mock <name>` takes. */
const MOCK_FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  fault: { type: 'string', multiple: true },
  'list-faults': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * A mock command's flags: the common ones (--port, --host, --fault, --list-faults, --help) and
 * its own; strict, no positionals; a bad flag is a FlagError. `port` is checked (parsePortFlag).
 */
export function parseMockFlags<const O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  own: O,
): { values: MockFlagValues<O>; port: number | undefined } {
  let values: MockFlagValues<O>;
  try {
    const config: MockFlagConfig<O> = { args: argv, strict: true, allowPositionals: false, options: { ...MOCK_FLAGS, ...own } };
    values = parseArgs(config).values;
  } catch (err) {
    throw new FlagError(err instanceof Error ? err.message : String(err));
  }
  return { values, port: parsePortFlag((values as { port?: string }).port) };
}

type MockFlagConfig<O> = { args: string[]; strict: true; allowPositionals: false; options: typeof MOCK_FLAGS & O };
type MockFlagValues<O extends NonNullable<ParseArgsConfig['options']>> = ReturnType<typeof parseArgs<MockFlagConfig<O>>>['values'];

/** `--list-faults`: one fault a line, its name first, then the rule it breaks and its target checks. */
export function formatFaultList(faults: ReadonlyArray<{ name: string; rule: string; targets: readonly string[] }>): string {
  const width = Math.max(0, ...faults.map((f) => f.name.length));
  return faults.map((f) => `${f.name.padEnd(width)}  ${f.rule}  [${f.targets.join(', ')}]\n`).join('');
}

/** The I/O of a long-running mock command; `stop` stops it like a signal would (tests). */
export interface MockCommandIo {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  stop?: AbortSignal;
}

/** Parsed flags past --help and --list-faults (a union of parse results loses those members). */
export type ServingArgs<A> = Exclude<A, { help: true } | { listFaults: true }>;
export type MockCommandStart<A> = { exit: number } | { args: ServingArgs<A>; out: (text: string) => void; err: (text: string) => void };

/**
 * What every `proto-comply mock <name>` does first: parse the flags (a FlagError is one line on
 * stderr and exit 2), answer --help and --list-faults (exit 0). Otherwise the parsed flags.
 */
export function startMockCommand<A extends { help: boolean; listFaults: boolean }>(
  name: string,
  argv: string[],
  io: MockCommandIo,
  o: { parse: (argv: string[]) => A; usage: string; faults: () => ReadonlyArray<{ name: string; rule: string; targets: readonly string[] }> },
): MockCommandStart<A> {
  const out = io.stdout ?? ((text: string) => process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => process.stderr.write(text));
  let args: A;
  try {
    args = o.parse(argv);
  } catch (e) {
    err(`proto-comply mock ${name}: ${(e as Error).message}\n`);
    return { exit: 2 };
  }
  if (args.help) {
    out(`${o.usage}\n`);
    return { exit: 0 };
  }
  if (args.listFaults) {
    out(formatFaultList(o.faults()));
    return { exit: 0 };
  }
  return { args: args as ServingArgs<A>, out, err };
}
