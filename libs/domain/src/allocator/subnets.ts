/**
 * Subnets for networks: the one the user gave (checked: a valid IPv4 CIDR, a gateway
 * inside it, no overlap with another network), or the first free /24 of the default
 * address pool 10.0.0.0/8 — as Docker's swarm does by default.
 */
import type { IpamConfig } from '@shoal/contracts';
import { contains, formatAddress, formatSubnet, overlaps, parseAddress, parseSubnet, subnetSize } from './cidr';
import type { Subnet } from './cidr';

export const DEFAULT_ADDRESS_POOL: Subnet = { base: 10 * 2 ** 24, prefix: 8 };
export const DEFAULT_SUBNET_PREFIX = 24;

export interface SubnetChoice {
  readonly subnet: Subnet;
  readonly gateway: number;
}

/** A subnet and gateway for a network with `ipam`, clear of every subnet in `taken`; or why not. */
export const chooseSubnet = (ipam: readonly IpamConfig[] | undefined, taken: readonly Subnet[]): SubnetChoice | string => {
  const config = ipam?.[0];
  if (config?.subnet === undefined) {
    if (config?.gateway !== undefined) return `invalid ipam: gateway ${config.gateway} given without a subnet`;
    const subnet = firstFree(DEFAULT_ADDRESS_POOL, DEFAULT_SUBNET_PREFIX, taken);
    if (!subnet) return `could not find an available subnet: the default address pool ${formatSubnet(DEFAULT_ADDRESS_POOL)} is exhausted`;
    return { subnet, gateway: subnet.base + 1 };
  }
  const subnet = parseSubnet(config.subnet);
  if (typeof subnet === 'string') return subnet;
  const clash = taken.find((other) => overlaps(other, subnet));
  if (clash) return `invalid pool request: subnet ${formatSubnet(subnet)} overlaps with ${formatSubnet(clash)}, already in use`;
  if (config.gateway === undefined) return { subnet, gateway: subnet.base + 1 };
  const gateway = parseAddress(config.gateway);
  if (gateway === undefined) return `invalid gateway ${config.gateway}: expected an IPv4 address`;
  if (!contains(subnet, gateway) || gateway === subnet.base || gateway === subnet.base + subnetSize(subnet) - 1) {
    return `invalid gateway ${formatAddress(gateway)}: not a usable address of ${formatSubnet(subnet)}`;
  }
  return { subnet, gateway };
};

/** The lowest subnet of `prefix` bits in `pool` that overlaps nothing in `taken`. */
const firstFree = (pool: Subnet, prefix: number, taken: readonly Subnet[]): Subnet | undefined => {
  const step = 2 ** (32 - prefix);
  const end = pool.base + subnetSize(pool);
  const inPool = taken.filter((t) => overlaps(t, pool)).sort((a, b) => a.base - b.base);
  let candidate = pool.base;
  for (const used of inPool) {
    const usedEnd = used.base + subnetSize(used);
    if (usedEnd <= candidate) continue;
    if (used.base >= candidate + step) break;
    candidate = Math.ceil(usedEnd / step) * step;
  }
  return candidate + step <= end ? { base: candidate, prefix } : undefined;
};
