import { parseIpv4, subnetContains, subnetsOverlap } from '@shoal/domain';
import { ipamSubnet } from './ipam';

describe('an IPAM subnet', () => {
  it('parses subnets and refuses host bits, bad octets and bad prefixes', () => {
    expect(ipamSubnet('10.0.1.0/24')).toEqual({ base: parseIpv4('10.0.1.0'), prefix: 24 });
    expect(ipamSubnet(' 10.0.1.0 /24 ')).toEqual({ base: parseIpv4('10.0.1.0'), prefix: 24 });
    expect(ipamSubnet('10.0.1.0/ 24')).toBeUndefined();
    expect(ipamSubnet('10.0.1.5/24')).toBeUndefined();
    expect(ipamSubnet('10.0.256.0/24')).toBeUndefined();
    expect(ipamSubnet('10.0.1.0/33')).toBeUndefined();
    expect(ipamSubnet('10.0.1.0')).toBeUndefined();
  });

  it('tells whether an address is inside and whether two subnets overlap', () => {
    const s = ipamSubnet('192.168.0.0/16')!;
    expect(subnetContains(s, parseIpv4('192.168.44.1')!)).toBe(true);
    expect(subnetContains(s, parseIpv4('192.169.0.1')!)).toBe(false);
    expect(subnetsOverlap(s, ipamSubnet('192.168.7.0/24')!)).toBe(true);
    expect(subnetsOverlap(s, ipamSubnet('10.0.0.0/8')!)).toBe(false);
    expect(subnetsOverlap(ipamSubnet('0.0.0.0/0')!, ipamSubnet('10.0.0.0/8')!)).toBe(true);
  });
});
