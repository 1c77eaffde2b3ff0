import { formatSubnet } from '../net';
import type { Ipv4Subnet } from '../net';
import { chooseSubnet, parseSubnet } from './subnets';

const sub = (text: string) => parseSubnet(text) as Ipv4Subnet;

describe('a network\'s subnet as the user gives it', () => {
  it('reads a CIDR, refusing host bits, bad prefixes and subnets too small for a task', () => {
    expect(parseSubnet('10.0.1.0/24')).toEqual({ base: 0x0a000100, prefix: 24 });
    expect(formatSubnet(parseSubnet('172.16.0.0/12') as never)).toBe('172.16.0.0/12');
    expect(parseSubnet('10.0.1.5/24')).toMatch(/host bits are set \(did you mean 10.0.1.0\/24\?\)/);
    expect(parseSubnet('10.0.1.0/31')).toMatch(/no room for tasks/);
    expect(parseSubnet('10.0.1.0')).toMatch(/expected an IPv4 CIDR/);
    expect(parseSubnet('fd00::/64')).toMatch(/expected an IPv4 CIDR/);
  });

  it('says so in the words evolve and the allocator record', () => {
    expect(parseSubnet('10.0.1.0')).toBe('invalid subnet 10.0.1.0: expected an IPv4 CIDR such as 10.0.1.0/24');
    expect(parseSubnet('10.0.1.0/31')).toBe('invalid subnet 10.0.1.0/31: a /31 has no room for tasks (at most /30)');
    expect(parseSubnet('10.0.1.5/24')).toBe('invalid subnet 10.0.1.5/24: host bits are set (did you mean 10.0.1.0/24?)');
  });
});

describe('choosing a network subnet', () => {
  it('carves the first free /24 of 10.0.0.0/8, stepping over anything taken', () => {
    expect(chooseSubnet(undefined, [])).toEqual({ subnet: sub('10.0.0.0/24'), gateway: 0x0a000001 });
    expect(chooseSubnet([], [sub('10.0.0.0/24'), sub('10.0.1.0/24')])).toMatchObject({ subnet: sub('10.0.2.0/24') });
    expect(chooseSubnet(undefined, [sub('10.0.0.0/22'), sub('10.0.5.0/24')])).toMatchObject({ subnet: sub('10.0.4.0/24') });
    expect(chooseSubnet(undefined, [sub('10.0.0.128/25')])).toMatchObject({ subnet: sub('10.0.1.0/24') });
  });

  it('says so when the default pool is exhausted', () => {
    expect(chooseSubnet(undefined, [sub('10.0.0.0/8')])).toMatch(/default address pool 10.0.0.0\/8 is exhausted/);
  });

  it('takes a given subnet and gateway, and refuses an overlap or a gateway outside it', () => {
    expect(chooseSubnet([{ subnet: '192.168.5.0/24', gateway: '192.168.5.254' }], [])).toEqual({ subnet: sub('192.168.5.0/24'), gateway: 0xc0a805fe });
    expect(chooseSubnet([{ subnet: '192.168.5.0/24' }], [])).toMatchObject({ gateway: 0xc0a80501 });
    expect(chooseSubnet([{ subnet: '10.0.0.0/16' }], [sub('10.0.3.0/24')])).toMatch(/overlaps with 10.0.3.0\/24/);
    expect(chooseSubnet([{ subnet: '192.168.5.0/24', gateway: '192.168.6.1' }], [])).toMatch(/invalid gateway 192.168.6.1/);
    expect(chooseSubnet([{ gateway: '10.0.0.1' }], [])).toMatch(/gateway 10.0.0.1 given without a subnet/);
  });
});
