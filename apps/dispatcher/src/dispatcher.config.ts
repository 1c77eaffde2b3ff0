/**
 * The dispatcher process's settings, from the environment: a component's
 * (componentSettingsFromEnv: SHOAL_BIND_HOST, where the agents' gRPC server listens too;
 * SHOAL_CLUSTER_ID; SHOAL_DATA_DIR, SHOAL_SNAPSHOT_EVERY_MS), and its own:
 *   SHOAL_DISPATCHER_PORT      the agents' port (default 2377, as SwarmKit; 0 = any free port)
 *   SHOAL_DISPATCHER_ADVERTISE the host:port agents are sent to when this instance is active
 *                              (default host:port as bound)
 *   SHOAL_CA_DIR               the cluster's root CA (made there if missing): mutual TLS, and
 *                              NodeCA for joining nodes; unset, plain gRPC
 */
import { defaultSettings, shoalSettings } from '@shoal/config';
import { componentSettingsFromEnv, ensureCa } from '@shoal/runtime';
import type { DispatcherServerOptions } from './dispatcher-server';

export const DEFAULT_DISPATCHER_PORT = defaultSettings().SHOAL_DISPATCHER_PORT;

export const dispatcherOptionsFromEnv = (env: NodeJS.ProcessEnv): DispatcherServerOptions => {
  const settings = shoalSettings(env);
  const advertise = settings.SHOAL_DISPATCHER_ADVERTISE;
  const { host, cluster, snapshots } = componentSettingsFromEnv(env, 'dispatcher');
  const caDir = settings.SHOAL_CA_DIR;
  return {
    ...(caDir ? { ca: ensureCa(caDir) } : {}),
    host,
    port: settings.SHOAL_DISPATCHER_PORT,
    ...(advertise ? { advertise } : {}),
    ...(cluster ? { cluster } : {}),
    ...(snapshots ? { snapshots } : {}),
  };
};
