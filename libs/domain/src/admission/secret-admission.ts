/**
 * Whether a secret may be created: its id and its name are free. evolve asks it on
 * SecretCreated; the API asks it before it writes (409 for a taken name, nothing on the log).
 */
import type { SecretSpec } from '@shoal/contracts';
import type { ClusterState } from '../state';
import { refuse } from '../verdict';
import type { Refused } from '../verdict';

export const admitSecretSpec = (state: ClusterState, id: string, spec: SecretSpec): Refused | undefined => {
  if (state.secrets.has(id)) return refuse('already-exists', `secret ${id} already exists`);
  for (const secret of state.secrets.values()) {
    if (secret.spec.name === spec.name) return refuse('name-conflict', `secret ${spec.name} already exists`);
  }
  return undefined;
};
