/**
 * `proto-comply mock registry [--port N] [--host H] [--api-key K]... [--fault NAME]... [--db FILE]
 *  [--agent URL [--agent-capability TASK]... [--agent-jwks URL]] [--list-faults]`
 *
 * Starts the reference mock registry, prints its URLs (and the API key it made, when none was
 * given), runs until SIGINT/SIGTERM. With `--agent`, the test publisher's adagents.json and the
 * test brand's brand.json name that agent, and its key set (`--agent-jwks`, default
 * `<agent origin>/.well-known/jwks.json`, fetched once at start) is the brand's key set and the
 * publisher's pin. Bad flags: one line on stderr, exit code 2.
 */
import { FlagError, type MockCommandIo, parseMockFlags, startMockCommand, waitForStop } from '../../harness/core/cli-kit/serve.js';
import { PRIVATE_JWK_MEMBERS } from '../../harness/core/discovery/jwks-audit.js';
import { fetchDiscoveryJson } from '../../harness/core/discovery/fetch.js';
import { REGISTRY_FAULTS, UnknownRegistryFaultError } from './faults.js';
import { startMockRegistry } from './index.js';

const USAGE =
  'usage: proto-comply mock registry [--port N] [--host H] [--api-key K]... [--fault NAME]... [--db FILE] ' +
  '[--agent URL [--agent-capability TASK]... [--agent-jwks URL]] [--list-faults]';
const DEFAULT_CAPABILITIES = ['get_products', 'create_media_buy', 'get_media_buys', 'get_media_buy_delivery'];
const MAX_JWKS_BYTES = 256 * 1024;

function parse(argv: string[]) {
  const { values: v, port } = parseMockFlags(argv, {
    'api-key': { type: 'string', multiple: true },
    db: { type: 'string' },
    agent: { type: 'string' },
    'agent-capability': { type: 'string', multiple: true },
    'agent-jwks': { type: 'string' },
  });
  const url = (raw: string | undefined, flag: string): URL | undefined => {
    if (raw === undefined) return undefined;
    try {
      const u = new URL(raw);
      if (u.protocol === 'http:' || u.protocol === 'https:') return u;
    } catch {
      // reported below
    }
    throw new FlagError(`${flag} must be an http(s) URL, got ${JSON.stringify(raw.slice(0, 200))}`);
  };
  const agent = url(v.agent, '--agent');
  const jwks = url(v['agent-jwks'], '--agent-jwks');
  if (!agent && (jwks || v['agent-capability'])) throw new FlagError('--agent-capability and --agent-jwks describe the agent of --agent');
  return {
    help: v.help === true,
    listFaults: v['list-faults'] === true,
    port,
    host: v.host,
    apiKeys: v['api-key'],
    faults: v.fault ?? [],
    dbPath: v.db,
    agent,
    capabilities: v['agent-capability']?.flatMap((c) => c.split(',')).filter(Boolean) ?? DEFAULT_CAPABILITIES,
    jwks: jwks ?? (agent ? new URL('/.well-known/jwks.json', agent) : undefined),
  };
}

/** The public keys of the agent's key set; none (with a warning) when it cannot be read. */
async function agentKeys(url: URL, warn: (line: string) => void): Promise<Array<Record<string, unknown>>> {
  const doc = await fetchDiscoveryJson(url.href, { allowInsecureLoopback: true, maxBytes: MAX_JWKS_BYTES });
  const keys = doc.ok ? (doc.value as { keys?: unknown } | null)?.keys : undefined;
  if (!Array.isArray(keys)) {
    warn(
      `mock registry: the agent's key set could not be read (${doc.ok ? `${url.href}: no keys array` : doc.message}); the brand's key set and the pin are empty`,
    );
    return [];
  }
  const isPrivate = (m: string) => (PRIVATE_JWK_MEMBERS as readonly string[]).includes(m);
  return keys.filter((k) => k && typeof k === 'object').map((k) => Object.fromEntries(Object.entries(k).filter(([m]) => !isPrivate(m))));
}

export async function mockRegistryCommand(argv: string[], io: MockCommandIo = {}): Promise<number> {
  const start = startMockCommand('registry', argv, io, { parse, usage: USAGE, faults: () => REGISTRY_FAULTS });
  if ('exit' in start) return start.exit;
  const { args, out, err } = start;
  let registry;
  try {
    registry = await startMockRegistry({
      port: args.port,
      host: args.host,
      apiKeys: args.apiKeys,
      faults: args.faults,
      dbPath: args.dbPath,
      ...(args.agent
        ? {
            agents: [{ url: args.agent.href, protocol: 'mcp' as const, capabilities: args.capabilities }],
            agentKeys: await agentKeys(args.jwks!, (line) => err(`${line}\n`)),
          }
        : {}),
    });
  } catch (e) {
    const usage = e instanceof UnknownRegistryFaultError || /API keys/.test((e as Error).message);
    err(`proto-comply mock registry: ${usage ? '' : 'cannot start: '}${(e as Error).message}\n`);
    return usage ? 2 : 1;
  }
  out(`registry  ${registry.baseUrl}\nadagents  ${registry.adagentsUrl}\nbrand     ${registry.brandUrl}\n`);
  if (!args.apiKeys) out(`api key   ${registry.apiKeys[0]} (made for this run; give your own with --api-key)\n`);
  await waitForStop(io.stop);
  await registry.close();
  err('mock registry stopped\n');
  return 0;
}
