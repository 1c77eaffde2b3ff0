import { PortSpace } from './port-space';

describe('the routing mesh\'s published ports', () => {
  it('hands out dynamic ports from 30000 in order, per protocol', () => {
    const ports = new PortSpace();
    expect(ports.takeDynamic('tcp', 's1')).toBe(30000);
    expect(ports.takeDynamic('tcp', 's2')).toBe(30001);
    expect(ports.takeDynamic('udp', 's2')).toBe(30000);
  });

  it('skips a dynamic-range port that was asked for by name, and runs out after 32767', () => {
    const ports = new PortSpace();
    expect(ports.claim('tcp', 30000, 'named')).toBe(true);
    expect(ports.takeDynamic('tcp', 's1')).toBe(30001);
    for (let port = 30002; port <= 32767; port++) expect(ports.claim('tcp', port, 'filler')).toBe(true);
    expect(ports.takeDynamic('tcp', 's2')).toBeUndefined();
    expect(ports.release('tcp', 30001, 's1')).toBe(true);
    expect(ports.takeDynamic('tcp', 's2')).toBe(30001);
  });

  it('one holder per port: a claim by another service is refused, and only the holder releases it', () => {
    const ports = new PortSpace();
    expect(ports.claim('tcp', 8080, 's1')).toBe(true);
    expect(ports.claim('tcp', 8080, 's2')).toBe(false);
    expect(ports.release('tcp', 8080, 's2')).toBe(false);
    expect(ports.holderOf('tcp', 8080)).toBe('s1');
    expect(ports.claim('tcp', 0, 's1')).toBe(false);
    expect(ports.claim('tcp', 65536, 's1')).toBe(false);
  });
});
