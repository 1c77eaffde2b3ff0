import { TaskState } from '@shoal/contracts';
import { nodeDescription } from './node-description';
import { SimulatedExecutor, simulatedBehaviour, simulatedLine } from './simulated-executor';
import { TaskLog } from './task-log';
import { TaskRunner } from './task-runner';
import { configReference } from './testing/assignments';
import { StatusRecorder, assignedTask } from './testing/task-fixtures';
import { TimerWheel } from './timers';

const elapsedBetween = (recorder: StatusRecorder, from: TaskState, to: TaskState): number => {
  const at = (state: TaskState) => Date.parse(recorder.statuses.find((status) => status.state === state)?.at ?? 'NaN');
  return at(to) - at(from);
};

describe('the simulated executor', () => {
  const timers = new TimerWheel(5);
  const executor = new SimulatedExecutor(nodeDescription({ hostname: 'sim-1', nanoCpus: 4e9, memoryBytes: 8 * 2 ** 30, engineVersion: 'sim' }), timers);
  const run = (env: string[], recorder: StatusRecorder, desired: TaskState = TaskState.RUNNING) => {
    const task = assignedTask({ env });
    return { task, runner: new TaskRunner(task, desired, executor.controller(task, new TaskLog()), recorder.sink) };
  };

  it('SIM_RUN_FOR: runs for that long, then COMPLETE with exit code 0', async () => {
    const recorder = new StatusRecorder();
    const { runner } = run(['SIM_RUN_FOR=150ms'], recorder);
    await runner.done;
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'READY', 'STARTING', 'RUNNING', 'COMPLETE']);
    expect(recorder.statuses.at(-1)?.exitCode).toBe(0);
    expect(elapsedBetween(recorder, TaskState.RUNNING, TaskState.COMPLETE)).toBeGreaterThanOrEqual(150);
    // It runs no container: no status names one, as Docker shows none for a task without a container.
    expect(recorder.statuses.filter((status) => 'containerId' in status || 'pid' in status)).toEqual([]);
  });

  it("writes one stdout line to the task's log as it starts, saying what would have run and that nothing does", async () => {
    const recorder = new StatusRecorder();
    const log = new TaskLog();
    const task = assignedTask({ image: 'nginx:1.27', command: ['nginx'], args: ['-g', 'daemon off;'], env: ['SIM_RUN_FOR=10ms'] });
    const runner = new TaskRunner(task, TaskState.RUNNING, executor.controller(task, log), recorder.sink);
    await runner.done;
    expect(log.read({ stdout: true, stderr: true, tail: -1, sinceMs: 0 }).map((entry) => [entry.stream, entry.data.toString()])).toEqual([
      ['stdout', 'simulated task: image nginx:1.27, command nginx -g daemon off;; nothing runs on this simulated node\n'],
    ]);
    // The configs the node was sent for it, named with where they would be and their size.
    const configured = new TaskLog();
    const withConfigs = assignedTask({ env: ['SIM_RUN_FOR=10ms'], configs: [configReference('app'), configReference('tls', '/run/tls.pem')] }, 'configured-1', { app: 'port=80\n', tls: 'x' });
    await new TaskRunner(withConfigs, TaskState.RUNNING, executor.controller(withConfigs, configured), recorder.sink).done;
    expect(configured.read({ stdout: true, stderr: true, tail: -1, sinceMs: 0 }).map((entry) => entry.data.toString())).toEqual([
      'simulated task: image busybox; config app-name at /etc/app.conf (8 bytes), tls-name at /run/tls.pem (1 byte); nothing runs on this simulated node\n',
    ]);
    // A secret is named as one, with its size, never its bytes.
    const secretive = { ...assignedTask({}, 'secretive-1'), configs: [{ reference: configReference('pw', '/run/secrets/pw'), data: Buffer.from('hunter2'), secret: true as const }] };
    expect(simulatedLine(secretive)).toBe('simulated task: image busybox; secret pw-name at /run/secrets/pw (7 bytes); nothing runs on this simulated node');
    // One that never starts says nothing.
    const rejected = new TaskLog();
    const refused = assignedTask({ env: ['SIM_START_ERROR=no'] });
    await new TaskRunner(refused, TaskState.RUNNING, executor.controller(refused, rejected), recorder.sink).done;
    expect(rejected.size).toBe(0);
  });

  it('SIM_EXIT_CODE: a non-zero exit code ends the task FAILED with it', async () => {
    const recorder = new StatusRecorder();
    const { runner } = run(['SIM_RUN_FOR=20ms', 'SIM_EXIT_CODE=7'], recorder);
    await runner.done;
    expect(recorder.states().at(-1)).toBe('FAILED');
    expect(recorder.statuses.at(-1)).toMatchObject({ exitCode: 7, err: 'task exited with code 7' });
  });

  it('without SIM_RUN_FOR the task runs until it is shut down', async () => {
    const recorder = new StatusRecorder();
    const { task, runner } = run([], recorder);
    await recorder.waitForState(task.id, TaskState.RUNNING);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(recorder.states().at(-1)).toBe('RUNNING');
    runner.setDesired(TaskState.SHUTDOWN);
    await runner.done;
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'READY', 'STARTING', 'RUNNING', 'SHUTDOWN']);
  });

  it('SIM_START_ERROR: the task is REJECTED with the message', async () => {
    const recorder = new StatusRecorder();
    const { runner } = run(['SIM_START_ERROR=image pull failed: no such image'], recorder);
    await runner.done;
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'READY', 'STARTING', 'REJECTED']);
    expect(recorder.statuses.at(-1)?.err).toBe('image pull failed: no such image');
  });

  it('SIM_START_DELAY: the time is spent in PREPARING and STARTING', async () => {
    const recorder = new StatusRecorder();
    const { runner } = run(['SIM_START_DELAY=200ms', 'SIM_RUN_FOR=10ms'], recorder);
    await runner.done;
    expect(elapsedBetween(recorder, TaskState.PREPARING, TaskState.READY)).toBeGreaterThanOrEqual(100);
    expect(elapsedBetween(recorder, TaskState.STARTING, TaskState.RUNNING)).toBeGreaterThanOrEqual(100);
    expect(recorder.states().at(-1)).toBe('COMPLETE');
  });

  it('a shutdown during the start delay ends the task SHUTDOWN without running it', async () => {
    const recorder = new StatusRecorder();
    const { task, runner } = run(['SIM_START_DELAY=1h'], recorder);
    await recorder.waitForState(task.id, TaskState.PREPARING);
    runner.setDesired(TaskState.SHUTDOWN);
    await runner.done;
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'SHUTDOWN']);
  });

  it('a malformed SIM_* value rejects the task with a clear error', async () => {
    const recorder = new StatusRecorder();
    const { runner } = run(['SIM_RUN_FOR=soon'], recorder);
    await runner.done;
    expect(recorder.states().at(-1)).toBe('REJECTED');
    expect(recorder.statuses.at(-1)?.err).toMatch(/SIM_RUN_FOR: expected a duration like 2s.*"soon"/);
    expect(() => simulatedBehaviour({ SIM_EXIT_CODE: 'one' })).toThrow(/SIM_EXIT_CODE: expected a whole number/);
  });

  it('reads the defaults: run until shut down, exit code 0, no error, no delay', () => {
    expect(simulatedBehaviour({})).toEqual({ runForMs: undefined, exitCode: 0, startError: undefined, startDelayMs: 0 });
    expect(simulatedBehaviour({ SIM_RUN_FOR: '2s', SIM_START_DELAY: '1.5m' })).toMatchObject({ runForMs: 2000, startDelayMs: 90_000 });
  });
});
