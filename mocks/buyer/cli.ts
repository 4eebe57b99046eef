/**
 * `proto-comply mock buyer --db FILE [--port N] [--host H] [--token T] [--fault NAME]...
 *  [--list-faults] [--trust-brand URL]... [--trust-publisher URL] [--insecure-loopback]
 *  [--dedup-bound N] [--sender-dedup-bound SENDER=N]... [--endpoint ID]... [--public-url URL]
 *  [--admin-token T] [--hmac-endpoint ID] [--bearer-endpoint ID]`
 *
 * `--hmac-endpoint ID` registers an endpoint for legacy HMAC-SHA256 whose shared secret is read
 * from $PROTO_COMPLY_RECEIVER_HMAC_SECRET (the variable `run --receiver-hmac` reads too);
 * `--bearer-endpoint ID` one for the legacy Bearer scheme, its credential read from
 * $PROTO_COMPLY_RECEIVER_BEARER_TOKEN (as `run --receiver-bearer` does).
 *
 * Starts the mock buyer, prints its receiver, state and admin URLs, runs until SIGINT/SIGTERM,
 * then closes cleanly and returns 0. Bad flags: one line on stderr, exit code 2. Bound to anything
 * but loopback, the admin API needs a bearer token: --admin-token, or one generated and printed.
 */
import { TokenError } from '../../harness/core/token.js';
import { BEARER_TOKEN_ENV, HMAC_SECRET_ENV } from '../../harness/core/webhooks/receiver-probe/credentials-env.js';
import { listBuyerFaults, UnknownBuyerFaultError } from './faults.js';
import { startMockBuyer, type MockBuyerOptions } from './index.js';
import { EndpointConfigError } from './store/endpoints.js';
import { existsSync, readFileSync } from 'node:fs';
import { BOOTSTRAP_HOSTS } from '../../harness/core/webhooks/receiver-probe/bootstrap/variants.js';
import { bootstrapEndpoints } from './trusting-buyer.js';
import { TrustConfigError } from './trust.js';
import { FlagError, type MockCommandIo, parseMockFlags, startMockCommand, waitForStop } from '../../harness/core/cli-kit/serve.js';

export interface MockBuyerCommandIo extends MockCommandIo {
  /** Where `--hmac-endpoint` reads the shared secret (default process.env). */
  env?: NodeJS.ProcessEnv;
}

const USAGE =
  'usage: proto-comply mock buyer --db FILE [--port N] [--host H] [--token T] [--fault NAME]... [--list-faults] ' +
  '[--trust-brand URL]... [--trust-publisher URL] [--insecure-loopback] [--dedup-bound N] [--sender-dedup-bound SENDER=N]... ' +
  '[--endpoint ID]... [--public-url URL] [--admin-token T] [--hmac-endpoint ID] [--bearer-endpoint ID] ' +
  '[--agent-endpoint ID=AGENT_URL]... [--trust-ca FILE] [--bootstrap-sender-port N]';

