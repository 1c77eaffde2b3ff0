/**
 * The configs in AssignmentsMessage are additive: an agent built before them reads the
 * tasks of a message that carries configs, and a dispatcher from before them sends
 * messages the agent reads as having none.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPackageDefinition } from '@grpc/grpc-js';
import type { GrpcObject, ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { DISPATCHER_SERVICE } from './index';
import type { AssignmentsMessage } from './messages';

/** The Assignments call as the protocol had it before configs. */
const BEFORE_CONFIGS = `
syntax = "proto3";
package shoal.agent.v1;
service Dispatcher { rpc Assignments(AssignmentsRequest) returns (stream AssignmentsMessage); }
message AssignmentsRequest { string node_id = 1; string session_id = 2; }
message Assignment {
  string task_id = 1; string service_id = 2; string service_name = 3; int32 slot = 4;
  int32 desired_state = 5; int32 observed_state = 6; string spec_json = 7;
}
message AssignmentChange {
  enum Action { UPDATE = 0; REMOVE = 1; }
  Action action = 1;
  Assignment assignment = 2;
}
message AssignmentsMessage {
  enum Type { COMPLETE = 0; INCREMENTAL = 1; }
  Type type = 1;
  repeated AssignmentChange changes = 2;
}
`;

const olderAssignments = () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-proto-'));
  try {
    const path = join(dir, 'dispatcher.proto');
    writeFileSync(path, BEFORE_CONFIGS);
    const loaded = loadPackageDefinition(loadSync(path, { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true }));
    const client = (((loaded.shoal as GrpcObject).agent as GrpcObject).v1 as GrpcObject).Dispatcher as ServiceClientConstructor;
    return client.service.Assignments!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

describe('the configs of the assignments stream, on the wire', () => {
  const current = DISPATCHER_SERVICE.Assignments!;
  const older = olderAssignments();
  const assignment = { taskId: 't1', serviceId: 's1', serviceName: 'web', slot: 1, desiredState: 2048, observedState: 192, specJson: '{"container":{}}' };

  it('an agent built before configs reads the tasks of a message that carries them', () => {
    const message: AssignmentsMessage = {
      type: 'INCREMENTAL',
      changes: [{ action: 'UPDATE', assignment }],
      configs: [{ action: 'UPDATE', config: { id: 'c1', name: 'app.conf', data: Buffer.from('port=80\n') } }],
    };
    expect(older.responseDeserialize(current.responseSerialize(message))).toEqual({ type: 'INCREMENTAL', changes: [{ action: 'UPDATE', assignment }] });
  });

  it("this agent reads a message from a dispatcher built before configs as having none, and a config's bytes as they were sent", () => {
    const fromOlder = older.responseSerialize({ type: 'COMPLETE', changes: [{ action: 'UPDATE', assignment }] });
    // …and no published ports nor networks: an empty ports_json and networks_json.
    expect(current.responseDeserialize(fromOlder)).toEqual({ type: 'COMPLETE', changes: [{ action: 'UPDATE', assignment: { ...assignment, portsJson: '', networksJson: '' } }], configs: [] });
    const data = Buffer.from([0, 1, 2, 255, 10]);
    const decoded = current.responseDeserialize(
      current.responseSerialize({ type: 'INCREMENTAL', changes: [], configs: [{ action: 'UPDATE', config: { id: 'c1', name: 'bin', data } }, { action: 'REMOVE', config: { id: 'c2' } }] }),
    ) as AssignmentsMessage;
    // A dispatcher built before secrets sends none: every config reads as not secret.
    expect(decoded.configs).toEqual([
      { action: 'UPDATE', config: { id: 'c1', name: 'bin', data, secret: false } },
      { action: 'REMOVE', config: { id: 'c2', name: '', data: Buffer.alloc(0), secret: false } },
    ]);
  });

  it('a secret is marked secret on the wire', () => {
    const message: AssignmentsMessage = { type: 'INCREMENTAL', changes: [], configs: [{ action: 'UPDATE', config: { id: 'x1', name: 'db-password', data: Buffer.from('hunter2'), secret: true } }] };
    expect((current.responseDeserialize(current.responseSerialize(message)) as AssignmentsMessage).configs).toEqual(message.configs);
  });
});
