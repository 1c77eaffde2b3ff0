/**
 * The dispatcher process's settings, from the environment:
 *   SHOAL_BIND_HOST            where the agents' gRPC server listens (default 127.0.0.1)
 *   SHOAL_DISPATCHER_PORT      its port (default 2377, as SwarmKit; 0 = any free port)
 *   SHOAL_DISPATCHER_ADVERTISE the host:port agents are sent to when this instance is active
 *                              (default host:port as bound)
 *   SHOAL_CLUSTER_ID           the cluster to write for (default: the log's)
 *   SHOAL_DATA_DIR, SHOAL_SNAPSHOT_EVERY_MS  where and how often its view is snapshotted
 */
import { viewSnapshotsFromEnv } from '@shoal/runtime';
import type { DispatcherServerOptions } from './dispatcher-server';

export const DEFAULT_DISPATCHER_PORT = 2377;

const port = (raw: string): number => {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > 65535) throw new Error(`SHOAL_DISPATCHER_PORT must be a port number (0–65535), not "${raw}"`);
  return value;
};

export const dispatcherOptionsFromEnv = (env: NodeJS.ProcessEnv): DispatcherServerOptions => {
  const advertise = env.SHOAL_DISPATCHER_ADVERTISE?.trim();
  if (advertise !== undefined && advertise !== '' && !/^(\[[^\]]+\]|[^:\s]+):\d+$/.test(advertise)) {
    throw new Error(`SHOAL_DISPATCHER_ADVERTISE must be host:port, not "${advertise}"`);
  }
  const cluster = env.SHOAL_CLUSTER_ID?.trim();
  const snapshots = viewSnapshotsFromEnv(env, 'dispatcher');
  return {
    host: env.SHOAL_BIND_HOST?.trim() || '127.0.0.1',
    port: port(env.SHOAL_DISPATCHER_PORT?.trim() || String(DEFAULT_DISPATCHER_PORT)),
    ...(advertise ? { advertise } : {}),
    ...(cluster ? { cluster } : {}),
    ...(snapshots ? { snapshots } : {}),
  };
};
