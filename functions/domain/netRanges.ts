/**
 * Where an IP address leads. The service connects on a company's behalf (its SMTP server) only to
 * addresses on the public internet, never into the network it runs in: its own host, the VPC or
 * office networks behind it, the cloud's metadata service. Addresses come as DNS answers them
 * (canonical text), so only the standard notations are read; anything else is not an address.
 */

export type AddressKind =
  /** Globally routable unicast (documentation ranges such as 192.0.2.0/24 included: nothing answers there). */
  | 'public'
  /** 127.0.0.0/8, ::1. */
  | 'loopback'
  /** RFC 1918 (10/8, 172.16/12, 192.168/16), unique-local fc00::/7, site-local fec0::/10, local-use NAT64. */
  | 'private'
  /** 169.254.0.0/16 (the cloud's metadata service among them), fe80::/10. */
  | 'linkLocal'
  /** Carrier-grade NAT, 100.64.0.0/10. */
  | 'sharedNat'
  /** 0.0.0.0/8, ::. */
  | 'unspecified'
  /** 224.0.0.0/4, ff00::/8. */
  | 'multicast'
  /** Reserved or special-purpose: 240.0.0.0/4 and broadcast, 192.0.0.0/24, 198.18.0.0/15, IPv6 outside 2000::/3. */
  | 'reserved';

type Bytes = number[];

/** `a.b.c.d` in plain decimal, each part 0-255 without leading zeros. */
function parseIpv4(text: string): Bytes | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: Bytes = [];
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes.push(value);
  }
  return bytes;
}

/** An IPv6 address in any standard notation (`::` shortening, a trailing dotted IPv4, a `%zone`), as 16 bytes. */
function parseIpv6(text: string): Bytes | undefined {
  const address = text.split('%')[0]!;
  if (!address.includes(':')) return undefined;
  let tail: Bytes = [];
  let body = address;
  const last = address.lastIndexOf(':');
  if (address.slice(last + 1).includes('.')) {
    const v4 = parseIpv4(address.slice(last + 1));
    if (!v4) return undefined;
    tail = v4;
    // The colon before the IPv4 part goes with it, unless it closes a `::`.
    body = address.slice(0, last + 1);
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    for (const group of half.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
      out.push(parseInt(group, 16));
    }
    return out;
  };
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const wanted = 8 - tail.length / 2;
  const filled = head.length + rest.length;
  if (halves.length === 2 ? filled >= wanted : filled !== wanted) return undefined;
  const all = [...head, ...new Array<number>(wanted - filled).fill(0), ...rest];
  return [...all.flatMap((group) => [group >> 8, group & 0xff]), ...tail];
}

/** Whether `bytes` start with the first `length` bits of `prefix`. */
function within(bytes: Bytes, prefix: Bytes, length: number): boolean {
  for (let bit = 0; bit < length; bit += 8) {
    const mask = length - bit >= 8 ? 0xff : (0xff << (8 - (length - bit))) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

const V4_RANGES: [Bytes, number, AddressKind][] = [
  [[0, 0, 0, 0], 8, 'unspecified'],
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'sharedNat'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'linkLocal'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'reserved'],
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'reserved'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'],
];

function ipv4Kind(bytes: Bytes): AddressKind {
  return V4_RANGES.find(([prefix, length]) => within(bytes, prefix, length))?.[2] ?? 'public';
}

const v6 = (text: string): Bytes => parseIpv6(text)!;
/** IPv6 ranges that carry an IPv4 address in their last 32 bits: the address is what the IPv4 part is. */
const V6_EMBEDDING: [Bytes, number][] = [
  [v6('::ffff:0:0'), 96], // IPv4-mapped
  [v6('::ffff:0:0:0'), 96], // IPv4-translated (RFC 2765)
  [v6('64:ff9b::'), 96], // NAT64, well-known prefix
];
const V6_RANGES: [Bytes, number, AddressKind][] = [
  [v6('64:ff9b:1::'), 48, 'private'], // NAT64, local use
  [v6('fc00::'), 7, 'private'],
  [v6('fec0::'), 10, 'private'],
  [v6('fe80::'), 10, 'linkLocal'],
  [v6('ff00::'), 8, 'multicast'],
  [v6('100::'), 64, 'reserved'], // discard-only
];

function ipv6Kind(bytes: Bytes): AddressKind {
  if (bytes.every((b) => b === 0)) return 'unspecified';
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return 'loopback';
  if (V6_EMBEDDING.some(([prefix, length]) => within(bytes, prefix, length))) return ipv4Kind(bytes.slice(12));
  // 6to4 (2002::/16) carries the IPv4 address of its gateway in bits 16-47.
  if (within(bytes, v6('2002::'), 16)) {
    const gateway = ipv4Kind(bytes.slice(2, 6));
    if (gateway !== 'public') return gateway;
  }
  // IPv4-compatible (::a.b.c.d, deprecated): never routed.
  if (within(bytes, v6('::'), 96)) return 'reserved';
  const kind = V6_RANGES.find(([prefix, length]) => within(bytes, prefix, length))?.[2];
  if (kind) return kind;
  // Global unicast is 2000::/3; the rest of the space is not allocated.
  return within(bytes, v6('2000::'), 3) ? 'public' : 'reserved';
}

/** What kind of address `ip` is; undefined when it is not an IP address. */
export function addressKind(ip: string): AddressKind | undefined {
  const text = ip.trim().replace(/^\[(.*)\]$/, '$1');
  const v4 = parseIpv4(text);
  if (v4) return ipv4Kind(v4);
  const bytes = parseIpv6(text);
  return bytes ? ipv6Kind(bytes) : undefined;
}

export const isPublicAddress = (ip: string): boolean => addressKind(ip) === 'public';
