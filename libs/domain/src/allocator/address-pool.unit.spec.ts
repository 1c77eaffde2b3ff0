import { parseIpv4 as parseAddress } from '../net';
import { AddressPool, addressOf, taskHolder } from './address-pool';
import { parseSubnet } from './subnets';
import type { Ipv4Subnet } from '../net';

const pool = (subnet: string, gateway: string) => new AddressPool('n1', parseSubnet(subnet) as Ipv4Subnet, parseAddress(gateway) as number);

describe('a network\'s address pool', () => {
  it('never hands out the network address, the broadcast address or the gateway', () => {
    const p = pool('192.168.0.0/29', '192.168.0.1');
    expect(p.capacity).toBe(5);
    const taken = Array.from({ length: 5 }, (_, i) => p.format(p.take(taskHolder(`t${i}`)) as number));
    expect(taken).toEqual(['192.168.0.2/29', '192.168.0.3/29', '192.168.0.4/29', '192.168.0.5/29', '192.168.0.6/29']);
    expect(p.take(taskHolder('t5'))).toBeUndefined();
  });

  it('goes on after the last address taken, so a freed one is not reused at once', () => {
    const p = pool('10.0.0.0/24', '10.0.0.1');
    const a = p.take('task:a') as number;
    p.take('task:b');
    expect(p.release(a, 'task:a')).toBe(true);
    expect(p.take('task:c')).toBe(a + 2);
  });

  it('claims what the log recorded, once per address; only the holder may release it', () => {
    const p = pool('10.0.0.0/24', '10.0.0.1');
    const address = parseAddress('10.0.0.7') as number;
    expect(p.claim(address, 'task:a')).toBe(true);
    expect(p.claim(address, 'task:a')).toBe(true);
    expect(p.claim(address, 'task:b')).toBe(false);
    expect(p.claim(parseAddress('10.0.0.1') as number, 'task:b')).toBe(false);
    expect(p.claim(parseAddress('10.0.1.7') as number, 'task:b')).toBe(false);
    expect(p.release(address, 'task:b')).toBe(false);
    expect(p.holderOf(address)).toBe('task:a');
    expect(p.available).toBe(252);
  });

  it('reads back an address it wrote, with or without its prefix', () => {
    expect(addressOf('10.0.1.5/24')).toBe(0x0a000105);
    expect(addressOf('10.0.1.5')).toBe(0x0a000105);
    expect(addressOf('10.0.1/24')).toBeUndefined();
  });

  it('can hold only an address of its subnet that is not reserved, held or not', () => {
    const p = pool('10.0.0.0/24', '10.0.0.1');
    expect(p.canHold(parseAddress('10.0.0.7') as number)).toBe(true);
    p.take('task:a');
    expect(p.canHold(parseAddress('10.0.0.2') as number)).toBe(true);
    for (const never of ['10.0.0.0', '10.0.0.1', '10.0.0.255', '10.0.1.7']) expect(p.canHold(parseAddress(never) as number)).toBe(false);
  });
});
