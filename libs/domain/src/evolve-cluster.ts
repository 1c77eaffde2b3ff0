/** The cluster object and ownership terms. */
import { MIN_NODE_CERT_EXPIRY_MS, RULE_LEVELS, certificateOf } from '@shoal/contracts';
import type { ClusterSpec, Component, EventOf } from '@shoal/contracts';
import type { Cluster, ClusterState } from './state';
import { applied, rejected } from './verdict';
import type { Verdict } from './verdict';

type ClusterEvent = EventOf<'ClusterInitialized' | 'ClusterSpecUpdated' | 'JoinTokensRotated' | 'OwnershipTaken' | 'LogLevelRaised' | 'RootCaRotationStarted'>;

export const evolveCluster = (state: ClusterState, event: ClusterEvent): Verdict => {
  switch (event.type) {
    case 'ClusterInitialized': {
      if (state.cluster) return rejected(event.type, 'already-initialized', `cluster ${state.cluster.id} is already initialized`);
      const { spec, tokens, logLevel } = event.data;
      const refused = specRefusal(spec, logLevel ?? 1);
      if (refused) return rejected(event.type, 'invalid', refused);
      state.cluster = { id: event.cluster, spec, tokens, version: 1, createdAt: event.at, updatedAt: event.at, ...(logLevel !== undefined && logLevel > 1 ? { logLevel } : {}) };
      return applied(event.type);
    }
    case 'ClusterSpecUpdated': {
      const cluster = state.cluster;
      if (!cluster) return rejected(event.type, 'not-initialized', 'the cluster is not initialized');
      const refused = specRefusal(event.data.spec, cluster.logLevel ?? 1);
      if (refused) return rejected(event.type, 'invalid', refused);
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
    case 'OwnershipTaken': {
      // evolve's admission already checked the term is newer.
      const { component, term } = event.data;
      const reads = event.data.reads ?? 1;
      const cluster = state.cluster;
      const level = cluster?.logLevel ?? 1;
      if (reads < level) {
        return rejected(event.type, 'wrong-state', `the ${component}'s new owner reads log level ${reads} and the log is at level ${level}: run a build that reads level ${level}`);
      }
      state.terms.set(component, term);
      if (cluster && (reads > 1 || cluster.readers?.[component] !== undefined)) state.cluster = { ...cluster, readers: withReader(cluster.readers, component, reads) };
      return applied(event.type);
    }
    case 'LogLevelRaised': {
      const cluster = state.cluster;
      if (!cluster) return rejected(event.type, 'not-initialized', 'the cluster is not initialized');
      const { level } = event.data;
      const current = cluster.logLevel ?? 1;
      if (level !== current + 1) return rejected(event.type, 'invalid', `the log is at level ${current}: it goes up one level at a time, to ${current + 1}`);
      const behind = [...state.terms.keys()].filter((component) => (cluster.readers?.[component] ?? 1) < level).sort();
      if (behind.length > 0) {
        return rejected(event.type, 'wrong-state', `not every component's owner reads log level ${level}: ${behind.join(', ')} (run a build that reads it, then raise the level)`);
      }
      state.cluster = { ...cluster, logLevel: level };
      return applied(event.type);
    }
    case 'RootCaRotationStarted': {
      const cluster = state.cluster;
      if (!cluster) return rejected(event.type, 'not-initialized', 'the cluster is not initialized');
      const level = cluster.logLevel ?? 1;
      if (level < RULE_LEVELS.nodeTlsInfo) return rejected(event.type, 'invalid', `a root CA rotation needs log level ${RULE_LEVELS.nodeTlsInfo} and the log is at level ${level}`);
      // A rotation asked for during another replaces it, as SwarmKit's does: the new root is cross-signed by the root in use.
      const { tokens, ...root } = event.data;
      state.cluster = { ...cluster, rootRotation: { ...root, tokens }, version: cluster.version + 1, updatedAt: event.at };
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
 * Ends the rotation under way once every node's certificate is of its new root (the issuer
 * the dispatcher saw when the node last registered), as SwarmKit's root rotation
 * reconciler does: the new root is the cluster's, and so are the join tokens that carry its
 * digest. A node down, or one that never reported its TLS, keeps the rotation going until it
 * comes back or is removed (`docker node rm`).
 */
export const endRootRotationIfDone = (state: ClusterState, at: string): void => {
  const cluster = state.cluster;
  const rotation = cluster?.rootRotation;
  if (!cluster || !rotation) return;
  for (const node of state.nodes.values()) if (!certificateOf(node.description.tls, rotation.issuer)) return;
  const { rootRotation: _ended, ...kept } = cluster;
  const { tokens, ...rootCa } = rotation;
  state.cluster = { ...kept, tokens, rootCa, version: cluster.version + 1, updatedAt: at };
};

/** Why a cluster spec may not stand on a log at `logLevel`: CA settings before their level, or a certificate life below SwarmKit's least. */
const specRefusal = (spec: ClusterSpec, logLevel: number): string | undefined => {
  if (!spec.ca) return undefined;
  if (logLevel < RULE_LEVELS.caSettingsInTheSpec) {
    return `the CA's settings (node certificate expiry) need log level ${RULE_LEVELS.caSettingsInTheSpec} and the log is at level ${logLevel}`;
  }
  if (spec.ca.nodeCertExpiryMs < MIN_NODE_CERT_EXPIRY_MS) return `minimum certificate expiry time is: 1h0m0s (asked for ${spec.ca.nodeCertExpiryMs} ms)`;
  return undefined;
};

/** The owners' levels with `component`'s now `reads`; level 1 is left out, as absent. */
const withReader = (readers: Cluster['readers'], component: Component, reads: number): Cluster['readers'] => {
  const next: Partial<Record<Component, number>> = { ...readers };
  if (reads > 1) next[component] = reads;
  else delete next[component];
  return Object.keys(next).length > 0 ? next : undefined;
};
