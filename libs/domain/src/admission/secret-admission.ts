/** Whether a secret may be created: its id and its name are free, as a config's (config-admission.ts). */
import type { SecretSpec } from '@shoal/contracts';
import type { ClusterState } from '../state';
import type { Refused } from '../verdict';
import { admitNamed } from './config-admission';

export const admitSecretSpec = (state: ClusterState, id: string, spec: SecretSpec): Refused | undefined => admitNamed('secret', state.secrets, id, spec.name);
