/**
 * The manager the docker CLI talks to, as a node of the swarm. Docker's daemon is itself a
 * swarm node: `/nodes` lists it with its ManagerStatus (the leader), and the CLI finds it
 * by the NodeID /info gives (`docker node ls` marks it `*`, `docker node inspect self`,
 * `docker swarm join-token` for the join address). Shoal's control plane is that node:
 * listed, filtered and looked up as any node, but never on the log, never scheduled on
 * (drained), and never changed or removed, with Docker's words for what a lone leader
 * refuses.
 */
import { createHash } from 'node:crypto';
import type { NodeSpec } from '@shoal/contracts';
import type { Cluster, Node } from '@shoal/domain';
import type { DockerNode } from '@shoal/docker-api';

export const CONTROL_PLANE_HOSTNAME = 'shoal-manager';

export const controlPlaneNodeId = (clusterId: string): string =>
  BigInt(`0x${createHash('sha256').update(`shoal-manager:${clusterId}`).digest('hex')}`)
    .toString(36)
    .slice(0, 25);

/** The host of a join address (`host:port`): the address the control plane answers as a node's. */
export const joinHost = (joinAddr: string): string => joinAddr.split(':')[0] ?? joinAddr;

/** The control plane as a node: a manager, ready at the join address's host, drained, as old as the cluster. */
export const controlPlaneNode = (cluster: Cluster, joinAddr: string, engineVersion: string): Node => ({
  id: controlPlaneNodeId(cluster.id),
  description: {
    hostname: CONTROL_PLANE_HOSTNAME,
    platform: { architecture: 'x86_64', os: 'linux' },
    resources: {},
    engine: { version: engineVersion },
  },
  spec: { labels: {}, role: 'manager', availability: 'drain' },
  version: cluster.version,
  status: { state: 'ready', addr: joinHost(joinAddr), at: cluster.updatedAt },
  createdAt: cluster.createdAt,
  updatedAt: cluster.updatedAt,
});

/** The swarm's nodes: the control plane's first, then those registered on the log, by id. */
export const swarmNodes = (cluster: Cluster, registered: ReadonlyMap<string, Node>, joinAddr: string, engineVersion: string): Map<string, Node> => {
  const controlPlane = controlPlaneNode(cluster, joinAddr, engineVersion);
  return new Map([[controlPlane.id, controlPlane], ...registered]);
};

/** The control plane's Docker node leads the swarm, reachable at the join address. */
export const asLeader = (node: DockerNode, joinAddr: string): DockerNode => ({
  ...node,
  ManagerStatus: { Leader: true, Reachability: 'reachable', Addr: joinAddr },
});

/** A refusal of a change to the control plane's node: Docker's status for it, and why. */
export interface ControlPlaneRefusal {
  readonly status: 400 | 409;
  readonly message: string;
}

/**
 * A spec update of the control plane's node, checked in SwarmKit's order: demoting it is its
 * refusal to demote the last manager, then a stale version is out of sequence; an update
 * that changes nothing is accepted (undefined), any other change refused.
 */
export const controlPlaneUpdateRefusal = (node: Node, asked: NodeSpec, version: number): ControlPlaneRefusal | undefined => {
  if (asked.role !== 'manager') return { status: 400, message: "attempting to demote the last manager of the swarm (Shoal's control plane leads it and stays its manager)" };
  if (version !== node.version) return { status: 409, message: `update out of sequence: node ${node.id} is at version ${node.version}, not ${version}` };
  const unchanged = asked.availability === node.spec.availability && asked.name === node.spec.name && sameLabels(asked.labels, node.spec.labels);
  if (unchanged) return undefined;
  return { status: 400, message: `node ${node.id} is Shoal's control plane: it stays drained (no task runs there) and has no name or labels to set` };
};

/** SwarmKit's words for removing a manager that is a member of the raft cluster: the control plane always is. */
export const controlPlaneRemovalRefusal = (node: Node): string =>
  `node ${node.id} is a cluster manager and is a member of the raft cluster. It must be demoted to worker before removal`;

const sameLabels = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([key, value]) => b[key] === value);
