/**
 * How a run takes a buyer's webhook receiver (`--receiver URL` and friends): URL validation, the
 * ReceiverTarget handed to the engine, and receiver-only runs (no agent): the suite selection is
 * limited to suites that need no agent, and each transport is a ReceiverOnlyTransport standing
 * for one webhook envelope.
 */
import type { ReceiverTarget } from '../../engine/resources.js';
import { MIN_LEGACY_SECRET_CHARS } from '../../signing/legacy/legacy-hmac.js';
import { TransportConfigError, validateHttpUrl } from '../../transport/index.js';
import type { Transport, TransportKind } from '../../transport/types.js';
import { BRAND_PATH } from './sender.js';
import { RECEIVER_ONLY_SUITES, ReceiverOnlyTransport } from './transport.js';

export type ReceiverOptions = Omit<ReceiverTarget, 'url'>;

/** Validate the receiver options; undefined when the run has no receiver. */
export function receiverTargetOf(url: string | undefined, opts: ReceiverOptions = {}): ReceiverTarget | undefined {
  if (url === undefined) {
    const given = Object.entries(opts)
      .filter(([k, v]) => k !== 'url' && v !== undefined)
      .map(([k]) => k);
    if (given.length > 0) throw new TransportConfigError(`receiver options (${given.join(', ')}) need a receiver URL (--receiver)`);
    return undefined;
  }
  validateHttpUrl(url, 'receiver URL');
  if (opts.stateUrl !== undefined) validateHttpUrl(opts.stateUrl, 'receiver state URL');
  if (opts.altUrl !== undefined) {
    validateHttpUrl(opts.altUrl, 'second receiver endpoint URL');
    if (opts.altUrl === url) throw new TransportConfigError('the second receiver endpoint must differ from the receiver URL');
  }
  if (opts.senderBrandUrl !== undefined && !validateHttpUrl(opts.senderBrandUrl, 'sender brand URL').pathname.endsWith(BRAND_PATH)) {
    throw new TransportConfigError(`the sender brand URL must end in ${BRAND_PATH}`);
  }
  if (opts.dedupBound !== undefined && (!Number.isInteger(opts.dedupBound) || opts.dedupBound < 1)) {
    throw new TransportConfigError(`the receiver dedup bound must be a positive integer, got ${opts.dedupBound}`);
  }
  if (opts.senderPort !== undefined && (!Number.isInteger(opts.senderPort) || opts.senderPort < 0 || opts.senderPort > 65_535)) {
    throw new TransportConfigError(`the sender port must be an integer 0-65535, got ${opts.senderPort}`);
  }
  for (const [scheme, legacy] of [
    ['HMAC', opts.hmac],
    ['Bearer', opts.bearer],
  ] as const) {
    if (legacy === undefined) continue;
    validateHttpUrl(legacy.url, `${scheme} receiver endpoint URL`);
    if (legacy.url === url)
      throw new TransportConfigError(`the ${scheme} receiver endpoint must differ from the receiver URL (one endpoint, one authentication mode)`);
    if ([...legacy.secret].length < MIN_LEGACY_SECRET_CHARS) {
      throw new TransportConfigError(`the ${scheme} endpoint's credential must have at least ${MIN_LEGACY_SECRET_CHARS} characters (interface spec 8)`);
    }
  }
  if (opts.bootstrap !== undefined) {
    const b = opts.bootstrap;
    if (!b.url.includes('{slot}')) throw new TransportConfigError('the receiver bootstrap URL must contain {slot} (the sender agent each endpoint belongs to)');
    validateHttpUrl(b.url.replace('{slot}', 'mcp-good'), 'receiver bootstrap URL');
    if (!Number.isInteger(b.port) || b.port < 1 || b.port > 65_535)
      throw new TransportConfigError(`the bootstrap sender port must be an integer 1-65535, got ${b.port}`);
  }
  if (opts.hmac !== undefined && opts.hmac.url === opts.bearer?.url) throw new TransportConfigError('the HMAC and Bearer receiver endpoints must differ');
  const target: ReceiverTarget = { url };
  if (opts.stateUrl !== undefined) target.stateUrl = opts.stateUrl;
  if (opts.altUrl !== undefined) target.altUrl = opts.altUrl;
  if (opts.dedupBound !== undefined) target.dedupBound = opts.dedupBound;
  if (opts.senderPort !== undefined) target.senderPort = opts.senderPort;
  if (opts.senderBrandUrl !== undefined) target.senderBrandUrl = opts.senderBrandUrl;
  if (opts.hmac !== undefined) target.hmac = { url: opts.hmac.url, secret: opts.hmac.secret };
  if (opts.bearer !== undefined) target.bearer = { url: opts.bearer.url, secret: opts.bearer.secret };
  if (opts.bootstrap !== undefined) target.bootstrap = { ...opts.bootstrap };
  return target;
}

/** Suite ids a receiver-only run may select; throws for suites that need an agent. */
export function receiverOnlySuites(selection: string[] | undefined): string[] {
  if (selection === undefined) return [...RECEIVER_ONLY_SUITES];
  const needAgent = selection.filter((s) => !RECEIVER_ONLY_SUITES.includes(s));
  if (needAgent.length > 0) {
    throw new TransportConfigError(
      `suite ${needAgent.map((s) => JSON.stringify(s)).join(', ')} needs an agent (--agent URL); without one only ${RECEIVER_ONLY_SUITES.join(', ')} runs`,
    );
  }
  return selection;
}

export function receiverOnlyTransports(kinds: readonly TransportKind[], target: ReceiverTarget): Transport[] {
  return kinds.map((k) => new ReceiverOnlyTransport(k, target.url));
}
