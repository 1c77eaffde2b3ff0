/** The cluster object and ownership terms. */
import type { EventOf } from '@shoal/contracts';
import type { ClusterState } from './state';
import { applied, rejected } from './verdict';
import type { Verdict } from './verdict';

type ClusterEvent = EventOf<'ClusterInitialized' | 'ClusterSpecUpdated' | 'JoinTokensRotated' | 'OwnershipTaken'>;

export const evolveCluster = (state: ClusterState, event: ClusterEvent): Verdict => {
  switch (event.type) {
    case 'ClusterInitialized': {
      if (state.cluster) return rejected(event.type, 'already-initialized', `cluster ${state.cluster.id} is already initialized`);
      const { spec, tokens } = event.data;
      state.cluster = { id: event.cluster, spec, tokens, version: 1, createdAt: event.at, updatedAt: event.at };
      return applied(event.type);
    }
    case 'ClusterSpecUpdated': {
      const cluster = state.cluster;
      if (!cluster) return rejected(event.type, 'not-initialized', 'the cluster is not initialized');
      state.cluster = { ...cluster, spec: event.data.spec, version: cluster.version + 1, updatedAt: event.at };
      return applied(event.type);
    }
    case 'JoinTokensRotated': {
      const cluster = state.cluster;
      if (!cluster) return rejected(event.type, 'not-initialized', 'the cluster is not initialized');
      const tokens = {
        worker: event.data.worker ?? cluster.tokens.worker,
        manager: event.data.manager ?? cluster.tokens.manager,
      };
      state.cluster = { ...cluster, tokens, updatedAt: event.at };
      return applied(event.type);
    }
    case 'OwnershipTaken':
      // evolve's admission already checked the term is newer.
      state.terms.set(event.data.component, event.data.term);
      return applied(event.type);
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};
