/**
 * Subnets for networks: the one the user gave (checked: a valid IPv4 CIDR, a gateway
 * inside it, no overlap with another network), or the first free /24 of the default
 * address pool 10.0.0.0/8 — as Docker's swarm does by default.
 */
import type { IpamConfig } from '@shoal/contracts';
import { formatIpv4, formatSubnet, hasHostBits, isHostAddress, parseIpv4, parseIpv4Subnet, subnetSize, subnetsOverlap, withoutHostBits } from '../net';
import type { Ipv4Subnet } from '../net';

/** "10.0.1.0/24" → a network's subnet, or a reason. Host bits must be zero, as Docker requires of a pool, and a task needs room (at most /30). */
export const parseSubnet = (text: string): Ipv4Subnet | string => {
  const subnet = parseIpv4Subnet(text);
  if (subnet === undefined) return `invalid subnet ${text}: expected an IPv4 CIDR such as 10.0.1.0/24`;
  if (subnet.prefix > 30) return `invalid subnet ${text}: a /${subnet.prefix} has no room for tasks (at most /30)`;
  if (hasHostBits(subnet)) return `invalid subnet ${text}: host bits are set (did you mean ${formatSubnet(withoutHostBits(subnet))}?)`;
  return subnet;
};

export const DEFAULT_ADDRESS_POOL: Ipv4Subnet = { base: 10 * 2 ** 24, prefix: 8 };
export const DEFAULT_SUBNET_PREFIX = 24;

export interface SubnetChoice {
  readonly subnet: Ipv4Subnet;
  readonly gateway: number;
}

/** A subnet and gateway for a network with `ipam`, clear of every subnet in `taken`; or why not. */
export const chooseSubnet = (ipam: readonly IpamConfig[] | undefined, taken: readonly Ipv4Subnet[]): SubnetChoice | string => {
  const config = ipam?.[0];
  if (config?.subnet === undefined) {
    if (config?.gateway !== undefined) return `invalid ipam: gateway ${config.gateway} given without a subnet`;
    const subnet = firstFree(DEFAULT_ADDRESS_POOL, DEFAULT_SUBNET_PREFIX, taken);
    if (!subnet) return `could not find an available subnet: the default address pool ${formatSubnet(DEFAULT_ADDRESS_POOL)} is exhausted`;
    return { subnet, gateway: subnet.base + 1 };
  }
  const subnet = parseSubnet(config.subnet);
  if (typeof subnet === 'string') return subnet;
  const clash = taken.find((other) => subnetsOverlap(other, subnet));
  if (clash) return `invalid pool request: subnet ${formatSubnet(subnet)} overlaps with ${formatSubnet(clash)}, already in use`;
  if (config.gateway === undefined) return { subnet, gateway: subnet.base + 1 };
  const gateway = parseIpv4(config.gateway);
  if (gateway === undefined) return `invalid gateway ${config.gateway}: expected an IPv4 address`;
  if (!isHostAddress(subnet, gateway)) return `invalid gateway ${formatIpv4(gateway)}: not a usable address of ${formatSubnet(subnet)}`;
  return { subnet, gateway };
};

/** The lowest subnet of `prefix` bits in `pool` that overlaps nothing in `taken`. */
const firstFree = (pool: Ipv4Subnet, prefix: number, taken: readonly Ipv4Subnet[]): Ipv4Subnet | undefined => {
  const step = 2 ** (32 - prefix);
  const end = pool.base + subnetSize(pool);
  const inPool = taken.filter((t) => subnetsOverlap(t, pool)).sort((a, b) => a.base - b.base);
  let candidate = pool.base;
  for (const used of inPool) {
    const usedEnd = used.base + subnetSize(used);
    if (usedEnd <= candidate) continue;
    if (used.base >= candidate + step) break;
    candidate = Math.ceil(usedEnd / step) * step;
  }
  return candidate + step <= end ? { base: candidate, prefix } : undefined;
};
