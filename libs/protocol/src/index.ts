/**
 * The agent protocol (dispatcher.proto), loaded for @grpc/grpc-js: the service definition
 * a dispatcher serves and the client constructor an agent dials with.
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

/** The Dispatcher service's client constructor (methods: session, heartbeats, heartbeat, updateTaskStatus, updateTaskStatuses, assignments). */
export const DispatcherClient = agentPackage.Dispatcher as ServiceClientConstructor;

/** The Dispatcher service's definition, for `server.addService`. */
export const DISPATCHER_SERVICE: ServiceDefinition = DispatcherClient.service;

export * from './messages';
