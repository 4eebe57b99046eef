/**
 * The reserved-address classification against the IANA special-purpose registries (IPv4 and
 * IPv6) and multicast: an example inside every range, and public near misses just outside.
 */
import { describe, expect, it } from 'vitest';
import { classifyAddress, isLoopbackAddress, isReservedAddress, parseAddressBlock } from './address-ranges.js';

// [address, range name] for one address inside every IANA IPv4 special-purpose block and multicast.
const RESERVED_V4: Array<[string, string]> = [
  ['0.0.0.0', 'unspecified'], // 0.0.0.0/8 "this network"
  ['0.255.255.255', 'unspecified'],
  ['10.0.0.1', 'private'], // 10/8
  ['10.255.255.255', 'private'],
  ['100.64.0.1', 'carrierGradeNat'], // 100.64/10 shared address space
  ['100.127.255.254', 'carrierGradeNat'],
  ['127.0.0.1', 'loopback'], // 127/8
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'linkLocal'], // 169.254/16 (cloud metadata)
  ['172.16.0.1', 'private'], // 172.16/12
  ['172.31.255.255', 'private'],
  ['192.0.0.1', 'reserved'], // 192.0.0/24 IETF protocol assignments
  ['192.0.0.9', 'reserved'], // PCP anycast (globally reachable, still special-purpose)
  ['192.0.0.170', 'reserved'], // NAT64/DNS64 discovery
  ['192.0.2.1', 'reserved'], // TEST-NET-1
  ['192.31.196.1', 'as112'], // AS112-v4
  ['192.52.193.1', 'amt'], // AMT
  ['192.88.99.1', 'reserved'], // deprecated 6to4 relay anycast
  ['192.168.1.1', 'private'], // 192.168/16
  ['192.175.48.1', 'as112'], // direct delegation AS112
  ['198.18.0.1', 'reserved'], // 198.18/15 benchmarking
  ['198.19.255.254', 'reserved'],
  ['198.51.100.7', 'reserved'], // TEST-NET-2
  ['203.0.113.9', 'reserved'], // TEST-NET-3
  ['224.0.0.1', 'multicast'], // 224/4
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'], // 240/4
  ['255.255.255.255', 'broadcast'], // limited broadcast
];

// Public addresses right next to a reserved block.
const PUBLIC_V4 = [
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255', // below 10/8
  '11.0.0.0', // above 10/8
  '100.63.255.255', // below 100.64/10
  '100.128.0.0', // above 100.64/10
  '126.255.255.255', // below 127/8
  '128.0.0.0', // above 127/8
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255', // below 172.16/12
  '172.32.0.0', // above 172.16/12
  '191.255.255.255',
  '192.0.1.0', // between 192.0.0/24 and 192.0.2/24
  '192.0.3.0',
  '192.88.98.255',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255', // below 198.18/15
  '198.20.0.0', // above 198.18/15
  '198.51.99.255',
  '203.0.112.255',
  '203.0.114.0',
  '223.255.255.255', // below multicast
];

const RESERVED_V6: Array<[string, string]> = [
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::ffff:8.8.8.8', 'ipv4Mapped'], // refused whatever it carries (digest 5.9)
  ['::ffff:127.0.0.1', 'ipv4Mapped'],
  ['::ffff:0:a00:1', 'rfc6145'], // IPv4-translated
  ['::8.8.8.8', 'ipv4Compatible'], // ::/96, deprecated
  ['::a00:1', 'ipv4Compatible'],
  ['64:ff9b:1::a00:1', 'nat64LocalUse'], // 64:ff9b:1::/48 local-use NAT64
  ['100::1', 'discard'], // 100::/64 discard-only
  ['100:0:0:1::1', 'dummyPrefix'], // 100:0:0:1::/64 dummy prefix
  ['2001::1', 'teredo'], // 2001::/32 Teredo
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['2001:1::1', 'reserved'], // 2001::/23 IETF protocol assignments (PCP anycast)
  ['2001:2::1', 'benchmarking'], // 2001:2::/48
  ['2001:3::1', 'amt'], // 2001:3::/32
  ['2001:4:112::1', 'as112v6'], // 2001:4:112::/48
  ['2001:10::1', 'deprecatedOrchid'], // deprecated ORCHID (inside 2001::/23)
  ['2001:20::1', 'orchid2'], // ORCHIDv2
  ['2001:30::1', 'droneRemoteIdProtocolEntityTags'], // DRIP
  ['2001:db8::1', 'reserved'], // documentation
  ['2620:4f:8000::1', 'as112v6'], // direct delegation AS112
  ['3fff::1', 'reserved'], // 3fff::/20 documentation
  ['5f00::1', 'segmentRouting'], // 5f00::/16 SRv6 SIDs
  ['fc00::1', 'uniqueLocal'], // fc00::/7
  ['fd00:ec2::254', 'uniqueLocal'], // AWS metadata over IPv6
  ['fe80::1', 'linkLocal'], // fe80::/10
  ['fec0::1', 'deprecatedSiteLocal'],
  ['ff02::1', 'multicast'], // ff00::/8
  ['4000::1', 'notGlobalUnicast'], // outside 2000::/3 (unallocated)
];

