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
    batcher.push(status('a', TaskState.ACCEPTED));
    batcher.push(status('a', TaskState.PREPARING));
    expect(batcher.waiting).toBe(2);
    batcher.connect(async (updates) => void sent.push(updates));
    await batcher.flush();
    expect(sent).toEqual([[expect.objectContaining({ taskId: 'a', state: TaskState.ACCEPTED, message: '', err: '', hasExitCode: false }), expect.objectContaining({ state: TaskState.PREPARING })]]);
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
