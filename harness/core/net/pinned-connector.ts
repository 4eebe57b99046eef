/**
 * Connections pinned to the addresses the policy checked. Every new socket of an undici
 * dispatcher (first connections and every later one of a keep-alive pool) first goes through
 * `AddressPolicy.resolve`, then connects with a `lookup` that answers only with those checked
 * addresses, so the system resolver is never asked again and DNS rebinding has nothing to rebind.
 * IP literals need no lookup: the literal itself was checked. TLS keeps the host name for SNI and
 * certificate checks.
 */
import type { LookupAddress } from 'node:dns';
import { createSecureContext, rootCertificates as tlsRootCertificates, type SecureContext } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { AddressRefusedError, type AddressPolicy, type ResolvedAddress } from './address-policy.js';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** An undici connector that resolves through `policy` and connects to the checked addresses only. */
export function pinnedConnector(policy: AddressPolicy, options: buildConnector.BuildOptions = {}): buildConnector.connector {
  // The addresses of the socket being opened right now. net.connect / tls.connect call `lookup`
  // synchronously, so it is set just before the base connector runs and cleared right after; a
  // lookup at any other moment finds nothing and fails closed.
  let pinned: { host: string; addresses: readonly ResolvedAddress[] } | undefined;
  const lookup = (host: string, o: { all?: boolean }, cb: LookupCallback): void => {
    const p = pinned;
    if (!p || p.host !== host) {
      cb(new AddressRefusedError(host, undefined, undefined, `refused: ${host} was not resolved through the address policy`), '');
      return;
    }
    if (o?.all)
      cb(
        null,
        p.addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else cb(null, p.addresses[0]!.address, p.addresses[0]!.family);
  };
  const base = buildConnector({ ...options, lookup } as buildConnector.BuildOptions);
  return (opts, callback) => {
    policy.resolve(opts.hostname).then(
      (addresses) => {
        pinned = { host: opts.hostname, addresses };
        try {
          base(opts, callback);
        } finally {
          pinned = undefined;
        }
      },
      (err: Error) => callback(err, null),
    );
  };
}

/**
 * An undici Agent for `policy`: pinned when the policy denies private addresses, a plain Agent
 * (the system resolver, no extra work per connection) when it refuses nothing.
 */
export function policyAgent(policy: AddressPolicy | undefined, options: Agent.Options & { connectTimeoutMs?: number; ca?: string } = {}): Agent {
  const { connectTimeoutMs, ca, ...rest } = options;
  const trust = ca !== undefined ? { secureContext: trustingAlso(ca) } : {};
  const connect = { ...(connectTimeoutMs !== undefined ? { timeout: connectTimeoutMs } : {}), ...trust };
  if (!policy?.denyPrivate) return new Agent({ ...rest, connect });
  return new Agent({ ...rest, connect: pinnedConnector(policy, connect) });
}

/** Secure contexts that trust the system's CAs plus one more, by that CA's PEM (a few at most: a run's test CA). */
const contexts = new Map<string, SecureContext>();
const MAX_CONTEXTS = 8;

/**
 * A TLS context trusting the system's CAs and `ca` (tls `ca` alone would replace them), made once
 * per CA: given as `ca` per connection, node parses the whole system store again for every socket
 * (tens of milliseconds of CPU each).
 */
function trustingAlso(ca: string): SecureContext {
  let ctx = contexts.get(ca);
  if (ctx) return ctx;
  ctx = createSecureContext({ ca: [...tlsRootCertificates, ca] });
  if (contexts.size >= MAX_CONTEXTS) contexts.delete(contexts.keys().next().value!);
  contexts.set(ca, ctx);
  return ctx;
}
