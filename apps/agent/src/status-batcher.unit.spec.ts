import { TaskState } from '@shoal/contracts';
import type { TaskStatusMessage } from '@shoal/protocol';
import { StatusBatcher } from './status-batcher';
import { TimerWheel } from './timers';

const status = (taskId: string, state: TaskState = TaskState.RUNNING) => ({ taskId, state, at: '2026-01-01T00:00:00.000Z' });

describe('the status batcher', () => {
  const timers = new TimerWheel(5);

  it('holds statuses while no session is up and sends them in order once one is', async () => {
    const batcher = new StatusBatcher(timers, { maxDelayMs: 10 });
    const sent: TaskStatusMessage[][] = [];
    batcher.push(status('a', TaskState.RUNNING));
    batcher.push(status('b', TaskState.PREPARING));
    batcher.push(status('a', TaskState.COMPLETE));
    expect(batcher.waiting).toBe(3);
    batcher.connect(async (updates) => void sent.push(updates));
    await batcher.flush();
    expect(sent).toEqual([
      [
        expect.objectContaining({ taskId: 'a', state: TaskState.RUNNING, message: '', err: '', hasExitCode: false }),
        expect.objectContaining({ taskId: 'b', state: TaskState.PREPARING }),
        expect.objectContaining({ taskId: 'a', state: TaskState.COMPLETE }),
      ],
    ]);
  });

  it("sends a status's container as its id and PID, and none as an empty id", async () => {
    const batcher = new StatusBatcher(timers, { maxDelayMs: 10 });
    const sent: TaskStatusMessage[][] = [];
    const containerId = 'f00d'.padEnd(64, '1');
    batcher.push({ ...status('a', TaskState.RUNNING), containerId, pid: 4242 });
    batcher.push({ ...status('a', TaskState.FAILED), exitCode: 3, containerId, pid: 0 });
    batcher.push(status('b', TaskState.RUNNING));
    batcher.connect(async (updates) => void sent.push(updates));
    await batcher.flush();
    expect(sent.flat().map(({ taskId, state, hasExitCode, exitCode, containerId: id, pid }) => ({ taskId, state, hasExitCode, exitCode, containerId: id, pid }))).toEqual([
      { taskId: 'a', state: TaskState.RUNNING, hasExitCode: false, exitCode: 0, containerId, pid: 4242 },
      { taskId: 'a', state: TaskState.FAILED, hasExitCode: true, exitCode: 3, containerId, pid: 0 },
      { taskId: 'b', state: TaskState.RUNNING, hasExitCode: false, exitCode: 0, containerId: '', pid: 0 },
    ]);
  });

  it("keeps only a task's latest status on the way up (before RUNNING) while it waits, in its place; RUNNING and later are all sent", async () => {
    const batcher = new StatusBatcher(timers, { maxDelayMs: 10 });
    const sent: TaskStatusMessage[][] = [];
    for (const state of [TaskState.ACCEPTED, TaskState.PREPARING, TaskState.READY]) batcher.push(status('a', state));
    batcher.push(status('b', TaskState.ACCEPTED));
    for (const state of [TaskState.STARTING, TaskState.RUNNING, TaskState.FAILED]) batcher.push({ ...status('a', state), ...(state === TaskState.FAILED ? { exitCode: 3, err: 'exited with code 3' } : {}) });
    expect(batcher.waiting).toBe(3);
    batcher.connect(async (updates) => void sent.push(updates));
    await batcher.flush();
    expect(sent.flat().map((update) => [update.taskId, update.state])).toEqual([
      ['a', TaskState.RUNNING],
      ['b', TaskState.ACCEPTED],
      ['a', TaskState.FAILED],
    ]);
    expect(sent.flat()[2]).toMatchObject({ hasExitCode: true, exitCode: 3, err: 'exited with code 3' });

    // Once a status is on its way, a later one of the same task goes in a batch of its own.
    batcher.push(status('b', TaskState.PREPARING));
    await batcher.flush();
    expect(sent.at(-1)!.map((update) => [update.taskId, update.state])).toEqual([['b', TaskState.PREPARING]]);
  });

  it('puts a failed batch back in front, in order, and sends it with the next session', async () => {
    const batcher = new StatusBatcher(timers, { maxDelayMs: 10 });
    batcher.connect(() => Promise.reject(new Error('UNAVAILABLE')));
    batcher.push(status('a'));
    await batcher.flush();
    batcher.disconnect();
    batcher.push(status('b'));
    expect(batcher.waiting).toBe(2);
    const sent: string[] = [];
    batcher.connect(async (updates) => void sent.push(...updates.map((update) => update.taskId)));
    await batcher.flush();
    expect(sent).toEqual(['a', 'b']);
    expect(batcher.waiting).toBe(0);
  });

  it('sends at once when a batch is full (not after the delay), never more than the limit in one call', async () => {
    const batcher = new StatusBatcher(timers, { maxDelayMs: 60_000, maxItems: 3 });
    const sizes: number[] = [];
    batcher.connect(async (updates) => void sizes.push(updates.length));
    for (let i = 0; i < 7; i += 1) batcher.push({ ...status(`t${i}`), exitCode: 0 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(7);
    expect(Math.max(...sizes)).toBe(3);
    expect(batcher.waiting).toBe(0);
  });
});
