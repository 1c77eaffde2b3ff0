import { TaskState } from '@shoal/contracts';
import { TaskLog } from '../task-log';
import { TaskRunner } from '../task-runner';
import { StatusRecorder, assignedTask } from '../testing/task-fixtures';
import { DockerExecutor } from './docker-executor';
import { EngineClient } from './engine-client';
import { FakeEngine } from './testing/fake-engine';

const DESCRIPTION = { hostname: 'n1', platform: { os: 'linux', architecture: 'x86_64' }, nanoCpus: 1e9, memoryBytes: 1e9, generic: [], engineVersion: '20.10', engineLabels: {}, plugins: [] };

describe('the docker executor, on an engine that runs nothing', () => {
  let engine: FakeEngine;
  let executor: DockerExecutor;
  beforeEach(async () => {
    engine = new FakeEngine({ pid: 31337 });
    await engine.listen();
    executor = new DockerExecutor({ engine: new EngineClient(engine.engine), nodeId: () => 'node-1', description: DESCRIPTION });
  });
  afterEach(async () => {
    executor.close();
    await engine.close();
  });

  it("reports the task's container with each state once it is made: its PID while it runs, 0 once it exited", async () => {
    const recorder = new StatusRecorder();
    const task = assignedTask({ image: 'shoal-test/busybox' });
    const runner = new TaskRunner(task, TaskState.RUNNING, executor.controller(task, { write: () => undefined, end: () => undefined }), recorder.sink);
    await recorder.waitForState(task.id, TaskState.RUNNING);
    engine.die(3);
    await runner.done;
    const seen = recorder.statuses.map(({ state, containerId, pid, exitCode }) => ({ state, containerId, pid, exitCode }));
    const { containerId } = engine;
    expect(seen).toEqual([
      { state: TaskState.ACCEPTED, containerId: undefined, pid: undefined, exitCode: undefined },
      { state: TaskState.PREPARING, containerId: undefined, pid: undefined, exitCode: undefined },
      { state: TaskState.READY, containerId, pid: 0, exitCode: undefined },
      { state: TaskState.STARTING, containerId, pid: 0, exitCode: undefined },
      { state: TaskState.RUNNING, containerId, pid: 31337, exitCode: undefined },
      { state: TaskState.FAILED, containerId, pid: 0, exitCode: 3 },
    ]);
    await runner.remove();
  });

  it('reports a task stopped (SHUTDOWN) with its container, its PID 0', async () => {
    const recorder = new StatusRecorder();
    const task = assignedTask({ image: 'shoal-test/busybox' });
    const runner = new TaskRunner(task, TaskState.RUNNING, executor.controller(task, { write: () => undefined, end: () => undefined }), recorder.sink);
    await recorder.waitForState(task.id, TaskState.RUNNING);
    runner.setDesired(TaskState.SHUTDOWN);
    await runner.done;
    expect(recorder.statuses.slice(-2).map(({ state, containerId, pid }) => ({ state, containerId, pid }))).toEqual([
      { state: TaskState.RUNNING, containerId: engine.containerId, pid: 31337 },
      { state: TaskState.SHUTDOWN, containerId: engine.containerId, pid: 0 },
    ]);
    expect(engine.calls).toContain(`POST /containers/${engine.containerId}/stop`);
    await runner.remove();
  });

  it("reads the container's output into the task's log at the engine's times, kept whole to the nanosecond", async () => {
    const recorder = new StatusRecorder();
    const task = assignedTask({ image: 'shoal-test/busybox' });
    const log = new TaskLog({ now: () => 1 });
    engine.print({ stream: 1, time: '2026-11-25T23:30:01.123456789Z', text: 'one on stdout\n' });
    const runner = new TaskRunner(task, TaskState.RUNNING, executor.controller(task, log), recorder.sink);
    await recorder.waitForState(task.id, TaskState.RUNNING);
    engine.print({ stream: 2, time: '2026-11-25T23:30:01.323000001Z', text: 'two on stderr\n' });
    engine.die(0);
    await runner.done;
    await until(() => log.size === 2);
    expect(log.read({ stdout: true, stderr: true, tail: -1, sinceMs: 0 }).map((entry) => [entry.stream, entry.time, entry.at, entry.data.toString()])).toEqual([
      ['stdout', '2026-11-25T23:30:01.123456789Z', Date.parse('2026-11-25T23:30:01.123Z'), 'one on stdout\n'],
      ['stderr', '2026-11-25T23:30:01.323000001Z', Date.parse('2026-11-25T23:30:01.323Z'), 'two on stderr\n'],
    ]);
    await runner.remove();
  });
});

/** Resolves once `done` holds (checked every 10 ms, for at most 5 s). */
const until = async (done: () => boolean): Promise<void> => {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 5_000) throw new Error('waited 5 s in vain');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
