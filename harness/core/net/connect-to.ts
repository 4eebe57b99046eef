/**
 * `--connect-to HOST:PORT:CONNECT_HOST:CONNECT_PORT`, as curl's: a request to HOST:PORT opens its
 * connection to CONNECT_HOST:CONNECT_PORT instead. Only the socket moves: the URL, the Host header,
 * the TLS server name and the origin the run's credentials are bound to stay HOST:PORT, so an agent
 * named `https://seller.example/` can be certified on a staging address, or a test can name a local
 * mock port-less (`http://seller.test/` on an ephemeral loopback port). An empty HOST or PORT
 * matches any; an empty CONNECT_HOST or CONNECT_PORT keeps the request's own. IPv6 addresses go in
 * brackets. Under `--deny-private` the address policy judges CONNECT_HOST, the address actually
 * connected to (address-policy.ts, pinned-connector.ts).
 */
import { isIP } from 'node:net';

export interface ConnectTo {
  /** Lower-case host name or IP (IPv6 without brackets); undefined: any host. */
  host?: string;
  /** undefined: any port. */
  port?: number;
  /** undefined: the request's own host. */
  connectHost?: string;
  /** undefined: the request's own port. */
  connectPort?: number;
}

export class ConnectToError extends Error {
  override name = 'ConnectToError';
}

const MAX_RULES = 64;

/** Split `a:b:c:d`, where a bracketed IPv6 literal may hold colons. */
function fields(spec: string): string[] {
  const out: string[] = [];
  let rest = spec;
  while (out.length < 3) {
    if (rest.startsWith('[')) {
      const close = rest.indexOf(']');
      if (close < 0 || (rest[close + 1] !== ':' && close + 1 !== rest.length)) throw new ConnectToError(`unclosed IPv6 bracket in ${JSON.stringify(spec)}`);
      out.push(rest.slice(0, close + 1));
      rest = rest.slice(close + 2);
    } else {
      const colon = rest.indexOf(':');
      if (colon < 0) break;
      out.push(rest.slice(0, colon));
      rest = rest.slice(colon + 1);
    }
  }
  out.push(rest);
  return out;
}

function host(text: string, what: string, spec: string): string | undefined {
  if (text === '') return undefined;
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (text.startsWith('[') && isIP(bare) !== 6) throw new ConnectToError(`${what} ${JSON.stringify(text)} in ${JSON.stringify(spec)} is not an IPv6 address`);
  if (!text.startsWith('[') && isIP(bare) === 6)
    throw new ConnectToError(`${what} ${JSON.stringify(text)} in ${JSON.stringify(spec)}: put an IPv6 address in brackets`);
  if (!/^[A-Za-z0-9._:-]{1,253}$/.test(bare))
    throw new ConnectToError(`${what} ${JSON.stringify(text)} in ${JSON.stringify(spec)} is not a host name or address`);
  return bare.toLowerCase().replace(/\.$/, '');
}

function port(text: string, what: string, spec: string): number | undefined {
  if (text === '') return undefined;
  const n = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= 65535)) throw new ConnectToError(`${what} ${JSON.stringify(text)} in ${JSON.stringify(spec)} is not a port (1-65535)`);
  return n;
}

/** Parses one `HOST:PORT:CONNECT_HOST:CONNECT_PORT`; throws ConnectToError naming what is wrong. */
export function parseConnectTo(spec: string): ConnectTo {
  const f = fields(spec.trim());
  if (f.length !== 4) throw new ConnectToError(`${JSON.stringify(spec)} is not HOST:PORT:CONNECT_HOST:CONNECT_PORT`);
  const rule: ConnectTo = {};
  const h = host(f[0]!, 'HOST', spec);
  const p = port(f[1]!, 'PORT', spec);
  const ch = host(f[2]!, 'CONNECT_HOST', spec);
  const cp = port(f[3]!, 'CONNECT_PORT', spec);
  if (h !== undefined) rule.host = h;
  if (p !== undefined) rule.port = p;
  if (ch !== undefined) rule.connectHost = ch;
  if (cp !== undefined) rule.connectPort = cp;
  return rule;
}

/** Parses every `--connect-to` value (at most 64). */
export function parseConnectToList(specs: readonly string[]): ConnectTo[] {
  if (specs.length > MAX_RULES) throw new ConnectToError(`at most ${MAX_RULES} --connect-to rules`);
  return specs.map(parseConnectTo);
}

/** The port a URL's scheme connects to when the URL names none. */
export function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

/**
 * Where a connection to `hostname:port` goes under `rules` (the first rule that matches), or
 * undefined when none matches. `hostname` may be a bracketed IPv6 literal.
 */
export function connectTarget(rules: readonly ConnectTo[], hostname: string, port: number): { hostname: string; port: number } | undefined {
  if (rules.length === 0) return undefined;
  const h = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');
  const rule = rules.find((r) => (r.host === undefined || r.host === h) && (r.port === undefined || r.port === port));
  if (!rule) return undefined;
  return { hostname: rule.connectHost ?? h, port: rule.connectPort ?? port };
}

/** The rules in `HOST:PORT:CONNECT_HOST:CONNECT_PORT` form, for notes and reports. */
export function describeConnectTo(rules: readonly ConnectTo[]): string {
  const h = (x: string | undefined) => (x === undefined ? '' : isIP(x) === 6 ? `[${x}]` : x);
  return rules.map((r) => `${h(r.host)}:${r.port ?? ''}:${h(r.connectHost)}:${r.connectPort ?? ''}`).join(', ');
}
