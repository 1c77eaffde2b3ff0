/**
 * Secrets: created by the user, relabelled, removed once no service uses them (as SwarmKit).
 * The view holds a secret's bytes only sealed; opening them takes its data key, which is
 * kept beside the log and destroyed once the removal is applied.
 */
import type { EventOf } from '@shoal/contracts';
import { admitSecretSpec } from './admission/secret-admission';
import { inUseReason, servicesUsing } from './in-use';
import type { ClusterState } from './state';
import { applied, rejected } from './verdict';
import type { Verdict } from './verdict';

type SecretEvent = EventOf<'SecretCreated' | 'SecretUpdated' | 'SecretRemoved'>;

export const evolveSecrets = (state: ClusterState, event: SecretEvent): Verdict => {
  switch (event.type) {
    case 'SecretCreated': {
      const { id, spec, data } = event.data;
      const refusal = admitSecretSpec(state, id, spec);
      if (refusal) return rejected(event.type, refusal.code, refusal.reason);
      state.secrets.set(id, { id, spec, data, version: 1, createdAt: event.at, updatedAt: event.at });
      return applied(event.type);
    }
    case 'SecretUpdated': {
      const { id, spec } = event.data;
      const secret = state.secrets.get(id);
      if (!secret) return rejected(event.type, 'not-found', `secret ${id} not found`);
      if (spec.name !== secret.spec.name) {
        return rejected(event.type, 'invalid', `only updates to labels are allowed: secret ${secret.spec.name}'s name is fixed`);
      }
      state.secrets.set(id, { ...secret, spec, version: secret.version + 1, updatedAt: event.at });
      return applied(event.type);
    }
    case 'SecretRemoved': {
      const secret = state.secrets.get(event.data.id);
      if (!secret) return rejected(event.type, 'not-found', `secret ${event.data.id} not found`);
      const users = servicesUsing(state, (spec) => spec.task.container.secrets?.some((ref) => ref.secretId === secret.id) ?? false);
      if (users.length > 0) return rejected(event.type, 'in-use', inUseReason('secret', secret.spec.name, users));
      state.secrets.delete(secret.id);
      return applied(event.type);
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};
