/**
 * The manager the docker CLI talks to. Docker's daemon is itself a swarm node, and the
 * CLI asks for it by the NodeID /info gives (`docker node inspect self`, `docker swarm
 * join-token` for the join address). Shoal's control plane is not a node that runs
 * tasks, so this node is answered by id but never listed and never scheduled on.
 */
import { createHash } from 'node:crypto';
import type { Cluster } from '@shoal/domain';
import type { DockerNode } from '@shoal/docker-api';

export const controlPlaneNodeId = (clusterId: string): string =>
  BigInt(`0x${createHash('sha256').update(`shoal-manager:${clusterId}`).digest('hex')}`)
    .toString(36)
    .slice(0, 25);

export const controlPlaneNode = (cluster: Cluster, joinAddr: string, engineVersion: string): DockerNode => ({
  ID: controlPlaneNodeId(cluster.id),
  Version: { Index: cluster.version },
  CreatedAt: cluster.createdAt,
  UpdatedAt: cluster.updatedAt,
  Spec: { Name: 'shoal-manager', Labels: {}, Role: 'manager', Availability: 'drain' },
  Description: {
    Hostname: 'shoal-manager',
    Platform: { Architecture: 'x86_64', OS: 'linux' },
    Resources: {},
    Engine: { EngineVersion: engineVersion },
    TLSInfo: { TrustRoot: '', CertIssuerSubject: '', CertIssuerPublicKey: '' },
  },
  Status: { State: 'ready', Addr: joinAddr.split(':')[0] ?? joinAddr },
  ManagerStatus: { Leader: true, Reachability: 'reachable', Addr: joinAddr },
});
