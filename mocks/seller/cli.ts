/**
 * `proto-comply mock seller [--port N] [--host H] [--token T] [--auth-token T] [--fault NAME]...
 *  [--db FILE] [--reply-mode sse|json] [--no-controller] [--allow-private-webhooks] [--kind KIND[,KIND]]... [--line 3.0|3.1|3.2]
 *  [--rate-limit INSERTS/MS] [--list-faults]`
 *
 * Starts the reference mock seller, prints its URLs, runs until SIGINT/SIGTERM, then closes
 * cleanly and returns 0. Bad flags: one line on stderr, exit code 2.
 */
import { TokenError } from '../../harness/core/token.js';
import { AGENT_KINDS, type AgentKind, isAgentKind } from '../../harness/core/protocol/agent-kinds.js';
import { DEFAULT_TARGET, PROTOCOL_LINES, type ProtocolLine, isProtocolLine } from '../../harness/core/protocol/lines.js';
import { UnknownFaultError, listFaults } from './faults.js';
import { startMockSeller } from './index.js';
import { FlagError, type MockCommandIo, parseMockFlags, startMockCommand, waitForStop } from '../../harness/core/cli-kit/serve.js';

export type MockSellerCommandIo = MockCommandIo;

const USAGE =
  'usage: proto-comply mock seller [--port N] [--host H] [--token T] [--auth-token T] [--fault NAME]... [--db FILE] [--reply-mode sse|json] [--no-controller] ' +
  '[--allow-private-webhooks] [--kind KIND[,KIND]]... [--line 3.0|3.1|3.2] [--rate-limit INSERTS/MS] [--list-faults]\n' +
  `  --kind KIND               serve only these agent kinds' tasks (${AGENT_KINDS.join(', ')}; default all)\n` +
  `  --line LINE               the protocol line it speaks (${PROTOCOL_LINES.join(', ')}; default ${DEFAULT_TARGET}): its declared versions and line-specific rules\n` +
  '  --rate-limit INSERTS/MS   at most INSERTS new idempotency keys per account in any MS ms, then RATE_LIMITED with retry_after (default none)\n' +
  '  --allow-private-webhooks  local testing: accept webhook URLs on loopback/private networks, over http too (never link-local or metadata)\n' +
  '                            (default: https and public addresses only, digest 5.9)';

function parse(argv: string[]) {
  const { values: v, port } = parseMockFlags(argv, {
    token: { type: 'string' },
    'auth-token': { type: 'string' },
    db: { type: 'string' },
    'reply-mode': { type: 'string' },
    'no-controller': { type: 'boolean' },
    'allow-private-webhooks': { type: 'boolean' },
    kind: { type: 'string', multiple: true },
    line: { type: 'string' },
    'rate-limit': { type: 'string' },
  });
  if (v.line !== undefined && !isProtocolLine(v.line)) throw new FlagError(`--line must be one of ${PROTOCOL_LINES.join(', ')}, got ${JSON.stringify(v.line)}`);
  const replyMode = v['reply-mode'];
  if (replyMode !== undefined && replyMode !== 'sse' && replyMode !== 'json') {
    throw new FlagError(`--reply-mode must be "sse" or "json", got ${JSON.stringify(replyMode)}`);
  }
  if (v['auth-token'] !== undefined && v['auth-token'].trim() === '') throw new FlagError('--auth-token must not be empty');
  const rate = v['rate-limit'] === undefined ? undefined : /^([1-9]\d{0,5})\/([1-9]\d{0,6})$/.exec(v['rate-limit']);
  if (rate === null || (rate && Number(rate[2]) > 3_600_000))
    throw new FlagError(`--rate-limit must be INSERTS/MS (e.g. 20/1000, MS at most 3600000), got ${JSON.stringify(v['rate-limit'])}`);
  const kinds = (v.kind ?? []).flatMap((k) => k.split(',')).map((k) => k.trim());
  for (const k of kinds) if (!isAgentKind(k)) throw new FlagError(`--kind ${JSON.stringify(k)} is no agent kind (known: ${AGENT_KINDS.join(', ')})`);
  return {
    help: v.help === true,
    listFaults: v['list-faults'] === true,
    options: {
      port,
      host: v.host,
      token: v.token,
      authToken: v['auth-token'],
      faults: v.fault ?? [],
      dbPath: v.db,
      mcpReplyMode: replyMode as 'sse' | 'json' | undefined,
      testController: v['no-controller'] !== true,
      allowPrivateWebhooks: v['allow-private-webhooks'] === true,
      ...(kinds.length ? { kinds: [...new Set(kinds)] as AgentKind[] } : {}),
      ...(v.line !== undefined ? { protocolLine: v.line as ProtocolLine } : {}),
      ...(rate ? { rateLimit: { inserts: Number(rate[1]), windowMs: Number(rate[2]) } } : {}),
    },
  };
}

export async function mockSellerCommand(argv: string[], io: MockSellerCommandIo = {}): Promise<number> {
  const start = startMockCommand('seller', argv, io, { parse, usage: USAGE, faults: listFaults });
  if ('exit' in start) return start.exit;
  const { args, out, err } = start;

  let seller;
  try {
    seller = await startMockSeller({ ...args.options, log: (line) => err(`${line}\n`) });
  } catch (e) {
    if (e instanceof UnknownFaultError || e instanceof TokenError) {
      err(`proto-comply mock seller: ${e.message}\n`);
      return 2;
    }
    err(`proto-comply mock seller: cannot start: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  out(`MCP  ${seller.mcpUrl}\nA2A  ${seller.a2aUrl}\ncard ${seller.agentCardUrl}\nbrand ${seller.brandJsonUrl}\n`);
  await waitForStop(io.stop);
  await seller.close();
  err('mock seller stopped\n');
  return 0;
}
