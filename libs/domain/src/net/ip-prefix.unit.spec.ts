import { parseIp } from './ip-address';
import { parseIpPrefix, prefixContains } from './ip-prefix';

describe('CIDR blocks of either family', () => {
  it('tests membership of a block, IPv4 prefixes counting over the mapped form', () => {
    const net = parseIpPrefix('172.16.0.0/12')!;
    expect(prefixContains(net, parseIp('172.31.255.255')!)).toBe(true);
    expect(prefixContains(net, parseIp('172.32.0.0')!)).toBe(false);
    expect(prefixContains(parseIpPrefix('0.0.0.0/0')!, parseIp('8.8.8.8')!)).toBe(true);
    expect(prefixContains(parseIpPrefix('0.0.0.0/0')!, parseIp('2001:db8::1')!)).toBe(false);
    expect(prefixContains(parseIpPrefix('2001:db8::/32')!, parseIp('2001:db8::2')!)).toBe(true);
    expect(parseIpPrefix('10.0.0.0/33')).toBeUndefined();
    expect(parseIpPrefix('10.0.0.0')).toBeUndefined();
  });
});
