import { ipEquals, parseHostAddress, parseIp } from './ip-address';

describe('IP addresses of either family', () => {
  it('reads IPv4 and IPv6, an IPv4 address and its IPv4-mapped form being the same', () => {
    expect(parseIp('10.0.0.1')).toHaveLength(16);
    expect(ipEquals(parseIp('10.0.0.1')!, parseIp('::ffff:10.0.0.1')!)).toBe(true);
    expect(ipEquals(parseIp('2001:db8::1')!, parseIp('2001:0db8:0:0:0:0:0:1')!)).toBe(true);
    expect(ipEquals(parseIp('10.0.0.1')!, parseIp('10.0.0.2')!)).toBe(false);
  });

  it('refuses what is not an address', () => {
    for (const bad of ['10.0.0', '10.0.0.256', '1.2.3.4.5', 'host', '2001:db8::1::2', '12345::', '']) expect(parseIp(bad)).toBeUndefined();
  });

  it('reads a host address with or without a port', () => {
    expect(parseHostAddress('10.0.0.5:4242')).toEqual(parseIp('10.0.0.5'));
    expect(parseHostAddress('[2001:db8::5]:4242')).toEqual(parseIp('2001:db8::5'));
    expect(parseHostAddress('2001:db8::5')).toEqual(parseIp('2001:db8::5'));
    expect(parseHostAddress(undefined)).toBeUndefined();
  });
});
