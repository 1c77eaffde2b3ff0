/**
 * Whether a config may be created: its id and its name are free. evolve asks it on
 * ConfigCreated; the API asks it before it writes (409 for a taken name, nothing on the log).
 */
import type { ConfigSpec } from '@shoal/contracts';
import type { ClusterState } from '../state';
import { refuse } from '../verdict';
import type { Refused } from '../verdict';

export const admitConfigSpec = (state: ClusterState, id: string, spec: ConfigSpec): Refused | undefined => {
  if (state.configs.has(id)) return refuse('already-exists', `config ${id} already exists`);
  for (const config of state.configs.values()) {
    if (config.spec.name === spec.name) return refuse('name-conflict', `config ${spec.name} already exists`);
  }
  return undefined;
};
