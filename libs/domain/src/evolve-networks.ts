/** Networks: created by the user, given a subnet by the allocator, removed when unused. */
import type { EventOf } from '@shoal/contracts';
import type { ClusterState } from './state';
import { applied, rejected } from './verdict';
import type { Verdict } from './verdict';

type NetworkEvent = EventOf<'NetworkCreated' | 'NetworkAllocated' | 'NetworkRemoved'>;

export const evolveNetworks = (state: ClusterState, event: NetworkEvent): Verdict => {
  switch (event.type) {
    case 'NetworkCreated': {
      const { id, spec } = event.data;
      if (event.by.component === 'allocator' && !spec.ingress) {
        return rejected(event.type, `the allocator may only create the ingress network, not ${spec.name}`);
      }
      if (state.networks.has(id)) return rejected(event.type, `network ${id} already exists`);
      for (const network of state.networks.values()) {
        if (network.spec.name === spec.name) return rejected(event.type, `network with name ${spec.name} already exists`);
        if (spec.ingress && network.spec.ingress) {
          return rejected(event.type, `an ingress network already exists: ${network.spec.name}`);
        }
      }
      state.networks.set(id, { id, spec, createdAt: event.at });
      return applied(event.type);
    }
    case 'NetworkAllocated': {
      const { id, subnet, gateway } = event.data;
      const network = state.networks.get(id);
      if (!network) return rejected(event.type, `network ${id} not found`);
      if (network.subnet !== undefined) return rejected(event.type, `network ${id} already has subnet ${network.subnet}`);
      state.networks.set(id, { ...network, subnet, gateway });
      return applied(event.type);
    }
    case 'NetworkRemoved': {
      const network = state.networks.get(event.data.id);
      if (!network) return rejected(event.type, `network ${event.data.id} not found`);
      for (const service of state.services.values()) {
        const uses = service.spec.task.networks?.some((n) => n.target === network.id || n.target === network.spec.name);
        if (uses) return rejected(event.type, `network ${network.spec.name} is in use by service ${service.spec.name}`);
      }
      state.networks.delete(network.id);
      return applied(event.type);
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};
