import type { Node } from '../state';
import { constraintsOf } from './constraint';
import { meetsConstraints } from './matching';

const node = (labels: Record<string, string> = {}, addr?: string): Node => ({
  id: 'n1',
  description: { hostname: 'host-1', platform: { os: 'linux', architecture: 'x86_64' }, resources: {}, engine: { version: '28', labels: { storage: 'ssd' } } },
  spec: { labels, role: 'worker', availability: 'active' },
  version: 1,
  status: { state: 'ready', at: '2026-01-01T00:00:00.000Z', ...(addr ? { addr } : {}) },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

const meets = (expressions: string[] | undefined, n = node()) => meetsConstraints(constraintsOf(expressions), n);

describe('a service\'s constraints, as the orchestrators read them', () => {
  it('puts a service without constraints on every node', () => {
    expect(meets(undefined)).toBe(true);
    expect(meets([])).toBe(true);
  });

  it('matches node fields, labels and engine labels, case-insensitively', () => {
    expect(meets(['node.id==n1', 'node.hostname==HOST-1', 'node.role==worker', 'node.platform.os==linux'])).toBe(true);
    expect(meets(['node.role!=manager', 'engine.labels.storage==ssd'])).toBe(true);
    expect(meets(['node.labels.zone==east'], node({ zone: 'East' }))).toBe(true);
    expect(meets(['node.labels.zone==east'], node({ zone: 'west' }))).toBe(false);
    expect(meets(['node.labels.zone!=east'])).toBe(true);
  });

  it('matches node.ip against an address or a CIDR block', () => {
    expect(meets(['node.ip==10.0.0.0/8'], node({}, '10.1.2.3'))).toBe(true);
    expect(meets(['node.ip!=10.0.0.0/8'], node({}, '10.1.2.3'))).toBe(false);
  });

  it('puts a service whose constraints do not parse on no node at all', () => {
    expect(constraintsOf(['node.labels.zone'])).toBeUndefined();
    expect(meets(['node.labels.zone'])).toBe(false);
    expect(meets(['node.colour==blue'])).toBe(false);
  });
});
