/**
 * `@target-uri` canonicalization and `@authority` derivation (digest 1.6).
 *
 * Steps: lower-case scheme; host lower-cased, IDN to A-labels (UTS-46 nontransitional via
 * node's WHATWG `domainToASCII`, then STD3/hyphen checks), exactly one trailing root dot
 * stripped, empty labels rejected, IPv6 bracketed and lower-cased, zone ids rejected;
 * userinfo stripped; default port stripped; percent-encoding normalised (hex upper-cased,
 * unreserved decoded) then remove_dot_segments with `//` kept; query kept byte for byte;
 * fragment dropped.
 *
 * Percent normalisation runs before dot-segment removal (RFC 3986 6.2.2 order) so that
 * `%2E%2E` cannot survive as a `..` segment and the result is idempotent.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';

export type TargetUriErrorKind = 'malformed' | 'non_ascii_host';

export class TargetUriError extends Error {
  override name = 'TargetUriError';
  constructor(
    readonly kind: TargetUriErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface CanonicalTarget {
  /** `https` or `http`. */
  scheme: string;
  /** Canonical host: A-labels, lower case, IPv6 in brackets. */
  host: string;
  /** Port when not the scheme's default. */
  port?: number;
  /** `host[:port]` */
  authority: string;
  /** The canonical `@target-uri`. */
  targetUri: string;
}

export interface CanonicalizeOptions {
  /**
   * Signer side: convert raw U-labels to A-labels. Verifier side (default false): a raw
   * non-ASCII host received on the wire is rejected (`non_ascii_host`), never re-normalised.
   */
  allowUnicodeHost?: boolean;
}

const URI_RE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/s;
const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443 };

/** Canonicalize an absolute http(s) URL. Throws TargetUriError. */
export function canonicalizeTargetUri(url: string, opts: CanonicalizeOptions = {}): CanonicalTarget {
  const m = URI_RE.exec(url);
  if (!m) throw new TargetUriError('malformed', 'not an absolute URI with an authority');
  const scheme = m[1]!.toLowerCase();
  if (!(scheme in DEFAULT_PORTS)) throw new TargetUriError('malformed', `unsupported scheme ${scheme}`);
  const { host, port } = canonicalizeAuthorityParts(m[2]!, scheme, opts, true);
  const authority = port === undefined ? host : `${host}:${port}`;
  const path = removeDotSegments(normalizePercent(m[3]!, 'path')) || '/';
  const query = m[4] ?? '';
  return { scheme, host, port, authority, targetUri: `${scheme}://${authority}${path}${query}` };
}

/**
 * Canonicalize a received `Host` / `:authority` value for the given scheme (no userinfo
 * allowed there). Returns `host[:port]`.
 */
export function canonicalizeAuthority(value: string, scheme: string, opts: CanonicalizeOptions = {}): string {
  const { host, port } = canonicalizeAuthorityParts(value.trim(), scheme.toLowerCase(), opts, false);
  return port === undefined ? host : `${host}:${port}`;
}

function canonicalizeAuthorityParts(raw: string, scheme: string, opts: CanonicalizeOptions, allowUserinfo: boolean): { host: string; port?: number } {
  let hostport = raw;
  const at = raw.lastIndexOf('@');
  if (at !== -1) {
    if (!allowUserinfo) throw new TargetUriError('malformed', 'userinfo in authority');
    hostport = raw.slice(at + 1);
  }
  if (hostport === '') throw new TargetUriError('malformed', 'empty authority / missing host');
  let hostText: string;
  let portText: string | undefined;
  if (hostport.startsWith('[')) {
    const close = hostport.indexOf(']');
    if (close === -1) throw new TargetUriError('malformed', 'IPv6 literal missing closing bracket');
    hostText = hostport.slice(0, close + 1);
    const rest = hostport.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw new TargetUriError('malformed', 'garbage after IPv6 literal');
      portText = rest.slice(1);
    }
  } else {
    const colon = hostport.indexOf(':');
    if (colon !== -1 && hostport.indexOf(':', colon + 1) !== -1) {
      throw new TargetUriError('malformed', 'IPv6 literal not bracketed');
    }
    hostText = colon === -1 ? hostport : hostport.slice(0, colon);
    portText = colon === -1 ? undefined : hostport.slice(colon + 1);
  }
  if (hostText === '') throw new TargetUriError('malformed', 'authority missing host');
  const host = hostText.startsWith('[') ? canonicalIPv6(hostText) : canonicalRegName(hostText, opts);
  let port: number | undefined;
  if (portText !== undefined && portText !== '') {
    if (!/^[0-9]{1,5}$/.test(portText)) throw new TargetUriError('malformed', 'invalid port');
    port = Number(portText);
    if (port > 65535) throw new TargetUriError('malformed', 'port out of range');
    if (port === DEFAULT_PORTS[scheme]) port = undefined;
  }
  return { host, port };
}