function positiveInt(flag: string, raw: string): number {
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw new FlagError(`${flag} must be a positive integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

type Parsed = { help: true; listFaults: boolean } | { help: false; listFaults: true } | { help: false; listFaults: false; options: MockBuyerOptions };

function parse(argv: string[], env: NodeJS.ProcessEnv): Parsed {
  const { values: v, port } = parseMockFlags(argv, {
    db: { type: 'string' },
    token: { type: 'string' },
    'trust-brand': { type: 'string', multiple: true },
    'trust-publisher': { type: 'string' },
    'insecure-loopback': { type: 'boolean' },
    'dedup-bound': { type: 'string' },
    'sender-dedup-bound': { type: 'string', multiple: true },
    endpoint: { type: 'string', multiple: true },
    'public-url': { type: 'string' },
    'admin-token': { type: 'string' },
    'hmac-endpoint': { type: 'string' },
    'bearer-endpoint': { type: 'string' },
    'agent-endpoint': { type: 'string', multiple: true },
    'trust-ca': { type: 'string' },
    'bootstrap-sender-port': { type: 'string' },
  });
  if (v.help) return { help: true, listFaults: false };
  if (v['list-faults']) return { help: false, listFaults: true };
  if (v.db === undefined || v.db === '') throw new FlagError('--db FILE is required (the dedup store is durable)');
  const dedupBounds: Record<string, number> = {};
  for (const entry of v['sender-dedup-bound'] ?? []) {
    const at = entry.lastIndexOf('=');
    if (at <= 0) throw new FlagError(`--sender-dedup-bound expects SENDER=N, got ${JSON.stringify(entry)}`);
    dedupBounds[entry.slice(0, at)] = positiveInt('--sender-dedup-bound', entry.slice(at + 1));
  }
  const publisher = v['trust-publisher'];
  const endpoints: MockBuyerOptions['endpoints'] = (v.endpoint ?? []).map((id) => ({ id }));
  for (const [flag, scheme, envName] of [
    ['hmac-endpoint', 'HMAC-SHA256', HMAC_SECRET_ENV],
    ['bearer-endpoint', 'Bearer', BEARER_TOKEN_ENV],
  ] as const) {
    const id = v[flag];
    if (id === undefined) continue;
    const secret = env[envName];
    if (!secret) throw new FlagError(`--${flag} needs the ${scheme === 'Bearer' ? 'credential' : 'shared secret'} in $${envName}`);
    endpoints.push({ id, authentication: { schemes: [scheme], credentials: secret } });
  }
  // Endpoints bound to one seller agent whose keys are found from its URL (digest 1.11 bootstrap).
  for (const entry of v['agent-endpoint'] ?? []) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new FlagError(`--agent-endpoint expects ID=AGENT_URL, got ${JSON.stringify(entry)}`);
    endpoints.push({ id: entry.slice(0, at), senderAgent: entry.slice(at + 1) });
  }
  const bootstrapPort = v['bootstrap-sender-port'] !== undefined ? positiveInt('--bootstrap-sender-port', v['bootstrap-sender-port']) : undefined;
  if (bootstrapPort !== undefined) {
    if (v['insecure-loopback'] !== true) throw new FlagError('--bootstrap-sender-port needs --insecure-loopback (the harness agents are on loopback)');
    endpoints.push(...bootstrapEndpoints(bootstrapPort));
  }
  const caFile = v['trust-ca'];
  const bootstrap = {
    ...(caFile !== undefined ? { caPem: () => (existsSync(caFile) ? readFileSync(caFile, 'utf8') : undefined) } : {}),
    ...(bootstrapPort !== undefined ? { hosts: Object.fromEntries(BOOTSTRAP_HOSTS.map((h) => [h, '127.0.0.1'])) } : {}),
  };
  return {
    help: false,
    listFaults: false,
    options: {
      port,
      host: v.host,
      dbPath: v.db,
      token: v.token,
      faults: v.fault ?? [],
      trust: {
        senders: (v['trust-brand'] ?? []).map((brandJsonUrl) => ({ brandJsonUrl, ...(publisher ? { publisherDeclarationUrl: publisher } : {}) })),
        allowInsecureLoopback: v['insecure-loopback'] === true,
        bootstrap,
      },
      dedupBoundPerSender: v['dedup-bound'] !== undefined ? positiveInt('--dedup-bound', v['dedup-bound']) : undefined,
      dedupBounds,
      endpoints,
      publicBaseUrl: v['public-url'],
      adminToken: v['admin-token'],
    },
  };
}

export async function mockBuyerCommand(argv: string[], io: MockBuyerCommandIo = {}): Promise<number> {
  const env = io.env ?? process.env;
  const start = startMockCommand('buyer', argv, io, { parse: (a) => parse(a, env), usage: USAGE, faults: listBuyerFaults });
  if ('exit' in start) return start.exit;
  const { args, out, err } = start;
  if (args.options.trust.senders.length === 0) err('proto-comply mock buyer: no --trust-brand given: every RFC 9421 webhook will be refused (key unknown)\n');

  let buyer;
  try {
    buyer = await startMockBuyer({ ...args.options, log: (line) => err(`${line}\n`) });
  } catch (e) {
    if (
      e instanceof UnknownBuyerFaultError ||
      e instanceof TokenError ||
      e instanceof TrustConfigError ||
      e instanceof EndpointConfigError ||
      e instanceof RangeError
    ) {
      err(`proto-comply mock buyer: ${e.message}\n`);
      return 2;
    }
    err(`proto-comply mock buyer: cannot start: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  out(`receiver ${buyer.url}\nstate    ${buyer.stateUrl}\nadmin    ${buyer.adminUrl}\n`);
  // Bound beyond loopback without --admin-token: the generated token is the only way in.
  if (buyer.adminToken !== undefined && args.options.adminToken === undefined) out(`admin-token ${buyer.adminToken}\n`);
  for (const e of buyer.endpoints()) if (e.id !== 'default') out(`endpoint ${e.id} ${buyer.baseUrl}${e.path}\n`);
  await waitForStop(io.stop);
  await buyer.close();
  err('mock buyer stopped\n');
  return 0;
}
