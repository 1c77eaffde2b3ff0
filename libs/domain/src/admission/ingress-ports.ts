/**
 * Docker refuses, at create and update, a service whose ingress published port another
 * service already publishes — rather than accepting it and leaving its tasks unallocated.
 * A rule of the intent (the API's view, before it writes): evolve does not hold records to it.
 */
import type { PortConfig, ServiceSpec } from '@shoal/contracts';
import type { ClusterState } from '../state';

const key = (port: PortConfig): string | undefined =>
  port.publishMode === 'ingress' && port.publishedPort !== undefined ? `${port.protocol}/${port.publishedPort}` : undefined;

/** Docker's message for the first ingress published port of `spec` another service holds or asks for; undefined when none. */
export const ingressPortConflict = (state: ClusterState, spec: ServiceSpec, self?: string): string | undefined => {
  const wanted = new Map<string, PortConfig>();
  for (const port of spec.endpoint?.ports ?? []) {
    const k = key(port);
    if (k !== undefined) wanted.set(k, port);
  }
  if (wanted.size === 0) return undefined;
  for (const other of state.services.values()) {
    if (other.id === self) continue;
    for (const port of [...(other.spec.endpoint?.ports ?? []), ...(other.endpoint?.ports ?? [])]) {
      const k = key(port);
      const clash = k === undefined ? undefined : wanted.get(k);
      if (clash) return `port '${clash.publishedPort}' is already in use by service '${other.spec.name}' (${other.id}) as an ingress port`;
    }
  }
  return undefined;
};
