/**
 * The agent protocol (dispatcher.proto), loaded for @grpc/grpc-js: the service definitions
 * a dispatcher serves and the client constructors agents (Dispatcher) and the API (Logs) dial with.
 */
import { join } from 'node:path';
import { loadPackageDefinition } from '@grpc/grpc-js';
import type { GrpcObject, ServiceClientConstructor, ServiceDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

export const PROTO_PATH = join(__dirname, 'dispatcher.proto');

const loaded = loadPackageDefinition(
  loadSync(PROTO_PATH, { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true }),
);

const agentPackage = ((loaded.shoal as GrpcObject).agent as GrpcObject).v1 as GrpcObject;

/** The Dispatcher service's client constructor (methods: session, heartbeats, heartbeat, updateTaskStatus, updateTaskStatuses, assignments, publishLogs). */
export const DispatcherClient = agentPackage.Dispatcher as ServiceClientConstructor;

/** The Dispatcher service's definition, for `server.addService`. */
export const DISPATCHER_SERVICE: ServiceDefinition = DispatcherClient.service;

/**
 * How a client's channel to a dispatcher is kept: pinged every 30 s (a dead peer found
 * within 10 s more), and dialled again from 200 ms up to 5 s apart when it drops — agents
 * and the API alike. It takes messages of up to 128 MiB, not gRPC's default 4 MiB: a
 * node's assignments carry every config its tasks use, each up to 1000 KiB.
 */
export const DISPATCHER_CHANNEL_OPTIONS: Readonly<Record<string, number>> = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 5_000,
  'grpc.max_receive_message_length': 128 * 1024 * 1024,
};

/**
 * The name a client dialling a dispatcher over the cluster's TLS gives it (SNI), whatever
 * address it dials: every dispatcher's certificate carries it, and clients check the peer's
 * role rather than its name, as SwarmKit's do (an IP address is no TLS server name).
 */
export const DISPATCHER_TLS_NAME = 'shoal-dispatcher';

/** Channel options that make a TLS channel use DISPATCHER_TLS_NAME. */
export const DISPATCHER_TLS_OPTIONS: Readonly<Record<string, string>> = { 'grpc.ssl_target_name_override': DISPATCHER_TLS_NAME, 'grpc.default_authority': DISPATCHER_TLS_NAME };

/** The Logs service's client constructor (method: subscribeLogs), for the API. */
export const LogsClient = agentPackage.Logs as ServiceClientConstructor;

/** The Logs service's definition, for `server.addService`: the active dispatcher serves it. */
export const LOGS_SERVICE: ServiceDefinition = LogsClient.service;

/** The NodeCA service's client constructor (methods: getRootCaCertificate, issueNodeCertificate, renewNodeCertificate), for joining nodes. */
export const NodeCaClient = agentPackage.NodeCA as ServiceClientConstructor;

/** The NodeCA service's definition, for `server.addService`: a dispatcher with a root CA serves it. */
export const NODE_CA_SERVICE: ServiceDefinition = NodeCaClient.service;

export * from './dispatcher-instances';
export * from './messages';
