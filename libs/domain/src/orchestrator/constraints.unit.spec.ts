import type { Node } from '../state';
import { constraintsOf, nodeMatches, parseConstraints } from './constraints';
import { simNode } from './simulation';

const node = (labels: Record<string, string> = {}, addr?: string): Node => ({
  id: 'n1',
  description: { ...simNode('host-1'), engine: { version: '28', labels: { storage: 'ssd' } } },
  spec: { labels, role: 'worker', availability: 'active' },
  version: 1,
  status: { state: 'ready', at: '2026-01-01T00:00:00.000Z', ...(addr ? { addr } : {}) },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

const matches = (expressions: string[], n = node()) => nodeMatches(parseConstraints(expressions), n);

describe('placement constraints', () => {
  it('matches node fields, labels and engine labels, case-insensitively', () => {
    expect(matches(['node.id==n1', 'node.hostname==HOST-1', 'node.role==worker', 'node.platform.os==linux'])).toBe(true);
    expect(matches(['node.role!=manager', 'engine.labels.storage==ssd'])).toBe(true);
    expect(matches(['node.labels.zone==east'], node({ zone: 'East' }))).toBe(true);
    expect(matches(['node.labels.zone==east'], node({ zone: 'west' }))).toBe(false);
  });

  it('reads a missing label as empty, so != matches and == does not', () => {
    expect(matches(['node.labels.zone!=east'])).toBe(true);
    expect(matches(['node.labels.zone==east'])).toBe(false);
  });

  it('matches node.ip against an address or a CIDR block', () => {
    expect(matches(['node.ip==10.0.0.0/8'], node({}, '10.1.2.3'))).toBe(true);
    expect(matches(['node.ip!=10.0.0.0/8'], node({}, '10.1.2.3'))).toBe(false);
    expect(matches(['node.ip==192.168.1.7'], node({}, '192.168.1.7'))).toBe(true);
  });

  it('never matches an unknown key', () => {
    expect(matches(['node.colour==blue'])).toBe(false);
  });

  it('refuses malformed expressions with a clear error, and a spec with one matches no node', () => {
    expect(() => parseConstraints(['node.labels.zone'])).toThrow(/expected one operator/);
    expect(() => parseConstraints(['==east'])).toThrow(/key '' is invalid/);
    expect(constraintsOf(['node.labels.zone'])).toBeUndefined();
    expect(constraintsOf(undefined)).toEqual([]);
  });
});
