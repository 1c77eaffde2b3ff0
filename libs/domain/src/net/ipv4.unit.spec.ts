import { formatIpv4, parseIpv4 } from './ipv4';

describe('IPv4 addresses as numbers', () => {
  it('reads and writes dotted quads', () => {
    expect(parseIpv4('10.0.1.5')).toBe(0x0a000105);
    expect(formatIpv4(0x0a000105)).toBe('10.0.1.5');
    expect(formatIpv4(parseIpv4('255.255.255.255') as number)).toBe('255.255.255.255');
    for (const bad of ['10.0.1', '10.0.1.256', '10.0.1.x', '', '1.2.3.4.5', ' 10.0.1.5', '10.0.1.5/24']) expect(parseIpv4(bad)).toBeUndefined();
  });
});
