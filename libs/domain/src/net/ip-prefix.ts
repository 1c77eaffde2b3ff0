/**
 * A CIDR block of either family over the 16-byte form: "10.0.0.0/8" or "2001:db8::/32".
 * An IPv4 prefix counts over the IPv4-mapped form (a /8 is 104 bits), so an IPv4 block
 * never holds an IPv6 address. Host bits are allowed: only the first `bits` bits count.
 */
import { parseIp } from './ip-address';
import type { IpBytes } from './ip-address';

export interface IpPrefix {
  readonly base: IpBytes;
  /** Prefix length over the 16-byte form. */
  readonly bits: number;
}

/** "10.0.0.0/8" or "2001:db8::/32" (spaces around either part ignored), or undefined when `text` is not a CIDR. */
export const parseIpPrefix = (text: string): IpPrefix | undefined => {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = text.slice(0, slash).trim();
  const length = text.slice(slash + 1).trim();
  if (!/^\d{1,3}$/.test(length)) return undefined;
  const base = parseIp(address);
  if (!base) return undefined;
  const v4 = !address.includes(':');
  const prefix = Number(length);
  if (prefix > (v4 ? 32 : 128)) return undefined;
  return { base, bits: v4 ? prefix + 96 : prefix };
};

/** Whether `ip` lies in the block. */
export const prefixContains = (prefix: IpPrefix, ip: IpBytes): boolean => {
  for (let bit = 0; bit < prefix.bits; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((prefix.base[byte] as number) & mask) !== ((ip[byte] as number) & mask)) return false;
  }
  return true;
};
