/**
 * Which IP addresses are reserved: everything in the IANA IPv4 and IPv6 special-purpose address
 * registries plus multicast, as ipaddr.js classifies them (`range()`), with three additions
 * ipaddr.js does not carry: IPv4-compatible `::/96`, the dummy prefix `100:0:0:1::/64` and any
 * IPv6 address outside global unicast `2000::/3`.
 *
 * NAT64 `64:ff9b::/96` and 6to4 `2002::/16` addresses are judged by the IPv4 address they carry
 * (`64:ff9b::7f00:1` is loopback, `64:ff9b::808:808` is public: a DNS64 network synthesizes such
 * answers for every IPv4-only host). IPv4-mapped `::ffff:0:0/96` is refused whatever it carries
 * (digest 5.9 names it; nothing public resolves to it), with the carried address reported; so are
 * the local-use NAT64 prefix `64:ff9b:1::/48`, Teredo `2001::/32` and IPv4-compatible `::/96`.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface AddressClass {
  /** The address as classified (IPv6 in its RFC 5952 form). */
  address: string;
  reserved: boolean;
  /** `unicast` for a public address, else the name of the range (`loopback`, `private`, `teredo`, ...). */
  range: string;
  /** The IPv4 address carried by an IPv4-mapped, NAT64 or 6to4 address, with its own range. */
  embedded?: { address: string; range: string };
}

const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
const DUMMY_PREFIX = ipaddr.IPv6.parseCIDR('100:0:0:1::/64');
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

function v4FromParts(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function classifyV4(a: ipaddr.IPv4): AddressClass {
  const range = a.range();
  return { address: a.toString(), reserved: range !== 'unicast', range };
}

function judgedByEmbedded(a: ipaddr.IPv6, range: string, v4: ipaddr.IPv4): AddressClass {
  const inner = classifyV4(v4);
  return { address: a.toRFC5952String(), reserved: inner.reserved, range, embedded: { address: inner.address, range: inner.range } };
}

function classifyV6(a: ipaddr.IPv6): AddressClass {
  const address = a.toRFC5952String();
  const range = a.range();
  const p = a.parts;
  if (range === 'ipv4Mapped') {
    const inner = classifyV4(a.toIPv4Address());
    return { address, reserved: true, range, embedded: { address: inner.address, range: inner.range } };
  }
  if (range === 'rfc6052' && a.match(NAT64_WELL_KNOWN)) return judgedByEmbedded(a, 'nat64', v4FromParts(p[6]!, p[7]!));
  if (range === '6to4') return judgedByEmbedded(a, range, v4FromParts(p[1]!, p[2]!));
  if (range === 'rfc6052') return { address, reserved: true, range: 'nat64LocalUse' };
  if (range !== 'unicast') return { address, reserved: true, range };
  if (a.match(IPV4_COMPATIBLE)) return { address, reserved: true, range: 'ipv4Compatible' };
  if (a.match(DUMMY_PREFIX)) return { address, reserved: true, range: 'dummyPrefix' };
  if (!a.match(GLOBAL_UNICAST)) return { address, reserved: true, range: 'notGlobalUnicast' };
  return { address, reserved: false, range: 'unicast' };
}

function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // node's isIP is strict (four decimal parts); ipaddr.js alone would also take `127.1` or hex.
  const family = isIP(bare);
  if (family === 0) throw new TypeError(`not an IP address: ${JSON.stringify(address)}`);
  if (family === 4) return ipaddr.parse(bare);
  // ipaddr.js reads `::a.b.c.d` (IPv4-compatible) as `::ffff:a.b.c.d`; the WHATWG URL serializer
  // writes every IPv6 address in plain hex pieces first. A zone id (`%eth0`) changes nothing here.
  return ipaddr.parse(new URL(`http://[${bare.replace(/%.*$/, '')}]/`).hostname.slice(1, -1));
}

/** Classify one IP address (throws TypeError for anything that is not one). */
export function classifyAddress(address: string): AddressClass {
  const a = parse(address);
  return a.kind() === 'ipv4' ? classifyV4(a as ipaddr.IPv4) : classifyV6(a as ipaddr.IPv6);
}

export function isReservedAddress(address: string): boolean {
  return classifyAddress(address).reserved;
}

/** 127.0.0.0/8, ::1 and the IPv4-mapped form of a 127/8 address. */
export function isLoopbackAddress(address: string): boolean {
  const c = classifyAddress(address);
  return c.range === 'loopback' || (c.range === 'ipv4Mapped' && c.embedded?.range === 'loopback');
}

/** One address or CIDR block of an allow-list. */
export interface AddressBlock {
  text: string;
  matches(address: string): boolean;
}

/** Parses `10.0.0.0/8`, `::1`, `127.0.0.1`; undefined when the text is neither an address nor a CIDR. */
export function parseAddressBlock(text: string): AddressBlock | undefined {
  const bare = text.startsWith('[') && text.includes(']') ? text.slice(1).replace(']', '') : text;
  let net: ipaddr.IPv4 | ipaddr.IPv6;
  let bits: number;
  if (bare.includes('/')) {
    const [addr, len] = bare.split('/', 2) as [string, string];
    if (isIP(addr) === 0 || !/^\d{1,3}$/.test(len)) return undefined;
    net = parse(addr);
    bits = Number(len);
    if (bits > (net.kind() === 'ipv4' ? 32 : 128)) return undefined;
  } else {
    if (isIP(bare) === 0) return undefined;
    net = parse(bare);
    bits = net.kind() === 'ipv4' ? 32 : 128;
  }
  const kind = net.kind();
  return {
    text,
    matches(address: string): boolean {
      let a: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        a = parse(address);
      } catch {
        return false;
      }
      // An IPv4 block also covers the IPv4-mapped IPv6 form of its addresses.
      if (a.kind() === 'ipv6' && kind === 'ipv4' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
      return a.kind() === kind && a.match(net, bits);
    },
  };
}
