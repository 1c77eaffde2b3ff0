/**
 * A task status's container (container_id, pid) is additive on the wire: a dispatcher built
 * before it reads the rest of a status that carries one, and a status from an agent built
 * before it reads as having none (an empty id).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPackageDefinition } from '@grpc/grpc-js';
import type { GrpcObject, ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { DISPATCHER_SERVICE } from './index';
import type { UpdateTaskStatusRequest } from './messages';

/** The UpdateTaskStatus call as the protocol had it before a status named its container. */
const BEFORE_CONTAINERS = `
syntax = "proto3";
package shoal.agent.v1;
service Dispatcher { rpc UpdateTaskStatus(UpdateTaskStatusRequest) returns (UpdateTaskStatusResponse); }
message TaskStatus {
  string task_id = 1; int32 state = 2; string at = 3; string message = 4; string err = 5;
  bool has_exit_code = 6; int32 exit_code = 7;
}
message UpdateTaskStatusRequest { string node_id = 1; string session_id = 2; repeated TaskStatus updates = 3; }
message UpdateTaskStatusResponse {}
`;

const olderUpdate = () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-proto-'));
  try {
    const path = join(dir, 'dispatcher.proto');
    writeFileSync(path, BEFORE_CONTAINERS);
    const loaded = loadPackageDefinition(loadSync(path, { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true }));
    const client = (((loaded.shoal as GrpcObject).agent as GrpcObject).v1 as GrpcObject).Dispatcher as ServiceClientConstructor;
    return client.service.UpdateTaskStatus!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

describe("a task status's container, on the wire", () => {
  const current = DISPATCHER_SERVICE.UpdateTaskStatus!;
  const older = olderUpdate();
  const base = { taskId: 't1', state: 1024, at: '2026-01-01T00:00:00.000Z', message: 'started', err: '', hasExitCode: false, exitCode: 0 };
  const containerId = 'c4b1'.padEnd(64, 'd');

  it('crosses whole: the container id and a PID past 16 bits', () => {
    const request: UpdateTaskStatusRequest = { nodeId: 'n1', sessionId: 's1', updates: [{ ...base, containerId, pid: 4_194_303 }] };
    expect(current.requestDeserialize(current.requestSerialize(request))).toEqual(request);
  });

  it('a dispatcher built before it reads the rest of the status', () => {
    const request: UpdateTaskStatusRequest = { nodeId: 'n1', sessionId: 's1', updates: [{ ...base, containerId, pid: 4242 }] };
    expect(older.requestDeserialize(current.requestSerialize(request))).toEqual({ nodeId: 'n1', sessionId: 's1', updates: [base] });
  });

  it('a status from an agent built before it has an empty container id (none) and PID 0', () => {
    const fromOlder = older.requestSerialize({ nodeId: 'n1', sessionId: 's1', updates: [base] });
    expect(current.requestDeserialize(fromOlder)).toEqual({ nodeId: 'n1', sessionId: 's1', updates: [{ ...base, containerId: '', pid: 0 }] });
  });
});
