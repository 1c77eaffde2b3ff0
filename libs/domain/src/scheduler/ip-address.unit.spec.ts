import { ipEquals, parseCidr, parseHostAddress, parseIp, subnetContains } from './ip-address';

describe('IP addresses for node.ip constraints', () => {
  it('reads IPv4 and IPv6, an IPv4 address and its IPv4-mapped form being the same', () => {
    expect(parseIp('10.0.0.1')).toHaveLength(16);
    expect(ipEquals(parseIp('10.0.0.1')!, parseIp('::ffff:10.0.0.1')!)).toBe(true);
    expect(ipEquals(parseIp('2001:db8::1')!, parseIp('2001:0db8:0:0:0:0:0:1')!)).toBe(true);
    expect(ipEquals(parseIp('10.0.0.1')!, parseIp('10.0.0.2')!)).toBe(false);
  });

  it('refuses what is not an address', () => {
    for (const bad of ['10.0.0', '10.0.0.256', '1.2.3.4.5', 'host', '2001:db8::1::2', '12345::', '']) expect(parseIp(bad)).toBeUndefined();
  });

  it('reads a node address with or without a port', () => {
    expect(parseHostAddress('10.0.0.5:4242')).toEqual(parseIp('10.0.0.5'));
    expect(parseHostAddress('[2001:db8::5]:4242')).toEqual(parseIp('2001:db8::5'));
    expect(parseHostAddress('2001:db8::5')).toEqual(parseIp('2001:db8::5'));
    expect(parseHostAddress(undefined)).toBeUndefined();
  });

  it('tests membership of a subnet, IPv4 prefixes counting over the mapped form', () => {
    const net = parseCidr('172.16.0.0/12')!;
    expect(subnetContains(net, parseIp('172.31.255.255')!)).toBe(true);
    expect(subnetContains(net, parseIp('172.32.0.0')!)).toBe(false);
    expect(subnetContains(parseCidr('0.0.0.0/0')!, parseIp('8.8.8.8')!)).toBe(true);
    expect(subnetContains(parseCidr('0.0.0.0/0')!, parseIp('2001:db8::1')!)).toBe(false);
    expect(parseCidr('10.0.0.0/33')).toBeUndefined();
    expect(parseCidr('10.0.0.0')).toBeUndefined();
  });
});
