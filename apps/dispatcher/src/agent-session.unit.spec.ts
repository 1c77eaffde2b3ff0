import type { ServerWritableStream } from '@grpc/grpc-js';
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '@shoal/domain';
import type { AssignmentsMessage, AssignmentsRequest } from '@shoal/protocol';
import { ASSIGNMENT_BATCH_LIMIT, ASSIGNMENT_BATCH_MS, AssignmentFlushes, AssignmentStream, STREAM_FLUSH_COST } from './agent-session';

const taskOn = (id: string, desiredState: TaskState = TaskState.RUNNING, configIds: readonly string[] = []): Task =>
  ({
    id,
    serviceId: 's1',
    slot: 1,
    desiredState,
    status: { state: TaskState.ASSIGNED, at: '2026-01-01T00:00:00.000Z' },
    spec: { container: { image: 'nginx', configs: configIds.map((configId) => ({ configId, configName: configId, file: { name: '/etc/app.conf', uid: '0', gid: '0', mode: 0o444 } })) } },
  }) as unknown as Task;

/** Whether the dispatcher's index is whole, as a stream's source tells it, and who waits for it. */
interface Index {
  whole: boolean;
  readonly waiters: (() => void)[];
}

/**
 * A node's tasks in a state of their own, and a stream that writes down what it is sent
 * (its batches due on `flushes`, else the process's; the index as `index` says, else whole).
 */
const streamOf = (flushes?: AssignmentFlushes, index?: Index) => {
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
  const indexing = index ? { indexed: () => index.whole, whenIndexed: (ready: () => void) => void index.waiters.push(ready) } : {};
  const stream = new AssignmentStream(call, 'n1', { state: () => state, tasksOf: () => new Set(tasks.keys()), dispatchers: () => [], ...indexing }, flushes);
  return { tasks, stream, written, ended };
};

