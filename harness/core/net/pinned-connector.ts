/**
 * Connections pinned to the addresses the policy checked. Every new socket of an undici
 * dispatcher (first connections and every later one of a keep-alive pool) first goes through
 * `AddressPolicy.resolve`, then connects with a `lookup` that answers only with those checked
 * addresses, so the system resolver is never asked again and DNS rebinding has nothing to rebind.
 * IP literals need no lookup: the literal itself was checked. TLS keeps the host name for SNI and
 * certificate checks.
 */
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates as tlsRootCertificates, type SecureContext } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { AddressRefusedError, type AddressPolicy, type ResolvedAddress } from './address-policy.js';
import { type ConnectTo, connectTarget, defaultPort } from './connect-to.js';

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
 * A connector that opens each socket where the `--connect-to` rules send it (connect-to.ts): the
 * host name and port change, the origin (`host`, hence the TLS server name) does not. The inner
 * connector (pinned or plain) resolves and connects to the rewritten host, so an address policy
 * judges the address actually connected to.
 */
export function connectToConnector(rules: readonly ConnectTo[], inner: buildConnector.connector): buildConnector.connector {
  return (opts, callback) => {
    const port = Number(opts.port) || defaultPort(opts.protocol);
    const to = connectTarget(rules, opts.hostname, port);
    if (!to) return inner(opts, callback);
    // The origin's own name stays the TLS server name (undici derives it from `host` otherwise).
    const servername = opts.servername ?? (isIP(opts.hostname.replace(/^\[(.*)\]$/, '$1')) === 0 ? opts.hostname : undefined);
    return inner({ ...opts, hostname: to.hostname, port: String(to.port), ...(servername ? { servername } : {}) }, callback);
  };
}

/**
 * An undici Agent for `policy`: pinned when the policy denies private addresses, a plain Agent
 * (the system resolver, no extra work per connection) when it refuses nothing; connections follow
 * the policy's `--connect-to` rules either way.
 */
export function policyAgent(policy: AddressPolicy | undefined, options: Agent.Options & { connectTimeoutMs?: number; ca?: string } = {}): Agent {
  const { connectTimeoutMs, ca, ...rest } = options;
  // Extra trusted CAs join the system's (tls `ca` alone would replace them).
  const trust = ca !== undefined ? { secureContext: trustContext(ca) } : {};
  const connect = { ...(connectTimeoutMs !== undefined ? { timeout: connectTimeoutMs } : {}), ...trust };
  const rules = policy?.connectTo ?? [];
  if (!policy?.denyPrivate) {
    if (rules.length === 0) return new Agent({ ...rest, connect });
    return new Agent({ ...rest, connect: connectToConnector(rules, buildConnector(connect)) });
  }
  const pinned = pinnedConnector(policy, connect);
  return new Agent({ ...rest, connect: rules.length === 0 ? pinned : connectToConnector(rules, pinned) });
}

/** At most this many secure contexts with extra CAs are kept (one per distinct CA PEM). */
const MAX_TRUST_CONTEXTS = 16;
const trustContexts = new Map<string, SecureContext>();

/**
 * The TLS context trusting the system's roots plus `ca`, made once per CA and reused: given as
 * `ca` instead, every connection parsed the whole root list again (about 150 certificates, tens of
 * milliseconds of CPU per https connection of a test counterparty).
 */
function trustContext(ca: string): SecureContext {
  let context = trustContexts.get(ca);
  if (context === undefined) {
    if (trustContexts.size >= MAX_TRUST_CONTEXTS) trustContexts.delete(trustContexts.keys().next().value!);
    context = createSecureContext({ ca: [...tlsRootCertificates, ca] });
    trustContexts.set(ca, context);
  }
  return context;
}
