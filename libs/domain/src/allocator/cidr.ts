/**
 * IPv4 addresses and subnets as numbers: "10.0.1.0/24" is a base of 0x0a000100 and a
 * prefix of 24. Addresses handed to tasks and services carry the prefix ("10.0.1.5/24"),
 * as Docker writes them.
 */

export interface Subnet {
  /** The network address, as an unsigned 32-bit number. */
  readonly base: number;
  readonly prefix: number;
}

/** How many addresses a subnet spans (network and broadcast included). */
export const subnetSize = (subnet: Subnet): number => 2 ** (32 - subnet.prefix);

/** "10.0.1.5" → its number, or undefined when it is not a dotted-quad IPv4 address. */
export const parseAddress = (text: string): number | undefined => {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
};

export const formatAddress = (value: number): string =>
  [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');

/** "10.0.1.0/24" → its subnet, or a reason. Host bits must be zero, as Docker requires of a pool. */
export const parseSubnet = (text: string): Subnet | string => {
  const [address, bits, extra] = text.split('/');
  if (address === undefined || bits === undefined || extra !== undefined || !/^\d{1,2}$/.test(bits)) {
    return `invalid subnet ${text}: expected an IPv4 CIDR such as 10.0.1.0/24`;
  }
  const base = parseAddress(address);
  const prefix = Number(bits);
  if (base === undefined || prefix > 32) return `invalid subnet ${text}: expected an IPv4 CIDR such as 10.0.1.0/24`;
  if (prefix > 30) return `invalid subnet ${text}: a /${prefix} has no room for tasks (at most /30)`;
  if (base % 2 ** (32 - prefix) !== 0) return `invalid subnet ${text}: host bits are set (did you mean ${formatSubnet({ base: base - (base % 2 ** (32 - prefix)), prefix })}?)`;
  return { base, prefix };
};

export const formatSubnet = (subnet: Subnet): string => `${formatAddress(subnet.base)}/${subnet.prefix}`;

export const contains = (subnet: Subnet, address: number): boolean =>
  address >= subnet.base && address < subnet.base + subnetSize(subnet);

export const overlaps = (a: Subnet, b: Subnet): boolean =>
  a.base < b.base + subnetSize(b) && b.base < a.base + subnetSize(a);

/** "10.0.1.5/24" (or a bare "10.0.1.5") → the address's number, or undefined. */
export const addressOf = (withPrefix: string): number | undefined => parseAddress(withPrefix.split('/')[0] ?? '');
