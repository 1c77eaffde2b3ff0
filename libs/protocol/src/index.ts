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

/** The Logs service's client constructor (method: subscribeLogs), for the API. */
export const LogsClient = agentPackage.Logs as ServiceClientConstructor;

/** The Logs service's definition, for `server.addService`: the active dispatcher serves it. */
export const LOGS_SERVICE: ServiceDefinition = LogsClient.service;

export * from './dispatcher-instances';
export * from './messages';
