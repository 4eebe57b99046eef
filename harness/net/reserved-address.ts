/**
 * Reserved-address rejection for counterparty fetches (digest 5.9): RFC 1918, CGNAT,
 * loopback, link-local (169.254.169.254 included), 0/8, multicast, broadcast and the IPv4
 * reserved block; IPv6 loopback/unspecified, ULA fc00::/7 (fd00:ec2::254 included),
 * link-local fe80::/10, IPv4-mapped ::ffff:0:0/96 and multicast ff00::/8.
 */
import { BlockList, isIP } from 'node:net';

// One list per family: node checks IPv4 addresses against IPv4-mapped IPv6 rules too.
const reserved4 = new BlockList();
const reserved6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  reserved4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['::ffff:0:0', 96],
  ['ff00::', 8],
] as const) {
  reserved6.addSubnet(net, prefix, 'ipv6');
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

function family(address: string): 'ipv4' | 'ipv6' {
  const f = isIP(address);
  if (f === 0) throw new TypeError(`not an IP address: ${address}`);
  return f === 4 ? 'ipv4' : 'ipv6';
}

export function isReservedAddress(address: string): boolean {
  const f = family(address);
  return f === 'ipv4' ? reserved4.check(address, f) : reserved6.check(address, f);
}

export function isLoopbackAddress(address: string): boolean {
  return loopback.check(address, family(address));
}
