/**
 * Finding an object the way Docker does: by full id, then by name, then by a unique id
 * prefix; an ambiguous prefix or no match is an error Docker's CLI knows.
 */
import { HttpException } from '@nestjs/common';
import type { Task } from '@shoal/contracts';
import type { ClusterState, Config, Network, Node, Secret, Service } from '@shoal/domain';

const find = <T extends { readonly id: string }>(
  kind: string,
  all: ReadonlyMap<string, T>,
  ref: string,
  named: (item: T) => boolean,
): T => {
  const exact = all.get(ref);
  if (exact) return exact;
  const byName = [...all.values()].filter(named);
  if (byName.length === 1) return byName[0]!;
  const byPrefix = ref ? [...all.values()].filter((item) => item.id.startsWith(ref)) : [];
  if (byPrefix.length === 1) return byPrefix[0]!;
  if (byName.length > 1 || byPrefix.length > 1) {
    throw new HttpException(`${kind} ${ref} is ambiguous (${Math.max(byName.length, byPrefix.length)} matches found)`, 400);
  }
  throw new HttpException(`${kind} ${ref} not found`, 404);
};

export const findService = (state: ClusterState, ref: string): Service =>
  find('service', state.services, ref, (service) => service.spec.name === ref);

export const findNode = (state: ClusterState, ref: string): Node =>
  find('node', state.nodes, ref, (node) => node.description.hostname === ref || node.spec.name === ref);

export const findTask = (state: ClusterState, ref: string): Task => find('task', state.tasks, ref, () => false);

export const findNetwork = (state: ClusterState, ref: string): Network =>
  find('network', state.networks, ref, (network) => network.spec.name === ref);

/**
 * A network asked for with `?scope=`, as Docker's manager finds it: in the swarm scope (or
 * none) by id, name or id prefix; in any other scope by its id or an id prefix only.
 */
export const findNetworkInScope = (state: ClusterState, ref: string, scope: string | undefined): Network =>
  scope === undefined || scope === '' || scope === 'swarm' ? findNetwork(state, ref) : find('network', state.networks, ref, () => false);

export const findConfig = (state: ClusterState, ref: string): Config =>
  find('config', state.configs, ref, (config) => config.spec.name === ref);

export const findSecret = (state: ClusterState, ref: string): Secret =>
  find('secret', state.secrets, ref, (secret) => secret.spec.name === ref);
