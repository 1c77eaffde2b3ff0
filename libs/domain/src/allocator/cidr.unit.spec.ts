import { addressOf, formatAddress, formatSubnet, overlaps, parseAddress, parseSubnet } from './cidr';

describe('IPv4 addresses and subnets', () => {
  it('reads and writes dotted quads', () => {
    expect(parseAddress('10.0.1.5')).toBe(0x0a000105);
    expect(formatAddress(0x0a000105)).toBe('10.0.1.5');
    expect(formatAddress(parseAddress('255.255.255.255') as number)).toBe('255.255.255.255');
    for (const bad of ['10.0.1', '10.0.1.256', '10.0.1.x', '', '1.2.3.4.5']) expect(parseAddress(bad)).toBeUndefined();
    expect(addressOf('10.0.1.5/24')).toBe(0x0a000105);
  });

  it('reads a CIDR, refusing host bits, bad prefixes and subnets too small for a task', () => {
    expect(parseSubnet('10.0.1.0/24')).toEqual({ base: 0x0a000100, prefix: 24 });
    expect(formatSubnet(parseSubnet('172.16.0.0/12') as never)).toBe('172.16.0.0/12');
    expect(parseSubnet('10.0.1.5/24')).toMatch(/host bits are set \(did you mean 10.0.1.0\/24\?\)/);
    expect(parseSubnet('10.0.1.0/31')).toMatch(/no room for tasks/);
    expect(parseSubnet('10.0.1.0')).toMatch(/expected an IPv4 CIDR/);
    expect(parseSubnet('fd00::/64')).toMatch(/expected an IPv4 CIDR/);
  });

  it('knows when two subnets overlap', () => {
    const sub = (text: string) => parseSubnet(text) as never;
    expect(overlaps(sub('10.0.0.0/16'), sub('10.0.3.0/24'))).toBe(true);
    expect(overlaps(sub('10.0.3.0/24'), sub('10.0.0.0/16'))).toBe(true);
    expect(overlaps(sub('10.0.3.0/24'), sub('10.0.4.0/24'))).toBe(false);
  });
});
