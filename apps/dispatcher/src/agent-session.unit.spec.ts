import type { ServerWritableStream } from '@grpc/grpc-js';
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '@shoal/domain';
import type { AssignmentsMessage, AssignmentsRequest } from '@shoal/protocol';
import { ASSIGNMENT_BATCH_LIMIT, ASSIGNMENT_BATCH_MS, AssignmentStream } from './agent-session';

const taskOn = (id: string, desiredState: TaskState = TaskState.RUNNING, configIds: readonly string[] = []): Task =>
  ({
    id,
    serviceId: 's1',
    slot: 1,
    desiredState,
    status: { state: TaskState.ASSIGNED, at: '2026-01-01T00:00:00.000Z' },
    spec: { container: { image: 'nginx', configs: configIds.map((configId) => ({ configId, configName: configId, file: { name: '/etc/app.conf', uid: '0', gid: '0', mode: 0o444 } })) } },
  }) as unknown as Task;

/** A node's tasks in a state of their own, and a stream that writes down what it is sent. */
const streamOf = () => {
  const tasks = new Map<string, Task>();
  const configs = new Map([['cfg1', { id: 'cfg1', spec: { name: 'app.conf', data: Buffer.from('port=80\n').toString('base64') }, version: 1 }]]);
  const state = { tasks, services: new Map(), configs } as unknown as ClusterState;
  const written: AssignmentsMessage[] = [];
  const ended: unknown[] = [];
  const call = {
    cancelled: false,
    writableEnded: false,
    write: (message: AssignmentsMessage) => void written.push(message),
    emit: (_event: string, error: unknown) => void ended.push(error),
  } as unknown as ServerWritableStream<AssignmentsRequest, AssignmentsMessage>;
  const stream = new AssignmentStream(call, 'n1', { state: () => state, tasksOf: () => new Set(tasks.keys()), dispatchers: () => [] });
  return { tasks, stream, written, ended };
};

const idsOf = (message: AssignmentsMessage | undefined): string[] => (message?.changes ?? []).map((change) => `${change.action} ${change.assignment.taskId}`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('an assignments stream', () => {
  it('gathers the changes of a short while into one INCREMENTAL message', async () => {
    const { tasks, stream, written } = streamOf();
    stream.start();
    expect(written).toEqual([{ type: 'COMPLETE', changes: [], configs: [] }]);
    tasks.set('a', taskOn('a'));
    stream.changed(['a']);
    tasks.set('b', taskOn('b'));
    stream.changed(['b']);
    await sleep(0);
    expect(written).toHaveLength(1);
    await sleep(ASSIGNMENT_BATCH_MS + 30);
    expect(written).toHaveLength(2);
    expect(written[1]!.type).toBe('INCREMENTAL');
    expect(idsOf(written[1])).toEqual(['UPDATE a', 'UPDATE b']);

    tasks.delete('a');
    stream.changed(['a']);
    await sleep(ASSIGNMENT_BATCH_MS + 30);
    expect(idsOf(written[2])).toEqual(['REMOVE a']);
  });

  it('sends a config in the message that brings the first task using it, as bytes, and its removal with the last', async () => {
    const { tasks, stream, written } = streamOf();
    tasks.set('a', taskOn('a', TaskState.RUNNING, ['cfg1']));
    stream.start();
    expect(written[0]).toMatchObject({ type: 'COMPLETE', configs: [{ action: 'UPDATE', config: { id: 'cfg1', name: 'app.conf' } }] });
    expect(written[0]!.configs[0]!.config.data.toString()).toBe('port=80\n');

    tasks.set('b', taskOn('b', TaskState.RUNNING, ['cfg1']));
    stream.changed(['b']);
    await sleep(ASSIGNMENT_BATCH_MS + 30);
    expect(idsOf(written[1])).toEqual(['UPDATE b']);
    expect(written[1]!.configs).toEqual([]);

    tasks.delete('a');
    tasks.delete('b');
    stream.changed(['a', 'b']);
    await sleep(ASSIGNMENT_BATCH_MS + 30);
    expect(idsOf(written[2])).toEqual(['REMOVE a', 'REMOVE b']);
    expect(written[2]!.configs.map((change) => `${change.action} ${change.config.id}`)).toEqual(['REMOVE cfg1']);
  });

  it(`sends at once, without waiting, when ${ASSIGNMENT_BATCH_LIMIT} changes are waiting`, async () => {
    const { tasks, stream, written } = streamOf();
    stream.start();
    const ids = Array.from({ length: ASSIGNMENT_BATCH_LIMIT }, (_, i) => `t${i}`);
    for (const id of ids) tasks.set(id, taskOn(id));
    stream.changed(ids);
    await sleep(0);
    expect(written).toHaveLength(2);
    expect(written[1]!.changes).toHaveLength(ASSIGNMENT_BATCH_LIMIT);
    await sleep(ASSIGNMENT_BATCH_MS + 30);
    expect(written).toHaveLength(2);
  });

  it('sends nothing once it has ended', async () => {
    const { tasks, stream, written, ended } = streamOf();
    stream.start();
    tasks.set('a', taskOn('a'));
    stream.changed(['a']);
    stream.end(14, 'the session ended');
    expect(ended).toEqual([{ code: 14, details: 'the session ended' }]);
    await sleep(ASSIGNMENT_BATCH_MS + 30);
    expect(written).toHaveLength(1);
  });
});
