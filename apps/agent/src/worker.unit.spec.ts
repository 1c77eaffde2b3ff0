import { TaskState } from '@shoal/contracts';
import { nodeDescription } from './node-description';
import { SimulatedExecutor } from './simulated-executor';
import { StatusRecorder } from './testing/task-fixtures';
import { assignment, complete, incremental, remove, update } from './testing/assignments';
import { TimerWheel } from './timers';
import { Worker } from './worker';

describe('the worker', () => {
  const timers = new TimerWheel(5);
  const executor = new SimulatedExecutor(nodeDescription({ hostname: 'n', nanoCpus: 1e9, memoryBytes: 1e9, engineVersion: 'sim' }), timers);

  it('rejects a task whose spec it cannot read', () => {
    const recorder = new StatusRecorder();
    const worker = new Worker(executor, recorder.sink);
    worker.apply(complete(update(assignment('bad', [], { specJson: '{not json' })), update(assignment('empty', [], { specJson: '{}' }))));
    expect(recorder.statuses).toEqual([
      expect.objectContaining({ taskId: 'bad', state: TaskState.REJECTED, err: expect.stringMatching(/^the task's spec is not valid JSON/) }),
      expect.objectContaining({ taskId: 'empty', state: TaskState.REJECTED, err: "the task's spec has no container" }),
    ]);
  });

  it('does not run again a task that was started before it: FAILED if it should run, SHUTDOWN if not, nothing if it had ended', () => {
    const recorder = new StatusRecorder();
    const worker = new Worker(executor, recorder.sink);
    worker.apply(
      complete(
        update(assignment('running', [], { observedState: TaskState.RUNNING })),
        update(assignment('stopping', [], { observedState: TaskState.RUNNING, desiredState: TaskState.SHUTDOWN })),
        update(assignment('done', [], { observedState: TaskState.COMPLETE })),
      ),
    );
    expect(recorder.statuses).toEqual([
      expect.objectContaining({ taskId: 'running', state: TaskState.FAILED, err: 'the agent restarted and the task did not survive it' }),
      expect.objectContaining({ taskId: 'stopping', state: TaskState.SHUTDOWN }),
    ]);
    expect(worker.size).toBe(3);
  });

  it('stops and forgets a removed task, and one left out of a COMPLETE set', async () => {
    const recorder = new StatusRecorder();
    const worker = new Worker(executor, recorder.sink);
    worker.apply(complete(update(assignment('a')), update(assignment('b'))));
    await recorder.waitForState('a', TaskState.RUNNING);
    await recorder.waitForState('b', TaskState.RUNNING);
    worker.apply(incremental(remove('a')));
    worker.apply(complete());
    await recorder.waitForState('a', TaskState.SHUTDOWN);
    await recorder.waitForState('b', TaskState.SHUTDOWN);
    expect(worker.size).toBe(0);
  });
});
