/**
 * `proto-comply keys [--jwks | --agent-config | --serve] [--token T] [--host H] [--port N]`
 *
 * The harness's TEST-ONLY counterparty keys for the `signatures` suite: the public JWKS an agent
 * is configured to trust (`--jwks`, the default), the whole agent-side configuration the suite
 * assumes (`--agent-config`: trusted JWKS, pre-revoked key id, per-keyid cap), or a loopback
 * server publishing brand.json + JWKS until SIGINT/SIGTERM (`--serve`), for agents that resolve
 * keys through a brand declaration. Bad flags: one line on stderr, exit code 2.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_TOKEN, protocolIds, TokenError } from '../core/token.js';
import { agentConfiguration, counterpartyKeys } from '../core/signing/keys/counterparty.js';
import { startCounterpartyServer } from '../core/signing/keys/counterparty-server.js';
import { FlagError, waitForStop, parsePortFlag } from '../core/cli-kit/serve.js';

export const KEYS_HELP = `Usage: proto-comply keys [--jwks | --agent-config | --serve] [--token T] [--host H] [--port N]

The TEST-ONLY keys the harness signs with as a test counterparty (signatures suite). Configure
them on a sandbox or staging agent only, never in a production trust store.

  --jwks          print the public JWKS the agent must trust (default)
  --agent-config  print the agent-side configuration the suite assumes: trusted JWKS, the
                  pre-revoked key id, the per-keyid cap for this counterparty, the key roles
  --serve         serve /.well-known/brand.json and /.well-known/jwks.json until interrupted
  --host H        address for --serve (default 127.0.0.1)
  --port N        port for --serve (default: ephemeral)
  --token T       protocol token used in identifiers (default proto): the key purpose member
                  is <token>_use`;

export interface KeysCommandIo {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** Stops --serve like a signal would (tests). */
  stop?: AbortSignal;
}

function parse(argv: string[]) {
  let v;
  try {
    v = parseArgs({
      args: argv,
      allowPositionals: false,
      strict: true,
      options: {
        jwks: { type: 'boolean' },
        'agent-config': { type: 'boolean' },
        serve: { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        token: { type: 'string', default: DEFAULT_TOKEN },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    throw new FlagError((e as Error).message.split('\n')[0]);
  }
  const modes = (['jwks', 'agent-config', 'serve'] as const).filter((m) => v[m]);
  if (modes.length > 1) throw new FlagError(`choose one of --jwks, --agent-config, --serve (got ${modes.map((m) => `--${m}`).join(', ')})`);
  const mode = modes[0] ?? 'jwks';
  if (mode !== 'serve' && (v.host !== undefined || v.port !== undefined)) throw new FlagError('--host and --port apply to --serve only');
  const port = parsePortFlag(v.port);
  let ids;
  try {
    ids = protocolIds(v.token);
  } catch (e) {
    if (e instanceof TokenError) throw new FlagError(`--token: ${e.message}`);
    throw e;
  }
  return { help: v.help === true, mode, ids, host: v.host, port };
}

export async function keysCommand(argv: string[], io: KeysCommandIo = {}): Promise<number> {
  const out = io.stdout ?? ((text: string) => process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => process.stderr.write(text));
  let args;
  try {
    args = parse(argv);
  } catch (e) {
    err(`proto-comply keys: ${(e as Error).message}\n`);
    return 2;
  }
  if (args.help) {
    out(`${KEYS_HELP}\n`);
    return 0;
  }
  if (args.mode === 'jwks') {
    out(`${JSON.stringify(counterpartyKeys(args.ids).jwks, null, 2)}\n`);
    return 0;
  }
  if (args.mode === 'agent-config') {
    out(`${JSON.stringify(agentConfiguration(args.ids), null, 2)}\n`);
    return 0;
  }
  let server;
  try {
    server = await startCounterpartyServer({ ids: args.ids, host: args.host, port: args.port });
  } catch (e) {
    err(`proto-comply keys: cannot serve: ${(e as Error).message}\n`);
    return 1;
  }
  out(`brand.json ${server.brandJsonUrl}\nJWKS       ${server.jwksUrl}\nagent url  ${server.agentUrl}\n`);
  await waitForStop(io.stop);
  await server.close();
  err('key server stopped\n');
  return 0;
}
