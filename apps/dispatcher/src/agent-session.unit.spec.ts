import type { ServerWritableStream } from '@grpc/grpc-js';
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '@shoal/domain';
import type { AssignmentsMessage, AssignmentsRequest } from '@shoal/protocol';
import { ASSIGNMENT_BATCH_LIMIT, ASSIGNMENT_BATCH_MS, AssignmentStream } from './agent-session';

const taskOn = (id: string, desiredState: TaskState = TaskState.RUNNING): Task =>
  ({ id, serviceId: 's1', slot: 1, desiredState, status: { state: TaskState.ASSIGNED, at: '2026-01-01T00:00:00.000Z' }, spec: { container: { image: 'nginx' } } }) as unknown as Task;

/** A node's tasks in a state of their own, and a stream that writes down what it is sent. */
const streamOf = () => {
  const tasks = new Map<string, Task>();
  const state = { tasks, services: new Map() } as unknown as ClusterState;
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
    expect(written).toEqual([{ type: 'COMPLETE', changes: [] }]);
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
