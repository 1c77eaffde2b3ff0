/** IP addresses and subnets: the one reading of them for the API, the allocator and the scheduler. */
export { parseIpv4, formatIpv4 } from './ipv4';
export { parseIpv4Subnet, formatSubnet, subnetSize, hasHostBits, withoutHostBits, subnetContains, subnetsOverlap, isHostAddress } from './ipv4-subnet';
export type { Ipv4Subnet } from './ipv4-subnet';
export { parseIp, parseHostAddress, ipEquals } from './ip-address';
export type { IpBytes } from './ip-address';
export { parseIpPrefix, prefixContains } from './ip-prefix';
export type { IpPrefix } from './ip-prefix';