function canonicalIPv6(bracketed: string): string {
  const inner = bracketed.slice(1, -1);
  if (inner.includes('%')) throw new TargetUriError('malformed', 'IPv6 zone identifier in signed URL');
  if (!isIPv6(inner)) throw new TargetUriError('malformed', 'invalid IPv6 literal');
  return `[${inner.toLowerCase()}]`;
}

const ASCII_LDH_HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/;

function canonicalRegName(raw: string, opts: CanonicalizeOptions): string {
  // eslint-disable-next-line no-control-regex
  const nonAscii = /[^\x00-\x7f]/.test(raw);
  if (nonAscii && !opts.allowUnicodeHost) {
    throw new TargetUriError('non_ascii_host', 'raw non-ASCII (U-label) host; A-labels required');
  }
  let host = raw.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1); // exactly one root dot
  if (host === '' || host.split('.').some((l) => l === '')) {
    throw new TargetUriError('malformed', 'empty DNS label (consecutive or multiple trailing dots)');
  }
  if (isIPv4(host)) return host;
  if (!nonAscii && ASCII_LDH_HOST.test(host) && !host.includes('xn--')) {
    checkLabels(host);
    return host;
  }
  const ascii = domainToASCII(host);
  if (ascii === '') throw new TargetUriError('malformed', 'host fails UTS-46 processing');
  if (!ASCII_LDH_HOST.test(ascii)) throw new TargetUriError('malformed', 'host violates STD3 rules');
  checkLabels(ascii);
  return ascii;
}

/** CheckHyphens and DNS length rules of UTS-46 as the profile configures it. */
function checkLabels(host: string): void {
  if (host.length > 253) throw new TargetUriError('malformed', 'host longer than 253 octets');
  for (const label of host.split('.')) {
    if (label.length > 63) throw new TargetUriError('malformed', 'DNS label longer than 63 octets');
    if (label.startsWith('-') || label.endsWith('-')) {
      throw new TargetUriError('malformed', 'DNS label starts or ends with a hyphen');
    }
    if (label.slice(2, 4) === '--' && !label.startsWith('xn--')) {
      throw new TargetUriError('malformed', 'hyphens in label positions 3 and 4');
    }
  }
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
// Characters allowed literally in a path (pchar and '/'); '%' handled separately.
const PATH_CHAR = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;

/** Upper-case percent hex, decode unreserved, encode anything not allowed literally. */
export function normalizePercent(path: string, _part: 'path'): string {
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i]!;
    if (c === '%') {
      const hex = path.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new TargetUriError('malformed', 'invalid percent-encoding');
      const ch = String.fromCharCode(parseInt(hex, 16));
      out += UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
      i += 2;
    } else if (PATH_CHAR.test(c)) {
      out += c;
    } else {
      const cp = path.codePointAt(i)!;
      const s = String.fromCodePoint(cp);
      for (const b of Buffer.from(s, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      i += s.length - 1;
    }
  }
  return out;
}

/** RFC 3986 5.2.4 remove_dot_segments; `//` is kept as an empty segment. */
export function removeDotSegments(path: string): string {
  let input = path;
  const output: string[] = [];
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      output.pop();
    } else if (input === '/..') {
      input = '/';
      output.pop();
    } else if (input === '.' || input === '..') input = '';
    else {
      const start = input.startsWith('/') ? 1 : 0;
      const next = input.indexOf('/', start);
      const seg = next === -1 ? input : input.slice(0, next);
      output.push(seg);
      input = next === -1 ? '' : input.slice(next);
    }
  }
  return output.join('');
}
