/**
 * The `run` flags for certifying a buyer's webhook receiver, kept here so run-args.ts only
 * spreads them in:
 *   --receiver URL              the receiver under test (without --agent: a receiver-only run)
 *   --receiver-state URL        its read-back hook (GET <url>?task_id=...; suites/webhook-receiver/README.md)
 *   --receiver-alt URL          a second endpoint of the same receiver (shared dedup check)
 *   --receiver-dedup-bound N    the per-sender dedup bound it applies to the harness flood sender
 *   --sender-port N             port of the harness's sender brand.json/JWKS (default ephemeral)
 *   --receiver-hmac URL         an endpoint of it registered for legacy HMAC-SHA256, whose shared
 *                               secret is read from $PROTO_COMPLY_RECEIVER_HMAC_SECRET (never a flag)
 *   --receiver-bearer URL       an endpoint registered for the legacy Bearer scheme, its credential
 *                               read from $PROTO_COMPLY_RECEIVER_BEARER_TOKEN
 *   --receiver-bootstrap URL    endpoints registered each for one bootstrap sender agent, `{slot}`
 *                               naming it; with --bootstrap-port N and --bootstrap-ca-dir DIR
 */
import { TransportConfigError } from '../core/transport/errors.js';
import type { ReceiverTarget } from '../core/engine/resources.js';
import { receiverTargetOf } from '../core/webhooks/receiver-probe/run.js';
import { startSenderIdentity, type SenderIdentity } from '../core/webhooks/receiver-probe/sender.js';
import { BEARER_TOKEN_ENV, HMAC_SECRET_ENV } from '../core/webhooks/receiver-probe/credentials-env.js';

export const RECEIVER_RUN_OPTIONS = {
  receiver: { type: 'string' },
  'receiver-state': { type: 'string' },
  'receiver-alt': { type: 'string' },
  'receiver-dedup-bound': { type: 'string' },
  'sender-port': { type: 'string' },
  'receiver-hmac': { type: 'string' },
  'receiver-bearer': { type: 'string' },
  'receiver-bootstrap': { type: 'string' },
  'bootstrap-port': { type: 'string' },
  'bootstrap-ca-dir': { type: 'string' },
} as const;

export class ReceiverFlagError extends Error {}

type Values = Partial<Record<keyof typeof RECEIVER_RUN_OPTIONS, string | undefined>>;

function intFlag(flag: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new ReceiverFlagError(`--${flag} must be an integer ${min}-${max}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function legacyFromFlags(
  flag: 'receiver-hmac' | 'receiver-bearer',
  envName: string,
  v: Values,
  env: NodeJS.ProcessEnv,
): { url: string; secret: string } | undefined {
  const url = v[flag];
  if (url === undefined) return undefined;
  const secret = env[envName];
  if (!secret) throw new ReceiverFlagError(`--${flag} needs the endpoint's ${flag === 'receiver-hmac' ? 'shared secret' : 'credential'} in $${envName}`);
  return { url, secret };
}

function bootstrapFromFlags(v: Values): ReceiverTarget['bootstrap'] {
  const url = v['receiver-bootstrap'];
  if (url === undefined) {
    if (v['bootstrap-port'] !== undefined || v['bootstrap-ca-dir'] !== undefined)
      throw new ReceiverFlagError('--bootstrap-port and --bootstrap-ca-dir need --receiver-bootstrap URL');
    return undefined;
  }
  const port = intFlag('bootstrap-port', v['bootstrap-port'], 1, 65_535);
  const caDir = v['bootstrap-ca-dir'];
  // The receiver is configured ahead: it must know the agents' port and the CA to trust.
  if (port === undefined || caDir === undefined)
    throw new ReceiverFlagError('--receiver-bootstrap needs --bootstrap-port N and --bootstrap-ca-dir DIR (configured in the receiver ahead)');
  return { url, port, caDir };
}

/** The validated receiver target from the flags (undefined without --receiver). */
export function receiverFromFlags(v: Values, env: NodeJS.ProcessEnv = process.env): ReceiverTarget | undefined {
  try {
    return receiverTargetOf(v.receiver, {
      hmac: legacyFromFlags('receiver-hmac', HMAC_SECRET_ENV, v, env),
      bearer: legacyFromFlags('receiver-bearer', BEARER_TOKEN_ENV, v, env),
      stateUrl: v['receiver-state'],
      altUrl: v['receiver-alt'],
      dedupBound: intFlag('receiver-dedup-bound', v['receiver-dedup-bound'], 1, 1_000_000_000),
      senderPort: intFlag('sender-port', v['sender-port'], 0, 65_535),
      bootstrap: bootstrapFromFlags(v),
    });
  } catch (e) {
    if (e instanceof TransportConfigError) throw new ReceiverFlagError(e.message);
    throw e;
  }
}

/** The receiver flags of the command that reproduces a run. */
export function receiverReproduceFlags(r: ReceiverTarget | undefined, quote: (s: string) => string): string[] {
  if (!r) return [];
  const parts = [`--receiver ${quote(r.url)}`];
  if (r.stateUrl) parts.push(`--receiver-state ${quote(r.stateUrl)}`);
  if (r.altUrl) parts.push(`--receiver-alt ${quote(r.altUrl)}`);
  if (r.dedupBound !== undefined) parts.push(`--receiver-dedup-bound ${r.dedupBound}`);
  if (r.senderPort !== undefined) parts.push(`--sender-port ${r.senderPort}`);
  if (r.hmac) parts.push(`--receiver-hmac ${quote(r.hmac.url)}`);
  if (r.bearer) parts.push(`--receiver-bearer ${quote(r.bearer.url)}`);
  if (r.bootstrap) {
    parts.push(`--receiver-bootstrap ${quote(r.bootstrap.url)} --bootstrap-port ${r.bootstrap.port}`);
    if (r.bootstrap.caDir !== undefined) parts.push(`--bootstrap-ca-dir ${quote(r.bootstrap.caDir)}`);
  }
  return parts;
}

/**
 * Start the harness's sender identity before the run, so its brand URL can be printed (and
 * configured in the receiver when the port is fixed). The run uses it through `senderBrandUrl`.
 */
export async function startRunSender(
  r: ReceiverTarget,
  token: string,
  log: (line: string) => void,
): Promise<{ target: ReceiverTarget; sender: SenderIdentity }> {
  const sender = await startSenderIdentity({ token, port: r.senderPort });
  log(`proto-comply: webhook sender identity (TEST-ONLY keys): ${sender.brandJsonUrl} — the receiver must trust this brand declaration`);
  log(
    `proto-comply:   senders ${sender.agentUrls.main} (deliveries), ${sender.agentUrls.second} (a second sender) and ${sender.agentUrls.flood} (dedup-bound flood)`,
  );
  log(`proto-comply:   publisher declaration ${sender.publisherDeclarationUrl} — its signing_keys[] pin must be applied too`);
  if (r.senderPort === undefined) log('proto-comply:   the port is ephemeral; use --sender-port N to keep the URL stable across runs');
  return { target: { ...r, senderBrandUrl: sender.brandJsonUrl }, sender };
}
