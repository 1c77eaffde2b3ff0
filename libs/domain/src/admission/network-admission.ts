/**
 * Whether a network may be created: its id and name are free, at most one is the ingress
 * network, and the allocator creates only that one. evolve asks it on NetworkCreated; the
 * API asks it before it writes (409, nothing on the log).
 */
import type { Component, NetworkSpec } from '@shoal/contracts';
import type { ClusterState } from '../state';
import { refuse } from '../verdict';
import type { Refused } from '../verdict';

const nameConflict = (name: string): Refused => refuse('name-conflict', `network with name ${name} already exists`);

/** Another network already has `name` (the API asks this first, before it reads the rest of the request). */
export const networkNameRefusal = (state: ClusterState, name: string): Refused | undefined => {
  for (const network of state.networks.values()) if (network.spec.name === name) return nameConflict(name);
  return undefined;
};

export const admitNetworkSpec = (state: ClusterState, id: string, spec: NetworkSpec, by: Component): Refused | undefined => {
  if (by === 'allocator' && !spec.ingress) return refuse('not-permitted', `the allocator may only create the ingress network, not ${spec.name}`);
  if (state.networks.has(id)) return refuse('already-exists', `network ${id} already exists`);
  for (const network of state.networks.values()) {
    if (network.spec.name === spec.name) return nameConflict(spec.name);
    if (spec.ingress && network.spec.ingress) return refuse('already-exists', `an ingress network already exists: ${network.spec.name}`);
  }
  return undefined;
};