const PUBLIC_V6 = [
  '2001:4860:4860::8888',
  '2606:4700:4700::1111',
  '2001:200::1', // just above 2001::/23
  '2001:db7:ffff::1', // below 2001:db8::/32
  '2001:db9::1', // above 2001:db8::/32
  '2620:4f:7fff::1', // below 2620:4f:8000::/48
  '2620:4f:8001::1', // above it
  '3ffe:ffff::1', // below 3fff::/20
  '2003::1', // above 2002::/16
];

describe('reserved addresses (IANA special-purpose registries, ipaddr.js)', () => {
  it.each(RESERVED_V4)('IPv4 %s is reserved (%s)', (address, range) => {
    expect(classifyAddress(address)).toMatchObject({ reserved: true, range });
  });

  it.each(PUBLIC_V4)('IPv4 %s is public', (address) => {
    expect(classifyAddress(address)).toMatchObject({ reserved: false, range: 'unicast' });
  });

  it.each(RESERVED_V6)('IPv6 %s is reserved (%s)', (address, range) => {
    expect(classifyAddress(address)).toMatchObject({ reserved: true, range });
  });

  it.each(PUBLIC_V6)('IPv6 %s is public', (address) => {
    expect(classifyAddress(address)).toMatchObject({ reserved: false, range: 'unicast' });
  });

  it('judges NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses by the IPv4 address they carry', () => {
    expect(classifyAddress('64:ff9b::7f00:1')).toMatchObject({ reserved: true, range: 'nat64', embedded: { address: '127.0.0.1', range: 'loopback' } });
    expect(classifyAddress('64:ff9b::a9fe:a9fe')).toMatchObject({ reserved: true, embedded: { address: '169.254.169.254', range: 'linkLocal' } });
    expect(classifyAddress('64:ff9b::c0a8:101')).toMatchObject({ reserved: true, embedded: { address: '192.168.1.1', range: 'private' } });
    expect(classifyAddress('64:ff9b::808:808')).toMatchObject({ reserved: false, range: 'nat64', embedded: { address: '8.8.8.8', range: 'unicast' } });
    expect(classifyAddress('2002:7f00:1::1')).toMatchObject({ reserved: true, range: '6to4', embedded: { address: '127.0.0.1', range: 'loopback' } });
    expect(classifyAddress('2002:a00:1::1')).toMatchObject({ reserved: true, embedded: { address: '10.0.0.1', range: 'private' } });
    expect(classifyAddress('2002:c612:1::1')).toMatchObject({ reserved: true, embedded: { address: '198.18.0.1', range: 'reserved' } });
    expect(classifyAddress('2002:808:808::1')).toMatchObject({ reserved: false, embedded: { address: '8.8.8.8', range: 'unicast' } });
    // The IPv4-mapped form reports what it carries but is refused either way.
    expect(classifyAddress('::ffff:169.254.169.254')).toMatchObject({ reserved: true, embedded: { address: '169.254.169.254', range: 'linkLocal' } });
  });

  it('normalises notation: brackets, zero-padding, upper case', () => {
    expect(isReservedAddress('[::1]')).toBe(true);
    expect(isReservedAddress('0:0:0:0:0:0:0:1')).toBe(true);
    expect(isReservedAddress('FE80::ABCD')).toBe(true);
    expect(isReservedAddress('0000:0000:0000:0000:0000:ffff:7f00:0001')).toBe(true);
  });

  it('takes only strict address notation (no 127.1, no hex) and throws on anything else', () => {
    for (const bad of ['127.1', '0x7f.0.0.1', '2130706433', 'localhost', '', '1.2.3.4.5', '::g']) {
      expect(() => classifyAddress(bad), bad).toThrow(TypeError);
    }
  });

  it('knows loopback: 127/8, ::1 and the mapped form of 127/8', () => {
    for (const a of ['127.0.0.1', '127.5.5.5', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '::2', '64:ff9b::7f00:1', '8.8.8.8']) expect(isLoopbackAddress(a), a).toBe(false);
  });
});

describe('allow-list blocks', () => {
  it('match addresses and CIDR blocks of either family, IPv4 blocks covering the mapped form', () => {
    const one = parseAddressBlock('127.0.0.1')!;
    expect([one.matches('127.0.0.1'), one.matches('127.0.0.2'), one.matches('::ffff:127.0.0.1'), one.matches('::1')]).toEqual([true, false, true, false]);
    const net = parseAddressBlock('10.0.0.0/8')!;
    expect([net.matches('10.200.1.1'), net.matches('11.0.0.1')]).toEqual([true, false]);
    const v6 = parseAddressBlock('fd00::/8')!;
    expect([v6.matches('fd12::1'), v6.matches('fc00::1'), v6.matches('10.0.0.1')]).toEqual([true, false, false]);
    expect(parseAddressBlock('[::1]')!.matches('::1')).toBe(true);
  });

  it('refuse what is neither an address nor a CIDR', () => {
    for (const bad of ['localhost', '10.0.0.0/33', '::/129', '10.0.0/8', '127.1', '1.2.3.4/x']) expect(parseAddressBlock(bad), bad).toBeUndefined();
  });
});
