import { describe, expect, it } from 'vitest';
import { addressKind, isPublicAddress, type AddressKind } from '@passcloud/functions/domain/netRanges';
import { HostRefused, pinHost, type Resolver } from '@passcloud/functions/lib/addresses';

describe('address kinds', () => {
  const cases: [string, AddressKind][] = [
    // IPv4
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['93.184.216.34', 'public'],
    ['192.0.2.1', 'public'],
    ['198.51.100.7', 'public'],
    ['9.255.255.255', 'public'],
    ['11.0.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.167.255.255', 'public'],
    ['192.169.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['223.255.255.255', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['192.168.255.255', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['100.64.0.1', 'sharedNat'],
    ['100.127.255.255', 'sharedNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    // IPv6
    ['2001:4860:4860::8888', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:82b::200e', 'public'],
    ['2001:db8::1', 'public'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd00::1', 'private'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
    ['fec0::1', 'private'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['fd00:ec2::254', 'private'],
    ['ff02::1', 'multicast'],
    ['ff05::1:3', 'multicast'],
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['1::', 'reserved'],
    ['::1.2.3.4', 'reserved'],
    // IPv4 inside IPv6: what the IPv4 address is
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
    ['::ffff:100.64.0.1', 'sharedNat'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:224.0.0.1', 'multicast'],
    ['::ffff:8.8.8.8', 'public'],
    ['0:0:0:0:0:ffff:c0a8:101', 'private'],
    ['::ffff:0:192.168.1.1', 'private'],
    ['64:ff9b::169.254.169.254', 'linkLocal'],
    ['64:ff9b::808:808', 'public'],
    ['64:ff9b:1::1', 'private'],
    ['2002:c0a8:101::1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:808:808::1', 'public'],
    ['[::1]', 'loopback'],
  ];

  it.each(cases)('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
    expect(isPublicAddress(address)).toBe(kind === 'public');
  });

  it.each([
    '',
    'localhost',
    'example.com',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.-4',
    ':::',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7::8',
    'g::1',
    '12345::1',
    '::ffff:1.2.3',
  ])('%j is not an address', (text) => {
    expect(addressKind(text)).toBeUndefined();
    expect(isPublicAddress(text)).toBe(false);
  });
});

describe('pinning a host to the address that was checked', () => {
  const answers =
    (table: Record<string, string[]>): Resolver =>
    async (host) => {
      const found = table[host];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return found.map((address) => ({ address }));
    };
  const dns = answers({
    'mail.example.com': ['203.0.113.10', '2001:db8::25'],
    'internal.example.com': ['10.1.2.3'],
    'mixed.example.com': ['203.0.113.10', '169.254.169.254'],
    'metadata.example.com': ['::ffff:169.254.169.254'],
    'v6only.example.com': ['fd12:3456::1'],
    'empty.example.com': [],
    'multicast.example.com': ['224.0.0.5'],
  });

  it('answers the first address of a name whose every address is public', async () => {
    expect(await pinHost('mail.example.com', { resolver: dns })).toEqual({ host: 'mail.example.com', address: '203.0.113.10', kind: 'public' });
  });

  it('looks the name up once', async () => {
    let lookups = 0;
    const counting: Resolver = async (host) => {
      lookups++;
      return dns(host);
    };
    await pinHost('mail.example.com', { resolver: counting });
    expect(lookups).toBe(1);
  });

  it.each([
    ['internal.example.com', '10.1.2.3', 'private'],
    ['mixed.example.com', '169.254.169.254', 'linkLocal'],
    ['metadata.example.com', '::ffff:169.254.169.254', 'linkLocal'],
    ['v6only.example.com', 'fd12:3456::1', 'private'],
  ])('refuses %s, which has %s (%s)', async (host, address, kind) => {
    const error = await pinHost(host, { resolver: dns }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostRefused);
    expect(error).toMatchObject({ reason: 'notPublic', host, address, kind });
  });

  it('lets a developer’s private server through with allowPrivate, but never multicast', async () => {
    expect(await pinHost('internal.example.com', { resolver: dns, allowPrivate: true })).toEqual({
      host: 'internal.example.com',
      address: '10.1.2.3',
      kind: 'private',
    });
    await expect(pinHost('multicast.example.com', { resolver: dns, allowPrivate: true })).rejects.toMatchObject({ reason: 'notPublic', kind: 'multicast' });
  });

  it('tells a name with no address from a lookup that failed', async () => {
    await expect(pinHost('nowhere.example.com', { resolver: dns })).rejects.toMatchObject({ reason: 'notFound' });
    await expect(pinHost('empty.example.com', { resolver: dns })).rejects.toMatchObject({ reason: 'notFound' });
    const broken: Resolver = () => Promise.reject(Object.assign(new Error('queryA ETIMEOUT'), { code: 'EAI_AGAIN' }));
    await expect(pinHost('mail.example.com', { resolver: broken })).rejects.toMatchObject({ reason: 'lookupFailed' });
  });

  it('checks literal addresses without asking DNS', async () => {
    expect(await pinHost('192.0.2.1')).toMatchObject({ address: '192.0.2.1', kind: 'public' });
    await expect(pinHost('127.0.0.1')).rejects.toMatchObject({ reason: 'notPublic', kind: 'loopback' });
    await expect(pinHost('::1')).rejects.toMatchObject({ reason: 'notPublic', kind: 'loopback' });
  });
});
