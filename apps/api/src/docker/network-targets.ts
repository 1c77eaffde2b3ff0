/**
 * A service's network attachments name their networks by id, as Docker stores them: a name
 * (or a unique id prefix) a client gives is resolved against the networks known when the
 * spec is accepted, so inspect shows the id. A target that names no network is left as it
 * is, for the admission to refuse with its own reason.
 */
import { HttpException } from '@nestjs/common';
import type { ServiceSpec } from '@shoal/contracts';
import type { ClusterState } from '@shoal/domain';
import { findNetwork } from './lookup';

const networkIdOf = (state: ClusterState, target: string): string => {
  try {
    return findNetwork(state, target).id;
  } catch (error) {
    if (error instanceof HttpException) return target;
    throw error;
  }
};

export const withNetworkIds = (state: ClusterState, spec: ServiceSpec): ServiceSpec => {
  const networks = spec.task.networks;
  if (!networks) return spec;
  return { ...spec, task: { ...spec.task, networks: networks.map((network) => ({ ...network, target: networkIdOf(state, network.target) })) } };
};
