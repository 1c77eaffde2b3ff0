/**
 * IP addresses and CIDR subnets for `node.ip` constraints, parsed by hand (the core may not
 * use Node's `net`). Every address becomes 16 bytes; IPv4 is held IPv4-mapped
 * (::ffff:a.b.c.d), so "10.0.0.1" and "::ffff:10.0.0.1" are the same address.
 */

export type IpBytes = readonly number[];

const parseIpv4 = (text: string): number[] | undefined => {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes.push(value);
  }
  return bytes;
};

const mapped = (v4: readonly number[]): number[] => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4];

const parseIpv6 = (text: string): number[] | undefined => {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as string;
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0] as string);
  const tail = halves.length === 2 ? groups(halves[1] as string) : [];
  if (!head || !tail) return undefined;
  let words: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return undefined;
    words = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else words = head;
  if (words.length !== 8) return undefined;
  return words.flatMap((w) => [w >> 8, w & 0xff]);
};

/** The 16 bytes of an IPv4 or IPv6 address, or undefined when `text` is not one. */
export const parseIp = (text: string): IpBytes | undefined => {
  const trimmed = text.trim();
  if (trimmed.includes(':')) return parseIpv6(trimmed);
  const v4 = parseIpv4(trimmed);
  return v4 ? mapped(v4) : undefined;
};

/** A node's address as its session reported it: "10.0.0.5", "10.0.0.5:4242", "[2001:db8::1]:4242". */
export const parseHostAddress = (addr: string | undefined): IpBytes | undefined => {
  if (!addr) return undefined;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(addr);
  if (bracketed) return parseIp(bracketed[1] as string);
  const withPort = /^([^:]+):\d+$/.exec(addr);
  if (withPort) return parseIp(withPort[1] as string);
  return parseIp(addr);
};

export interface Subnet {
  readonly base: IpBytes;
  /** Prefix length over the 16-byte form. */
  readonly bits: number;
}

/** "10.0.0.0/8" or "2001:db8::/32", or undefined when `text` is not a CIDR. */
export const parseCidr = (text: string): Subnet | undefined => {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = text.slice(0, slash).trim();
  const prefix = text.slice(slash + 1).trim();
  if (!/^\d{1,3}$/.test(prefix)) return undefined;
  const base = parseIp(address);
  if (!base) return undefined;
  const v4 = !address.includes(':');
  const length = Number(prefix);
  if (length > (v4 ? 32 : 128)) return undefined;
  return { base, bits: v4 ? length + 96 : length };
};

export const ipEquals = (a: IpBytes, b: IpBytes): boolean => a.every((byte, i) => byte === b[i]);

export const subnetContains = (subnet: Subnet, ip: IpBytes): boolean => {
  for (let bit = 0; bit < subnet.bits; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((subnet.base[byte] as number) & mask) !== ((ip[byte] as number) & mask)) return false;
  }
  return true;
};
