/**
 * An IPv4 subnet as numbers: "10.0.1.0/24" is a base of 0x0a000100 and a prefix of 24.
 * Reading one keeps the address as written, so a caller can say what it makes of host bits
 * ("10.0.1.5/24"); containment and overlap are about subnets without them.
 */
import { formatIpv4, parseIpv4 } from './ipv4';

export interface Ipv4Subnet {
  /** The network address, as an unsigned 32-bit number. */
  readonly base: number;
  readonly prefix: number;
}

/** "10.0.1.0/24" → its base and prefix (at most 32, one or two digits); undefined when it is not an IPv4 CIDR. */
export const parseIpv4Subnet = (text: string): Ipv4Subnet | undefined => {
  const [address, bits, ...rest] = text.split('/');
  if (rest.length > 0 || address === undefined || bits === undefined || !/^\d{1,2}$/.test(bits)) return undefined;
  const base = parseIpv4(address);
  const prefix = Number(bits);
  if (base === undefined || prefix > 32) return undefined;
  return { base, prefix };
};

/** "10.0.1.0/24". */
export const formatSubnet = (subnet: Ipv4Subnet): string => `${formatIpv4(subnet.base)}/${subnet.prefix}`;

/** How many addresses a subnet spans (network and broadcast included). */
export const subnetSize = (subnet: Ipv4Subnet): number => 2 ** (32 - subnet.prefix);

/** Whether the base has bits set past the prefix ("10.0.1.5/24"). */
export const hasHostBits = (subnet: Ipv4Subnet): boolean => subnet.base % subnetSize(subnet) !== 0;

/** The subnet with its host bits cleared: "10.0.1.5/24" → "10.0.1.0/24". */
export const withoutHostBits = (subnet: Ipv4Subnet): Ipv4Subnet => ({ base: subnet.base - (subnet.base % subnetSize(subnet)), prefix: subnet.prefix });

/** Whether `address` lies in `subnet`. */
export const subnetContains = (subnet: Ipv4Subnet, address: number): boolean =>
  address >= subnet.base && address < subnet.base + subnetSize(subnet);

/** Whether two subnets share an address. */
export const subnetsOverlap = (a: Ipv4Subnet, b: Ipv4Subnet): boolean =>
  a.base < b.base + subnetSize(b) && b.base < a.base + subnetSize(a);

/** Whether `address` may name a host of `subnet`: inside it, and neither its network nor its broadcast address. */
export const isHostAddress = (subnet: Ipv4Subnet, address: number): boolean =>
  subnetContains(subnet, address) && address !== subnet.base && address !== subnet.base + subnetSize(subnet) - 1;
