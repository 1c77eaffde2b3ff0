/** Networks: created by the user, given a subnet by the allocator, removed when unused. */
import { RULE_LEVELS, TaskState } from '@shoal/contracts';
import type { EventOf, Task } from '@shoal/contracts';
import { ruleApplies } from './rule-levels';
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
      // As SwarmKit: a task that may still hold an address on it keeps it too, so no address
      // is handed out twice should a network come back under the same id.
      const onlyMeantToRun = ruleApplies(state, RULE_LEVELS.networkHeldOnlyByTasksMeantToRun);
      for (const task of state.tasks.values()) {
        if (!holdsNetwork(state, task, network.id, onlyMeantToRun)) continue;
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
 * A task that keeps a network from removal: attached to it and not yet ended; and, where
 * `onlyMeantToRun` (SwarmKit's removeNetwork), still meant to run: desired RUNNING or
 * before, of a service not removed (SwarmKit's orchestrator marks a removed service's
 * tasks desired REMOVE as it deletes it; Shoal's says so in a later record).
 */
const holdsNetwork = (state: ClusterState, task: Task, networkId: string, onlyMeantToRun: boolean): boolean => {
  if (task.status.state > TaskState.RUNNING || !task.attachments?.some((a) => a.network === networkId)) return false;
  return !onlyMeantToRun || (task.desiredState <= TaskState.RUNNING && state.services.has(task.serviceId));
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
