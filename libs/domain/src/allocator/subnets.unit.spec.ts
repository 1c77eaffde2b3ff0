import { parseSubnet } from './cidr';
import type { Subnet } from './cidr';
import { chooseSubnet } from './subnets';

const sub = (text: string) => parseSubnet(text) as Subnet;

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
