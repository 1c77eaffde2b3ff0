import type { PortConfig } from '@shoal/contracts';
import { emptyState } from '../state';
import { evolve } from '../evolve';
import { EventBuilder, serviceSpec } from '@shoal/testing';
import { ingressPortConflict } from './ingress-ports';

const port = (publishedPort: number | undefined, publishMode: 'ingress' | 'host' = 'ingress'): PortConfig => ({
  protocol: 'tcp',
  targetPort: 80,
  publishMode,
  ...(publishedPort !== undefined ? { publishedPort } : {}),
});
const publishing = (name: string, ...ports: PortConfig[]) => serviceSpec(name, { kind: 'replicated', replicas: 1 }, { endpoint: { mode: 'vip', ports } });

describe('ingressPortConflict', () => {
  const b = new EventBuilder('c1');
  const state = emptyState();
  evolve(state, b.event('ServiceCreated', { id: 's1', spec: publishing('p1', port(9999)) }));

  it("names the service that publishes the port, in Docker's words", () => {
    expect(ingressPortConflict(state, publishing('p2', port(8080), port(9999)))).toBe("port '9999' is already in use by service 'p1' (s1) as an ingress port");
  });

  it('lets a service keep its own port, and allows host-mode, other and dynamic ports', () => {
    expect(ingressPortConflict(state, publishing('p1', port(9999)), 's1')).toBeUndefined();
    expect(ingressPortConflict(state, publishing('p2', port(9999, 'host')))).toBeUndefined();
    expect(ingressPortConflict(state, publishing('p2', port(9998), port(undefined)))).toBeUndefined();
    expect(ingressPortConflict(state, serviceSpec('plain'))).toBeUndefined();
  });
});
