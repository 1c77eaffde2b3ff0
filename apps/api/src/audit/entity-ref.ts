/**
 * An entity named as the docker CLI names it: a service, node, network, config or secret by its
 * name (a node also by its hostname), or a task by the unique id prefix `docker service ps` prints.
 */
import type { ClusterState } from '@shoal/domain';
import { taskIdOf } from './task-ref';

/** The id of the service, node, network, config, secret or task `ref` names in `state`; `ref` itself when it names none. */
export const entityIdOf = (state: ClusterState, ref: string): string => {
  for (const service of state.services.values()) if (service.spec.name === ref) return service.id;
  for (const node of state.nodes.values()) if (node.spec.name === ref || node.description.hostname === ref) return node.id;
  for (const network of state.networks.values()) if (network.spec.name === ref) return network.id;
  for (const config of state.configs.values()) if (config.spec.name === ref) return config.id;
  for (const secret of state.secrets.values()) if (secret.spec.name === ref) return secret.id;
  return taskIdOf(state, ref);
};
