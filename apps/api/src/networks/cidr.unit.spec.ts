import { contains, overlaps, parseIpv4, parseSubnet } from './cidr';

describe('cidr', () => {
  it('parses subnets and refuses host bits, bad octets and bad prefixes', () => {
    expect(parseSubnet('10.0.1.0/24')).toEqual({ base: parseIpv4('10.0.1.0'), prefix: 24 });
    expect(parseSubnet('10.0.1.5/24')).toBeUndefined();
    expect(parseSubnet('10.0.256.0/24')).toBeUndefined();
    expect(parseSubnet('10.0.1.0/33')).toBeUndefined();
    expect(parseSubnet('10.0.1.0')).toBeUndefined();
  });

  it('tells whether an address is inside and whether two subnets overlap', () => {
    const s = parseSubnet('192.168.0.0/16')!;
    expect(contains(s, parseIpv4('192.168.44.1')!)).toBe(true);
    expect(contains(s, parseIpv4('192.169.0.1')!)).toBe(false);
    expect(overlaps(s, parseSubnet('192.168.7.0/24')!)).toBe(true);
    expect(overlaps(s, parseSubnet('10.0.0.0/8')!)).toBe(false);
    expect(overlaps(parseSubnet('0.0.0.0/0')!, parseSubnet('10.0.0.0/8')!)).toBe(true);
  });
});
