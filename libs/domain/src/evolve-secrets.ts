/**
 * Secrets: created by the user, relabelled, removed once no service uses them (as SwarmKit).
 * The view holds a secret's bytes only sealed; opening them takes its data key, which is
 * kept beside the log and destroyed once the removal is applied.
 */
import type { EventOf } from '@shoal/contracts';
import { admitSecretSpec } from './admission/secret-admission';
import type { ClusterState } from './state';
import { applied, rejected } from './verdict';
import type { Verdict } from './verdict';

type SecretEvent = EventOf<'SecretCreated' | 'SecretUpdated' | 'SecretRemoved'>;

/** The services whose spec uses the secret `id`, by name. */
export const servicesUsingSecret = (state: ClusterState, id: string): string[] => {
  const users: string[] = [];
  for (const service of state.services.values()) {
    if (service.spec.task.container.secrets?.some((ref) => ref.secretId === id)) users.push(service.spec.name);
  }
  return users;
};

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
      const users = servicesUsingSecret(state, secret.id);
      if (users.length > 0) {
        const which = users.length === 1 ? 'service' : 'services';
        return rejected(event.type, 'in-use', `secret '${secret.spec.name}' is in use by the following ${which}: ${users.join(', ')}`);
      }
      state.secrets.delete(secret.id);
      return applied(event.type);
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};
