/** IPv4 subnets and addresses, as IPAM config carries them ("10.0.1.0/24", "10.0.1.1"). */

export interface Subnet {
  /** The network address as a 32-bit number. */
  readonly base: number;
  readonly prefix: number;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export const parseIpv4 = (text: string): number | undefined => {
  const match = IPV4.exec(text.trim());
  if (!match) return undefined;
  const parts = match.slice(1).map(Number);
  if (parts.some((part) => part > 255)) return undefined;
  return parts.reduce((acc, part) => acc * 256 + part, 0);
};

const mask = (prefix: number): number => (prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);

/** "10.0.1.0/24" → its base and prefix; undefined if it is not a CIDR or has host bits set. */
export const parseSubnet = (text: string): Subnet | undefined => {
  const [address, bits, ...rest] = text.trim().split('/');
  if (rest.length > 0 || address === undefined || bits === undefined || !/^\d{1,2}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  const base = parseIpv4(address);
  if (base === undefined || prefix > 32) return undefined;
  if (((base & mask(prefix)) >>> 0) !== base) return undefined;
  return { base, prefix };
};

export const contains = (subnet: Subnet, address: number): boolean => ((address & mask(subnet.prefix)) >>> 0) === subnet.base;

export const overlaps = (a: Subnet, b: Subnet): boolean => {
  const prefix = Math.min(a.prefix, b.prefix);
  return ((a.base & mask(prefix)) >>> 0) === ((b.base & mask(prefix)) >>> 0);
};
