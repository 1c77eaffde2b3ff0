/**
 * The dispatcher process's settings, from the environment: a component's
 * (componentSettingsFromEnv: SHOAL_BIND_HOST, where the agents' gRPC server listens too;
 * SHOAL_CLUSTER_ID; SHOAL_DATA_DIR, SHOAL_SNAPSHOT_EVERY_MS), and its own:
 *   SHOAL_DISPATCHER_PORT      the agents' port (default 2377, as SwarmKit; 0 = any free port)
 *   SHOAL_DISPATCHER_ADVERTISE the host:port agents are sent to when this instance is active
 *                              (default host:port as bound)
 */
import { componentSettingsFromEnv, portFromEnv } from '@shoal/runtime';
import type { DispatcherServerOptions } from './dispatcher-server';

export const DEFAULT_DISPATCHER_PORT = 2377;

export const dispatcherOptionsFromEnv = (env: NodeJS.ProcessEnv): DispatcherServerOptions => {
  const advertise = env.SHOAL_DISPATCHER_ADVERTISE?.trim();
  if (advertise !== undefined && advertise !== '' && !/^(\[[^\]]+\]|[^:\s]+):\d+$/.test(advertise)) {
    throw new Error(`SHOAL_DISPATCHER_ADVERTISE must be host:port, not "${advertise}"`);
  }
  const { host, cluster, snapshots } = componentSettingsFromEnv(env, 'dispatcher');
  return {
    host,
    port: portFromEnv(env, 'SHOAL_DISPATCHER_PORT', DEFAULT_DISPATCHER_PORT),
    ...(advertise ? { advertise } : {}),
    ...(cluster ? { cluster } : {}),
    ...(snapshots ? { snapshots } : {}),
  };
};