const idsOf = (message: AssignmentsMessage | undefined): string[] => (message?.changes ?? []).map((change) => `${change.action} ${change.assignment.taskId}`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('an assignments stream', () => {
  it('gathers the changes of a short while into one INCREMENTAL message', async () => {
    const { tasks, stream, written } = streamOf();
    stream.start();
    expect(written).toEqual([{ type: 'COMPLETE', changes: [], configs: [] }]);
    tasks.set('a', taskOn('a'));
    stream.changed(['a']);
    tasks.set('b', taskOn('b'));
    stream.changed(['b']);
    await nextTurn();
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
    await nextTurn();
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

  describe('among many streams due at once', () => {
    /** `count` streams sharing `flushes`, each with ASSIGNMENT_BATCH_LIMIT new tasks: due at once. */
    const dueAtOnce = (flushes: AssignmentFlushes, count: number) =>
      Array.from({ length: count }, () => {
        const node = streamOf(flushes);
        node.stream.start();
        const ids = Array.from({ length: ASSIGNMENT_BATCH_LIMIT }, (_, i) => `t${i}`);
        for (const id of ids) node.tasks.set(id, taskOn(id));
        node.stream.changed(ids);
        return node;
      });
    const sent = (nodes: readonly { written: readonly unknown[] }[]): number => nodes.filter((node) => node.written.length > 1).length;

    it('sends the streams that fit in the budget a turn, in the order they came due, each with its whole batch', async () => {
      const perStream = ASSIGNMENT_BATCH_LIMIT + STREAM_FLUSH_COST;
      const flushes = new AssignmentFlushes(2 * perStream);
      const nodes = dueAtOnce(flushes, 5);
      expect(sent(nodes)).toBe(0);
      const after: number[] = [];
      for (let turn = 0; turn < 4; turn++) {
        await nextTurn();
        after.push(sent(nodes));
      }
      expect(after).toEqual([2, 4, 5, 5]);
      expect(nodes.map((node) => node.written.length > 1)).toEqual([true, true, true, true, true]);
      for (const node of nodes) {
        expect(node.written).toHaveLength(2);
        expect(idsOf(node.written[1])).toEqual(Array.from({ length: ASSIGNMENT_BATCH_LIMIT }, (_, i) => `UPDATE t${i}`));
      }
      expect(flushes.size).toBe(0);
    });

    it('sends one stream a turn even when it alone is over the budget', async () => {
      const flushes = new AssignmentFlushes(1);
      const nodes = dueAtOnce(flushes, 3);
      const after: number[] = [];
      for (let turn = 0; turn < 3; turn++) {
        await nextTurn();
        after.push(sent(nodes));
      }
      expect(after).toEqual([1, 2, 3]);
    });

    it('puts changes that come while a stream waits its turn in the message it sends', async () => {
      const flushes = new AssignmentFlushes(1);
      const [first, second] = dueAtOnce(flushes, 2);
      await nextTurn();
      expect(first!.written).toHaveLength(2);
      expect(second!.written).toHaveLength(1);
      second!.tasks.set('late', taskOn('late'));
      second!.stream.changed(['late']);
      await nextTurn();
      expect(second!.written).toHaveLength(2);
      expect(idsOf(second!.written[1])).toContain('UPDATE late');
      await sleep(ASSIGNMENT_BATCH_MS + 30);
      expect(second!.written).toHaveLength(2);
    });

    it('drops a stream that ends while it waits its turn', async () => {
      const flushes = new AssignmentFlushes(1);
      const [first, second] = dueAtOnce(flushes, 2);
      second!.stream.end(14, 'the session ended');
      expect(flushes.size).toBe(1);
      await nextTurn();
      await nextTurn();
      expect(first!.written).toHaveLength(2);
      expect(second!.written).toHaveLength(1);
      expect(flushes.size).toBe(0);
    });
  });

  describe('while the dispatcher rebuilds its index of the nodes’ tasks', () => {
    const wholeAgain = (index: Index): void => {
      index.whole = true;
      for (const ready of index.waiters.splice(0)) ready();
    };

    it('sends the COMPLETE set once the index is whole, with the changes that came meanwhile in it', async () => {
      const index: Index = { whole: false, waiters: [] };
      const { tasks, stream, written } = streamOf(new AssignmentFlushes(), index);
      tasks.set('a', taskOn('a'));
      stream.start();
      tasks.set('b', taskOn('b'));
      stream.changed(['b']);
      await sleep(ASSIGNMENT_BATCH_MS + 30);
      expect(written).toEqual([]);
      expect(index.waiters).toHaveLength(1);
      wholeAgain(index);
      expect(written).toEqual([]);
      await nextTurn();
      expect(written).toHaveLength(1);
      expect(written[0]!.type).toBe('COMPLETE');
      expect(idsOf(written[0])).toEqual(['UPDATE a', 'UPDATE b']);
      await sleep(ASSIGNMENT_BATCH_MS + 30);
      expect(written).toHaveLength(1);
    });

    it('holds the changes of a stream already started until the index is whole: a task not yet indexed is not removed', async () => {
      const index: Index = { whole: true, waiters: [] };
      const { tasks, stream, written } = streamOf(new AssignmentFlushes(), index);
      tasks.set('a', taskOn('a'));
      stream.start();
      // The index rebuilt so far leaves 'a' out.
      index.whole = false;
      const a = tasks.get('a')!;
      tasks.delete('a');
      tasks.set('b', taskOn('b'));
      stream.changed(['a', 'b']);
      await sleep(ASSIGNMENT_BATCH_MS + 30);
      expect(written).toHaveLength(1);
      tasks.set('a', a);
      wholeAgain(index);
      await nextTurn();
      expect(written).toHaveLength(2);
      expect(written[1]!.type).toBe('INCREMENTAL');
      expect(idsOf(written[1])).toEqual(['UPDATE b']);
    });

    it('sends nothing for a stream that ended while it waited', async () => {
      const index: Index = { whole: false, waiters: [] };
      const flushes = new AssignmentFlushes();
      const { stream, written } = streamOf(flushes, index);
      stream.start();
      stream.end(14, 'the session ended');
      wholeAgain(index);
      await nextTurn();
      expect(written).toEqual([]);
      expect(flushes.size).toBe(0);
    });
  });
});
