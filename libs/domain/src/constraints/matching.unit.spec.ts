import type { Node } from '../state';
import { parseConstraints } from './constraint';
import { matchesConstraints } from './matching';

const node = (over: Partial<{ id: string; hostname: string; addr: string; role: 'worker' | 'manager'; labels: Record<string, string>; engine: Record<string, string>; os: string; arch: string }> = {}): Node => ({
  id: over.id ?? 'n1',
  description: {
    hostname: over.hostname ?? 'host-1',
    platform: { os: over.os ?? 'linux', architecture: over.arch ?? 'x86_64' },
    resources: {},
    engine: { version: '28', labels: over.engine ?? {} },
  },
  spec: { labels: over.labels ?? {}, role: over.role ?? 'worker', availability: 'active' },
  version: 1,
  status: { state: 'ready', at: 't', ...(over.addr ? { addr: over.addr } : {}) },
  createdAt: 't',
  updatedAt: 't',
});

const holds = (n: Node, ...expressions: string[]): boolean => matchesConstraints(n, parseConstraints(expressions));

describe('matching placement constraints on a node', () => {
  it('matches node.id, node.hostname and node.role, values without regard to case', () => {
    const n = node({ id: 'abc', hostname: 'Web-1', role: 'manager' });
    expect(holds(n, 'node.id==abc')).toBe(true);
    expect(holds(n, 'node.hostname==web-1')).toBe(true);
    expect(holds(n, 'NODE.ROLE==manager')).toBe(true);
    expect(holds(n, 'node.role!=manager')).toBe(false);
    expect(holds(n, 'node.id!=xyz', 'node.role==manager')).toBe(true);
  });

  it('matches node labels by their case-sensitive name, and a missing label as empty', () => {
    const n = node({ labels: { zone: 'east' } });
    expect(holds(n, 'node.labels.zone==east')).toBe(true);
    expect(holds(n, 'node.labels.Zone==east')).toBe(false);
    expect(holds(n, 'node.labels.rack!=r1')).toBe(true);
    expect(holds(n, 'node.labels.rack==r1')).toBe(false);
  });

  it('matches engine labels and the platform', () => {
    const n = node({ engine: { os: 'ubuntu' }, os: 'linux', arch: 'aarch64' });
    expect(holds(n, 'engine.labels.os==ubuntu')).toBe(true);
    expect(holds(n, 'engine.labels.os!=ubuntu')).toBe(false);
    expect(holds(n, 'node.platform.os==linux', 'node.platform.arch==aarch64')).toBe(true);
    expect(holds(n, 'node.platform.os==windows')).toBe(false);
  });

  it('matches node.ip against one address or a CIDR subnet, IPv4 and IPv6, with or without a port', () => {
    const v4 = node({ addr: '10.1.2.3:4242' });
    expect(holds(v4, 'node.ip==10.1.2.3')).toBe(true);
    expect(holds(v4, 'node.ip==10.0.0.0/8')).toBe(true);
    expect(holds(v4, 'node.ip!=10.0.0.0/8')).toBe(false);
    expect(holds(v4, 'node.ip==192.168.0.0/16')).toBe(false);
    expect(holds(v4, 'node.ip!=192.168.0.0/16')).toBe(true);
    const v6 = node({ addr: '[2001:db8::2]:4242' });
    expect(holds(v6, 'node.ip==2001:db8::2')).toBe(true);
    expect(holds(v6, 'node.ip==2001:db8::/32')).toBe(true);
    expect(holds(v6, 'node.ip==2001:db9::/32')).toBe(false);
  });

  it('never matches a malformed address, nor an unknown key, whatever the operator', () => {
    const n = node({ addr: '10.1.2.3' });
    expect(holds(n, 'node.ip==10.1.2.300')).toBe(false);
    expect(holds(n, 'node.ip!=10.1.2.300')).toBe(false);
    expect(holds(n, 'node.colour!=red')).toBe(false);
  });
});

describe('placement constraints on a node that does not tell everything', () => {
  it('given a node with no address yet, then node.ip== never holds and node.ip!= always does', () => {
    const n = node();
    expect(n.status.addr).toBeUndefined();
    expect(holds(n, 'node.ip==10.1.2.3')).toBe(false);
    expect(holds(n, 'node.ip!=10.1.2.3')).toBe(true);
    expect(holds(n, 'node.ip==10.0.0.0/8')).toBe(false);
    expect(holds(n, 'node.ip!=10.0.0.0/8')).toBe(true);
  });

  it('given an engine that reports no labels, then an engine label reads as empty', () => {
    const n = node();
    const bare: Node = { ...n, description: { ...n.description, engine: { version: '28' } } };
    expect(holds(bare, 'engine.labels.os!=ubuntu')).toBe(true);
    expect(holds(bare, 'engine.labels.os==ubuntu')).toBe(false);
  });

  it('holds only when every constraint does: one that fails is enough', () => {
    const n = node({ role: 'worker', labels: { zone: 'east' } });
    expect(holds(n, 'node.role==worker', 'node.labels.zone==west')).toBe(false);
    expect(holds(n, 'node.labels.zone==west', 'node.role==worker')).toBe(false);
    expect(holds(n, 'node.role==worker', 'node.labels.zone==east')).toBe(true);
    expect(holds(n)).toBe(true);
  });
});
