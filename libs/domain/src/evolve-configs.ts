/** Configs: created by the user, relabelled, removed once no service uses them (as SwarmKit). */
import type { EventOf } from '@shoal/contracts';
import { admitConfigSpec } from './admission/config-admission';
import { inUseReason, servicesUsing } from './in-use';
import type { ClusterState } from './state';
import { applied, rejected } from './verdict';
import type { Verdict } from './verdict';

type ConfigEvent = EventOf<'ConfigCreated' | 'ConfigUpdated' | 'ConfigRemoved'>;

export const evolveConfigs = (state: ClusterState, event: ConfigEvent): Verdict => {
  switch (event.type) {
    case 'ConfigCreated': {
      const { id, spec } = event.data;
      const refusal = admitConfigSpec(state, id, spec);
      if (refusal) return rejected(event.type, refusal.code, refusal.reason);
      state.configs.set(id, { id, spec, version: 1, createdAt: event.at, updatedAt: event.at });
      return applied(event.type);
    }
    case 'ConfigUpdated': {
      const { id, spec } = event.data;
      const config = state.configs.get(id);
      if (!config) return rejected(event.type, 'not-found', `config ${id} not found`);
      if (spec.name !== config.spec.name || spec.data !== config.spec.data) {
        return rejected(event.type, 'invalid', `only updates to labels are allowed: config ${config.spec.name}'s name and data are fixed`);
      }
      state.configs.set(id, { ...config, spec, version: config.version + 1, updatedAt: event.at });
      return applied(event.type);
    }
    case 'ConfigRemoved': {
      const config = state.configs.get(event.data.id);
      if (!config) return rejected(event.type, 'not-found', `config ${event.data.id} not found`);
      const users = servicesUsing(state, (spec) => spec.task.container.configs?.some((ref) => ref.configId === config.id) ?? false);
      if (users.length > 0) return rejected(event.type, 'in-use', inUseReason('config', config.spec.name, users));
      state.configs.delete(config.id);
      return applied(event.type);
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};
