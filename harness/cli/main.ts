/** The `proto-comply` command: dispatches to subcommands; usage errors exit 2 with one line. */
import { HARNESS_VERSION } from '../core/version.js';
import { MAIN_HELP, UsageError } from './usage.js';
import { oneLine } from '../../reports/text.js';

type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./run-command.js')).runCommand,
  fuzz: async () => (await import('./fuzz-command.js')).fuzzCommand,
  proxy: async () => (await import('./proxy-command.js')).proxyCommand,
  vectors: async () => (await import('./vectors-command.js')).vectorsCommand,
  keys: async () => (await import('./keys-command.js')).keysCommand,
  mock: async () => mockCommand,
  baseline: async () => (await import('./baseline-command.js')).baselineCommand,
  summary: async () => (await import('./summary-command.js')).summaryCommand,
  diff: async () => (await import('./diff-command.js')).diffCommand,
  rules: async () => (await import('./rules-command.js')).rulesCommand,
  registry: async () => (await import('./registry-command.js')).registryCommand,
  badge: async () => (await import('./badge-command.js')).badgeCommand,
};

async function mockCommand(argv: string[]): Promise<number> {
  const [which, ...rest] = argv;
  switch (which) {
    case 'seller':
      return (await import('../../mocks/seller/cli.js')).mockSellerCommand(rest);
    case 'buyer':
      return (await import('../../mocks/buyer/cli.js')).mockBuyerCommand(rest);
    case 'registry':
      return (await import('../../mocks/registry/cli.js')).mockRegistryCommand(rest);
    default:
      throw new UsageError(`mock: expected "seller", "buyer" or "registry", got ${which === undefined ? 'nothing' : JSON.stringify(which)}`);
  }
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      process.stdout.write(`${MAIN_HELP}\n`);
      return name === undefined ? 2 : 0;
    }
    if (name === '--version' || name === '-v') {
      process.stdout.write(`proto-comply ${HARNESS_VERSION}\n`);
      return 0;
    }
    const load = COMMANDS[name];
    if (!load) throw new UsageError(`unknown command ${JSON.stringify(name)} (commands: ${Object.keys(COMMANDS).join(', ')})`);
    return await (await load())(rest);
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`proto-comply: ${(e as Error).message}\n`);
      return 2;
    }
    process.stderr.write(`proto-comply: internal error: ${oneLine(e instanceof Error ? e.message : String(e), 400)}\n`);
    if (process.env.PROTO_COMPLY_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
    return 5;
  }
}
