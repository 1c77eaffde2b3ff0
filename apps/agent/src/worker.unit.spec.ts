import { TaskState } from '@shoal/contracts';
import { nodeDescription } from './node-description';
import { SimulatedExecutor } from './simulated-executor';
import { StatusRecorder } from './testing/task-fixtures';
import { assignment, complete, incremental, remove, update } from './testing/assignments';
import { TimerWheel } from './timers';
import { Worker } from './worker';
import type { LoggedTask } from './worker';

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

  it("keeps each task's output with it, finds the tasks a selector names, and tells listeners of tasks it takes on", async () => {
    const recorder = new StatusRecorder();
    const worker = new Worker(executor, recorder.sink, () => new Date(1_700_000_000_000));
    const added: LoggedTask[] = [];
    const stop = worker.onTaskAdded((task) => added.push(task));
    worker.apply(
      complete(
        update(assignment('a')),
        update(assignment('b', [], { serviceId: 'svc-2' })),
        update(assignment('settled', [], { serviceId: 'svc-2', observedState: TaskState.COMPLETE })),
      ),
    );
    expect(added.map((task) => [task.taskId, task.serviceId])).toEqual([['a', 'svc-1'], ['b', 'svc-2'], ['settled', 'svc-2']]);
    await recorder.waitForState('a', TaskState.RUNNING);
    const ids = (tasks: LoggedTask[]): string[] => tasks.map((task) => task.taskId).sort();
    expect(ids(worker.logsOf({ serviceIds: ['svc-2'], taskIds: [] }))).toEqual(['b', 'settled']);
    expect(ids(worker.logsOf({ serviceIds: [], taskIds: ['a', 'gone'] }))).toEqual(['a']);
    expect(ids(worker.logsOf({ serviceIds: ['svc-1'], taskIds: ['b'] }))).toEqual(['a', 'b']);
    expect(worker.logsOf({ serviceIds: [], taskIds: [] })).toEqual([]);
    // What the executor wrote is in the task's log, at the worker's time; a settled task's log is empty.
    const [a] = worker.logsOf({ serviceIds: [], taskIds: ['a'] });
    expect(a!.log.read({ stdout: true, stderr: true, tail: -1, sinceMs: 0 })).toEqual([expect.objectContaining({ at: 1_700_000_000_000, stream: 'stdout' })]);
    expect(worker.logsOf({ serviceIds: [], taskIds: ['settled'] })[0]!.log.size).toBe(0);
    // The log goes with the task; a listener that stopped hears of no more.
    worker.apply(incremental(remove('a')));
    expect(worker.logsOf({ serviceIds: ['svc-1'], taskIds: ['a'] })).toEqual([]);
    stop();
    worker.apply(incremental(update(assignment('c'))));
    expect(added).toHaveLength(3);
    await worker.stopAll();
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
