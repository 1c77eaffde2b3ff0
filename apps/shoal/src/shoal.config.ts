/** The all-in-one process's settings, from the environment. */
import { portFromEnv } from '@shoal/runtime';
import { DEFAULT_ENGINE } from '../../agent/src/docker/engine-client';
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

const count = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const raw = env[name]?.trim() || String(fallback);
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, not "${env[name]}"`);
  return Number(raw);
};

/** SHOAL_EXECUTOR: sim (the default) or docker. */
const executorFromEnv = (env: NodeJS.ProcessEnv): 'sim' | 'docker' => {
  const value = env.SHOAL_EXECUTOR?.trim() || 'sim';
  if (value !== 'sim' && value !== 'docker') throw new Error(`SHOAL_EXECUTOR must be sim or docker, not "${env.SHOAL_EXECUTOR}"`);
  return value;
};

const given = (env: NodeJS.ProcessEnv, name: string): boolean => (env[name]?.trim() ?? '') !== '';

export const configFromEnv = (env: NodeJS.ProcessEnv): ShoalConfig => ({
  dataDir: env.SHOAL_DATA_DIR ?? '.shoal',
  apiPort: portFromEnv(env, 'SHOAL_API_PORT', 8080),
  dispatcherPort: portFromEnv(env, 'SHOAL_DISPATCHER_PORT', 2377),
  chosenPorts: { api: given(env, 'SHOAL_API_PORT'), dispatcher: given(env, 'SHOAL_DISPATCHER_PORT') },
  simNodes: count(env, 'SHOAL_SIM_NODES', 3),
  executor: executorFromEnv(env),
  engine: env.SHOAL_ENGINE?.trim() || DEFAULT_ENGINE,
  snapshotEveryMs: count(env, 'SHOAL_SNAPSHOT_EVERY_MS', 30_000),
  brokers: (env.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim()).filter(Boolean),
  ...(env.SHOAL_CLUSTER_ID ? { clusterId: env.SHOAL_CLUSTER_ID } : {}),
  apiListen: apiListenSettings(env),
});
