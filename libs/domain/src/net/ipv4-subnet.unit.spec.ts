import { parseIpv4 } from './ipv4';
import { formatSubnet, hasHostBits, isHostAddress, parseIpv4Subnet, subnetContains, subnetsOverlap, withoutHostBits } from './ipv4-subnet';
import type { Ipv4Subnet } from './ipv4-subnet';

const sub = (text: string) => parseIpv4Subnet(text) as Ipv4Subnet;
const ip = (text: string) => parseIpv4(text) as number;

describe('IPv4 subnets', () => {
  it('reads a CIDR as written, host bits and all, and refuses bad octets and prefixes', () => {
    expect(parseIpv4Subnet('10.0.1.0/24')).toEqual({ base: 0x0a000100, prefix: 24 });
    expect(formatSubnet(sub('172.16.0.0/12'))).toBe('172.16.0.0/12');
    expect(hasHostBits(sub('10.0.1.5/24'))).toBe(true);
    expect(hasHostBits(sub('10.0.1.0/24'))).toBe(false);
    expect(formatSubnet(withoutHostBits(sub('10.0.1.5/24')))).toBe('10.0.1.0/24');
    for (const bad of ['10.0.256.0/24', '10.0.1.0/33', '10.0.1.0', '10.0.1.0/24/1', '10.0.1.0/008', 'fd00::/64', ' 10.0.1.0/24']) expect(parseIpv4Subnet(bad)).toBeUndefined();
  });

  it('tells whether an address is inside and whether two subnets overlap', () => {
    const s = sub('192.168.0.0/16');
    expect(subnetContains(s, ip('192.168.44.1'))).toBe(true);
    expect(subnetContains(s, ip('192.169.0.1'))).toBe(false);
    expect(subnetsOverlap(s, sub('192.168.7.0/24'))).toBe(true);
    expect(subnetsOverlap(s, sub('10.0.0.0/8'))).toBe(false);
    expect(subnetsOverlap(sub('0.0.0.0/0'), sub('10.0.0.0/8'))).toBe(true);
    expect(subnetsOverlap(sub('10.0.0.0/16'), sub('10.0.3.0/24'))).toBe(true);
    expect(subnetsOverlap(sub('10.0.3.0/24'), sub('10.0.0.0/16'))).toBe(true);
    expect(subnetsOverlap(sub('10.0.3.0/24'), sub('10.0.4.0/24'))).toBe(false);
  });

  it('knows a host address from the network and broadcast addresses', () => {
    const s = sub('10.0.1.0/24');
    expect(isHostAddress(s, ip('10.0.1.1'))).toBe(true);
    for (const no of ['10.0.1.0', '10.0.1.255', '10.0.2.1']) expect(isHostAddress(s, ip(no))).toBe(false);
  });
});
