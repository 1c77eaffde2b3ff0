/** Configs and secrets alike may not be removed while a service's spec uses them (as SwarmKit): who uses one, and SwarmKit's words. */
import type { ServiceSpec } from '@shoal/contracts';
import type { ClusterState } from './state';

/** The names of the services whose spec `uses` says uses the object. */
export const servicesUsing = (state: ClusterState, uses: (spec: ServiceSpec) => boolean): string[] => {
  const users: string[] = [];
  for (const service of state.services.values()) if (uses(service.spec)) users.push(service.spec.name);
  return users;
};

/** "config 'app-conf' is in use by the following service: web". */
export const inUseReason = (kind: 'config' | 'secret', name: string, users: readonly string[]): string =>
  `${kind} '${name}' is in use by the following ${users.length === 1 ? 'service' : 'services'}: ${users.join(', ')}`;
