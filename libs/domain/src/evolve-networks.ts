/** Networks: created by the user, given a subnet by the allocator, removed when unused. */
import { TaskState } from '@shoal/contracts';
import type { EventOf } from '@shoal/contracts';
import type { ClusterState } from './state';
import { applied, rejected } from './verdict';
import type { Verdict } from './verdict';
import { formatSubnet, isHostAddress, parseIpv4, subnetsOverlap } from './net';
import { parseSubnet } from './allocator/subnets';
import { admitNetworkSpec } from './admission/network-admission';

type NetworkEvent = EventOf<'NetworkCreated' | 'NetworkAllocated' | 'NetworkRemoved'>;

export const evolveNetworks = (state: ClusterState, event: NetworkEvent): Verdict => {
  switch (event.type) {
    case 'NetworkCreated': {
      const { id, spec } = event.data;
      const refusal = admitNetworkSpec(state, id, spec, event.by.component);
      if (refusal) return rejected(event.type, refusal.code, refusal.reason);
      state.networks.set(id, { id, spec, createdAt: event.at });
      return applied(event.type);
    }
    case 'NetworkAllocated': {
      const { id, subnet, gateway } = event.data;
      const network = state.networks.get(id);
      if (!network) return rejected(event.type, 'not-found', `network ${id} not found`);
      if (network.subnet !== undefined) return rejected(event.type, 'wrong-state', `network ${id} already has subnet ${network.subnet}`);
      const invalid = invalidAllocation(state, id, subnet, gateway);
      if (invalid) return rejected(event.type, 'invalid', invalid);
      state.networks.set(id, { ...network, subnet, gateway });
      return applied(event.type);
    }
    case 'NetworkRemoved': {
      const network = state.networks.get(event.data.id);
      if (!network) return rejected(event.type, 'not-found', `network ${event.data.id} not found`);
      for (const service of state.services.values()) {
        const uses = service.spec.task.networks?.some((n) => n.target === network.id || n.target === network.spec.name);
        if (uses) return rejected(event.type, 'in-use', `network ${network.spec.name} is in use by service ${service.spec.name}`);
      }
      // As SwarmKit: a task that may still hold an address on it (not yet ended) keeps it too,
      // so no address is handed out twice should a network come back under the same id.
      for (const task of state.tasks.values()) {
        if (task.status.state > TaskState.RUNNING || !task.attachments?.some((a) => a.network === network.id)) continue;
        return rejected(event.type, 'in-use', `network ${network.spec.name} is in use by task ${task.id}`);
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

/**
 * A subnet two networks share would hand one address to two tasks: refused, whoever
 * proposes it (a stale allocator included). So is a gateway outside its subnet.
 */
const invalidAllocation = (state: ClusterState, id: string, subnetText: string, gatewayText: string): string | undefined => {
  const subnet = parseSubnet(subnetText);
  if (typeof subnet === 'string') return subnet;
  const gateway = parseIpv4(gatewayText);
  if (gateway === undefined || !isHostAddress(subnet, gateway)) {
    return `invalid gateway ${gatewayText}: not a usable address of ${formatSubnet(subnet)}`;
  }
  for (const other of state.networks.values()) {
    if (other.id === id || other.subnet === undefined) continue;
    const taken = parseSubnet(other.subnet);
    if (typeof taken !== 'string' && subnetsOverlap(taken, subnet)) {
      return `subnet ${formatSubnet(subnet)} overlaps ${other.subnet} of network ${other.spec.name}`;
    }
  }
  return undefined;
};
