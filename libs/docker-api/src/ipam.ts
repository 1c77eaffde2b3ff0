/**
 * An IPAM config's subnet as the API takes it ("10.0.1.0/24"): an IPv4 CIDR with no host
 * bits set, spaces around it and between its address and its slash ignored. The reading
 * itself is the domain's (libs/domain/src/net).
 */
import { hasHostBits, parseIpv4Subnet } from '@shoal/domain';
import type { Ipv4Subnet } from '@shoal/domain';

/** The subnet, or undefined when `text` is not an IPv4 CIDR or has host bits set. */
export const ipamSubnet = (text: string): Ipv4Subnet | undefined => {
  const subnet = parseIpv4Subnet(text.trim().replace(/\s+\//, '/'));
  return subnet === undefined || hasHostBits(subnet) ? undefined : subnet;
};
