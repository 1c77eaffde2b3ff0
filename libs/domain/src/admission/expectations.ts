/**
 * A record's expectations (`expect`): the versions of the entities its writer decided from.
 * evolve checks them for every record; the API checks an intent's against its view first,
 * so it refuses as the log would, in the same order.
 */
import type { Expectations } from '@shoal/contracts';
import type { ClusterState } from '../state';
import { refuse } from '../verdict';
import type { Refused } from '../verdict';

export const unmetExpectation = (state: ClusterState, expect: Expectations | undefined): Refused | undefined => {
  if (!expect) return undefined;
  for (const [id, version] of Object.entries(expect.serviceVersions ?? {})) {
    const service = state.services.get(id);
    if (!service) return refuse('not-found', `expected service ${id} at version ${version}, but it does not exist`);
    if (service.version !== version) {
      return refuse('stale-version', `update out of sequence: service ${id} is at version ${service.version}, not ${version}`);
    }
  }
  for (const [id, version] of Object.entries(expect.nodeVersions ?? {})) {
    const node = state.nodes.get(id);
    if (!node) return refuse('not-found', `expected node ${id} at version ${version}, but it does not exist`);
    if (node.version !== version) return refuse('stale-version', `update out of sequence: node ${id} is at version ${node.version}, not ${version}`);
  }
  for (const [id, version] of Object.entries(expect.configVersions ?? {})) {
    const config = state.configs.get(id);
    if (!config) return refuse('not-found', `expected config ${id} at version ${version}, but it does not exist`);
    if (config.version !== version) return refuse('stale-version', `update out of sequence: config ${id} is at version ${config.version}, not ${version}`);
  }
  for (const [id, version] of Object.entries(expect.secretVersions ?? {})) {
    const secret = state.secrets.get(id);
    if (!secret) return refuse('not-found', `expected secret ${id} at version ${version}, but it does not exist`);
    if (secret.version !== version) return refuse('stale-version', `update out of sequence: secret ${id} is at version ${secret.version}, not ${version}`);
  }
  if (expect.clusterVersion !== undefined) {
    const at = state.cluster?.version;
    if (at !== expect.clusterVersion) {
      return refuse('stale-version', `update out of sequence: cluster is at version ${at ?? 'none'}, not ${expect.clusterVersion}`);
    }
  }
  return undefined;
};
