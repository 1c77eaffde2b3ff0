/**
 * Whether a config (or a secret) may be created: its id and its name are free. evolve asks
 * it on ConfigCreated and SecretCreated; the API asks it before it writes (409 for a taken
 * name, nothing on the log).
 */
import type { ConfigSpec } from '@shoal/contracts';
import type { ClusterState } from '../state';
import { refuse } from '../verdict';
import type { Refused } from '../verdict';

/** A `kind` of the id and name given may join `existing`: neither is taken. */
export const admitNamed = (
  kind: 'config' | 'secret',
  existing: ReadonlyMap<string, { readonly spec: { readonly name: string } }>,
  id: string,
  name: string,
): Refused | undefined => {
  if (existing.has(id)) return refuse('already-exists', `${kind} ${id} already exists`);
  for (const object of existing.values()) {
    if (object.spec.name === name) return refuse('name-conflict', `${kind} ${name} already exists`);
  }
  return undefined;
};

export const admitConfigSpec = (state: ClusterState, id: string, spec: ConfigSpec): Refused | undefined => admitNamed('config', state.configs, id, spec.name);
