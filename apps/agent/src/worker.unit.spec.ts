import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@shoal/contracts';
import { nodeDescription } from './node-description';
import { SimulatedExecutor } from './simulated-executor';
import { StatusRecorder } from './testing/task-fixtures';
import { addConfig, addSecret, assignment, assignmentOf, complete, configReference, incremental, remove, removeConfig, update, withConfigs } from './testing/assignments';
import type { AssignedTask, Executor, TaskController, TaskOutput } from './executor';
import { TaskLogFiles, decodeEntries, encodeEntry } from './task-log-file';
import { TimerWheel } from './timers';
import { Worker, decodeAssignment } from './worker';
import type { LoggedTask } from './worker';

const ALL = { stdout: true, stderr: true, tail: -1, sinceMs: 0 };

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

  it('has an executor that can adopt a task started before it take it over, and tells it which tasks the node still has', async () => {
    const recorder = new StatusRecorder();
    const adopted: string[] = [];
    const kept: string[][] = [];
    const adopting: Executor = {
      describe: () => executor.describe(),
      controller: () => {
        throw new Error('a task the node had is not started again');
      },
      adopt: (task) => {
        adopted.push(task.id);
        return { prepare: async () => undefined, start: async () => undefined, wait: () => Promise.resolve({ exitCode: 4 }), stop: async () => undefined, remove: async () => undefined };
      },
      keepOnly: (ids) => void kept.push([...ids]),
    };
    const worker = new Worker(adopting, recorder.sink);
    worker.apply(complete(update(assignment('running', [], { observedState: TaskState.RUNNING, portsJson: '[{"protocol":"tcp","targetPort":80,"publishMode":"host"}]' }))));
    expect(adopted).toEqual(['running']);
    expect(kept).toEqual([['running']]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(recorder.statuses).toEqual([
      expect.objectContaining({ taskId: 'running', state: TaskState.RUNNING }),
      expect.objectContaining({ taskId: 'running', state: TaskState.FAILED, exitCode: 4, err: 'task exited with code 4' }),
    ]);
  });

  it('gives a task the ports its assignment publishes', () => {
    expect(decodeAssignment(assignment('web', [], { portsJson: '[{"protocol":"tcp","targetPort":80,"publishedPort":8080,"publishMode":"host"}]' })).ports).toEqual([
      { protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'host' },
    ]);
    expect(decodeAssignment(assignment('none', [], { portsJson: '' })).ports).toBeUndefined();
  });

  it('gives a task the networks its assignment attaches it to, with its addresses; none from a dispatcher that sends none', () => {
    const backend = { id: 'net1', name: 'backend', subnet: '10.0.1.0/24', gateway: '10.0.1.1', addresses: ['10.0.1.5/24'] };
    expect(decodeAssignment(assignment('web', [], { networksJson: JSON.stringify([backend]) })).networks).toEqual([backend]);
    expect(decodeAssignment(assignment('none', [], { networksJson: '' })).networks).toBeUndefined();
    expect(decodeAssignment(assignment('older', [])).networks).toBeUndefined();
    expect(() => decodeAssignment(assignment('bad', [], { networksJson: '{"id":"net1"}' }))).toThrow("the task's networks are not a list");
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

  it("kept in files, begins a task's log with what its file holds, and removes the files of tasks the node no longer has and of those it forgets", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-worker-logs-'));
    try {
      const before = (taskId: string) => encodeEntry({ at: 1_600_000_000_000, stream: 'stderr', data: Buffer.from(`${taskId} before the restart\n`) });
      for (const taskId of ['ended', 'replaced', 'gone']) writeFileSync(join(dir, taskId), before(taskId));
      const files = await TaskLogFiles.open(dir);
      const recorder = new StatusRecorder();
      const worker = new Worker(executor, recorder.sink, () => new Date(1_700_000_000_000), files);
      const heard: string[] = [];
      worker.onTaskAdded((task) => heard.push(...task.log.read(ALL).map((entry) => entry.data.toString())));
      // After the restart: one task had ended, one was running when the agent went (it fails now, to be replaced), one is new; 'gone' is not the node's any more.
      worker.apply(
        complete(
          update(assignment('ended', [], { observedState: TaskState.COMPLETE })),
          update(assignment('replaced', [], { observedState: TaskState.RUNNING })),
          update(assignment('fresh')),
        ),
      );
      const logOf = (taskId: string) => worker.logsOf({ serviceIds: [], taskIds: [taskId] })[0]!.log.read(ALL).map((entry) => `${entry.at} ${entry.stream}:${entry.data.toString()}`);
      expect(logOf('ended')).toEqual(['1600000000000 stderr:ended before the restart\n']);
      expect(logOf('replaced')).toEqual(['1600000000000 stderr:replaced before the restart\n']);
      // A listener (a following log subscription) finds the earlier lines in the log as it hears of the task.
      expect(heard).toEqual(['ended before the restart\n', 'replaced before the restart\n']);
      await recorder.waitForState('fresh', TaskState.RUNNING);
      await files.flush();
      expect(readdirSync(dir).sort()).toEqual(['ended', 'fresh', 'replaced']);
      expect(decodeEntries(readFileSync(join(dir, 'fresh'), 'utf8')).entries).toEqual(worker.logsOf({ serviceIds: [], taskIds: ['fresh'] })[0]!.log.read(ALL));
      // The node forgets tasks: by REMOVE, and by a later COMPLETE set that leaves one out.
      worker.apply(incremental(remove('ended')));
      worker.apply(complete(update(assignment('fresh'))));
      await files.flush();
      expect(readdirSync(dir)).toEqual(['fresh']);
      await worker.stopAll();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('configs', () => {
    /** The simulated executor, writing down each task it is given. */
    const recording = () => {
      const given: AssignedTask[] = [];
      const recorder: Executor = {
        describe: () => executor.describe(),
        controller: (task: AssignedTask, output: TaskOutput): TaskController => {
          given.push(task);
          return executor.controller(task, output);
        },
      };
      return { given, executor: recorder };
    };
    const reader = (taskId: string, ...configIds: string[]) => update(assignmentOf(taskId, { configs: configIds.map((id) => configReference(id)) }));
    const rejection = (recorder: StatusRecorder, taskId: string) => recorder.statuses.find((s) => s.taskId === taskId && s.state === TaskState.REJECTED)?.err;

    it('keeps the configs it is sent and gives a task those its spec names, sent in the same message', async () => {
      const recorder = new StatusRecorder();
      const { given, executor: recordingExecutor } = recording();
      const worker = new Worker(recordingExecutor, recorder.sink);
      worker.apply(withConfigs(complete(reader('a', 'cfg1')), addConfig('cfg1', 'port=80\n'), addConfig('cfg2', 'unused')));
      expect([...worker.heldConfigs().keys()]).toEqual(['cfg1', 'cfg2']);
      worker.apply(withConfigs(incremental(reader('b', 'cfg2', 'cfg3')), addConfig('cfg3', 'level=debug\n')));
      expect(given.map((task) => [task.id, task.configs.map((config) => `${config.reference.file.name}=${config.data.toString()}`)])).toEqual([
        ['a', ['/etc/cfg1.conf=port=80\n']],
        ['b', ['/etc/cfg2.conf=unused', '/etc/cfg3.conf=level=debug\n']],
      ]);
      expect(given[0]!.configs[0]!.reference).toEqual(configReference('cfg1'));
      await recorder.waitForState('b', TaskState.RUNNING);
      await worker.stopAll();
    });

    it('rejects a task whose spec names a config it was not sent, naming the config', () => {
      const recorder = new StatusRecorder();
      const worker = new Worker(executor, recorder.sink);
      worker.apply(withConfigs(complete(reader('lacking', 'cfg1', 'missing')), addConfig('cfg1', 'x')));
      expect(recorder.statuses).toEqual([expect.objectContaining({ taskId: 'lacking', state: TaskState.REJECTED })]);
      expect(rejection(recorder, 'lacking')).toBe('config missing-name (missing) not found: the node was not sent it');
    });

    it('gives a task its secrets as in-memory files at their targets, a relative one under /run/secrets; one it was not sent, or sent as a config, rejects the task', async () => {
      const recorder = new StatusRecorder();
      const { given, executor: recordingExecutor } = recording();
      const worker = new Worker(recordingExecutor, recorder.sink);
      const secret = (secretId: string, target: string) => ({ secretId, secretName: `${secretId}-name`, file: { name: target, uid: '0', gid: '0', mode: 0o400 } });
      const user = (taskId: string, ...secrets: ReturnType<typeof secret>[]) => update(assignmentOf(taskId, { configs: [configReference('cfg1')], secrets }));
      worker.apply(withConfigs(complete(user('db', secret('pw', 'db-password'), secret('tls', '/etc/tls/key.pem'))), addConfig('cfg1', 'port=5432\n'), addSecret('pw', 'hunter2'), addSecret('tls', 'KEY')));
      expect(given[0]!.configs.map((config) => [config.reference.file.name, config.data.toString(), config.secret ?? false])).toEqual([
        ['/etc/cfg1.conf', 'port=5432\n', false],
        ['/run/secrets/db-password', 'hunter2', true],
        ['/etc/tls/key.pem', 'KEY', true],
      ]);
      worker.apply(withConfigs(incremental(user('lacking', secret('gone', 'x'))), addConfig('gone', 'a config, not the secret')));
      expect(rejection(recorder, 'lacking')).toBe('secret gone-name (gone) not found: the node was not sent it');
      await recorder.waitForState('db', TaskState.RUNNING);
      await worker.stopAll();
    });

    it('forgets a config on REMOVE, and those a COMPLETE set leaves out; a task already given one keeps running', async () => {
      const recorder = new StatusRecorder();
      const worker = new Worker(executor, recorder.sink);
      worker.apply(withConfigs(complete(reader('a', 'cfg1')), addConfig('cfg1', 'x'), addConfig('cfg2', 'y')));
      await recorder.waitForState('a', TaskState.RUNNING);
      worker.apply(withConfigs(incremental(reader('b', 'cfg2')), removeConfig('cfg2')));
      expect(rejection(recorder, 'b')).toMatch(/^config cfg2-name \(cfg2\) not found/);
      // Reconnected: a set that still has task a but no configs (cfg1 was removed from the cluster since).
      worker.apply(complete(update(assignment('a'))));
      expect(worker.heldConfigs().size).toBe(0);
      worker.apply(incremental(reader('c', 'cfg1')));
      expect(rejection(recorder, 'c')).toMatch(/^config cfg1-name \(cfg1\) not found/);
      expect(worker.statuses().find((status) => status.taskId === 'a')?.state).toBe(TaskState.RUNNING);
      await worker.stopAll();
    });
  });
});
