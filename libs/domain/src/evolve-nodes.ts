/** Nodes: registered and observed by the dispatcher, configured by the operator. */
import { RULE_LEVELS, TaskState } from '@shoal/contracts';
import type { EventOf } from '@shoal/contracts';
import { endRootRotationIfDone } from './evolve-cluster';
import { ruleApplies } from './rule-levels';
import type { ClusterState } from './state';
import { applied, batchVerdict, refuse, rejected } from './verdict';
import type { Refused, Verdict } from './verdict';

type NodeEvent = EventOf<'NodeRegistered' | 'NodeStatusChanged' | 'NodeSpecUpdated' | 'NodeRemoved'>;

export const evolveNodes = (state: ClusterState, event: NodeEvent): Verdict => {
  switch (event.type) {
    case 'NodeRegistered': {
      const { id, role, addr } = event.data;
      // A node's TLS from level 6, where it ends a root rotation; below it, not kept, as builds before it keep none.
      const { tls, ...untold } = event.data.description;
      const description = tls && ruleApplies(state, RULE_LEVELS.nodeTlsInfo) ? event.data.description : untold;
      const status = { state: 'ready' as const, at: event.at, ...(addr === undefined ? {} : { addr }) };
      const node = state.nodes.get(id);
      state.nodes.set(
        id,
        node
          ? { ...node, description, status, updatedAt: event.at }
          : {
              id,
              description,
              spec: { labels: {}, role, availability: 'active' },
              version: 1,
              status,
              createdAt: event.at,
              updatedAt: event.at,
            },
      );
      endRootRotationIfDone(state, event.at);
      return applied(event.type);
    }
    case 'NodeStatusChanged': {
      const refusals: Refused[] = [];
      for (const item of event.data.nodes) {
        const node = state.nodes.get(item.id);
        if (!node) {
          refusals.push(refuse('not-found', `node ${item.id} not found`, item.id));
          continue;
        }
        const status = {
          state: item.state,
          at: event.at,
          ...(item.message === undefined ? {} : { message: item.message }),
          ...(item.addr ?? node.status.addr ? { addr: item.addr ?? node.status.addr } : {}),
        };
        state.nodes.set(item.id, { ...node, status, updatedAt: event.at });
      }
      return batchVerdict(event.type, event.data.nodes.length, refusals);
    }
    case 'NodeSpecUpdated': {
      const node = state.nodes.get(event.data.id);
      if (!node) return rejected(event.type, 'not-found', `node ${event.data.id} not found`);
      state.nodes.set(node.id, { ...node, spec: event.data.spec, version: node.version + 1, updatedAt: event.at });
      return applied(event.type);
    }
    case 'NodeRemoved': {
      const node = state.nodes.get(event.data.id);
      if (!node) return rejected(event.type, 'not-found', `node ${event.data.id} not found`);
      if (!event.data.force && node.status.state !== 'down') {
        return rejected(event.type, 'wrong-state', `node ${node.id} is not down and can't be removed`);
      }
      state.nodes.delete(node.id);
      if (ruleApplies(state, RULE_LEVELS.nodeRemovalOrphansTasks)) orphanTasksOf(state, node.id, event.at);
      endRootRotationIfDone(state, event.at);
      return applied(event.type);
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

/**
 * A removed node's tasks not yet ended are ORPHANED at once, as SwarmKit's RemoveNode does
 * in the same transaction: no agent will report them again, so they neither count as
 * running nor keep their replacements waiting for them to stop.
 */
const orphanTasksOf = (state: ClusterState, nodeId: string, at: string): void => {
  for (const task of state.tasks.values()) {
    if (task.nodeId !== nodeId || task.status.state > TaskState.RUNNING) continue;
    state.tasks.set(task.id, { ...task, status: { state: TaskState.ORPHANED, at, message: 'Task belonged to a node that has been deleted' } });
  }
};
