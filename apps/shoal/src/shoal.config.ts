/** The all-in-one process's settings, from the environment (declared in @shoal/config). */
import { shoalSettings } from '@shoal/config';
import { apiListenSettings } from '../../api/src/tls/api-listen-settings';
import type { ApiListenSettings } from '../../api/src/tls/api-listen-settings';

export const SHOAL_CONFIG = Symbol('SHOAL_CONFIG');

export interface ShoalConfig {
  /** Where the embedded log, snapshots, the socket and the admin token live. */
  readonly dataDir: string;
  /** The API's TCP port on 127.0.0.1 (0: any free port). */
  readonly apiPort: number;
  /** The dispatcher's gRPC port on 127.0.0.1, where agents join (0: any free port). */
  readonly dispatcherPort: number;
  /** The ports the user set (SHOAL_API_PORT, SHOAL_DISPATCHER_PORT); a default that is taken gives way to a free port. */
  readonly chosenPorts?: { readonly api?: boolean; readonly dispatcher?: boolean };
  /** Simulated nodes started in this process (SHOAL_SIM_NODES, default 3); with the docker executor, none. */
  readonly simNodes: number;
  /** What runs the process's nodes' tasks (SHOAL_EXECUTOR): simulated nodes, or one node on the local Docker engine. */
  readonly executor?: 'sim' | 'docker';
  /** The Docker engine of the docker executor's node (SHOAL_ENGINE, default the usual socket). */
  readonly engine?: string;
  /** Kafka brokers; empty for the embedded log. */
  readonly brokers: readonly string[];
  /** How often the view is snapshotted (when it has moved), in ms. */
  readonly snapshotEveryMs: number;
  /** Cluster id to create on first start; a random one otherwise. */
  readonly clusterId?: string;
  /** The API's bind address and TLS: SHOAL_API_HOST, SHOAL_API_TLS, SHOAL_API_TLSVERIFY, SHOAL_API_TLSCACERT, SHOAL_API_TLSCERT, SHOAL_API_TLSKEY (127.0.0.1, plain HTTP). */
  readonly apiListen?: ApiListenSettings;
}

export const configFromEnv = (env: NodeJS.ProcessEnv): ShoalConfig => {
  const settings = shoalSettings(env);
  return {
    dataDir: settings.SHOAL_DATA_DIR,
    apiPort: settings.SHOAL_API_PORT,
    dispatcherPort: settings.SHOAL_DISPATCHER_PORT,
    chosenPorts: { api: settings.given.has('SHOAL_API_PORT'), dispatcher: settings.given.has('SHOAL_DISPATCHER_PORT') },
    simNodes: settings.SHOAL_SIM_NODES,
    executor: settings.SHOAL_EXECUTOR,
    engine: settings.SHOAL_ENGINE,
    snapshotEveryMs: settings.SHOAL_SNAPSHOT_EVERY_MS,
    brokers: settings.KAFKA_BROKERS,
    ...(settings.SHOAL_CLUSTER_ID ? { clusterId: settings.SHOAL_CLUSTER_ID } : {}),
    apiListen: apiListenSettings(env),
  };
};
