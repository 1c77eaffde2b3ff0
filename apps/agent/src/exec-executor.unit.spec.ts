import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, hostname, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { TaskState } from '@shoal/contracts';
import { eventually, pidAlive } from '@shoal/testing';
import { ExecExecutor } from './exec-executor';
import type { AssignedTask } from './executor';
import { TaskLog } from './task-log';
import { TaskRunner } from './task-runner';
import { addConfig, assignmentOf, complete, configReference, incremental, remove, update, withConfigs } from './testing/assignments';
import { StatusRecorder, assignedTask } from './testing/task-fixtures';
import { TaskRoots } from './task-root';
import { TimerWheel } from './timers';
import { Worker } from './worker';

/** The pid the task's shell writes to `pidFile`, once it is there. */
const pidIn = async (pidFile: string): Promise<number> => {
  await eventually('the task writes its pid', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', { everyMs: 20 });
  return Number(readFileSync(pidFile, 'utf8'));
};

describe('the exec executor', () => {
  const timers = new TimerWheel(10);
  const executor = new ExecExecutor({ timers });
  afterAll(() => executor.close());
  const run = (task: AssignedTask, recorder: StatusRecorder, desired: TaskState = TaskState.RUNNING): TaskRunner =>
    new TaskRunner(task, desired, executor.controller(task, new TaskLog()), recorder.sink);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-exec-'));
  });

  it('runs the command as a real process and reports each state in order, then COMPLETE with exit code 0', async () => {
    const recorder = new StatusRecorder();
    const task = assignedTask({ command: ['sh', '-c'], args: ['echo "$GREETING from $(pwd)" > out.txt'], env: ['GREETING=hello'], dir });
    await run(task, recorder).done;
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'READY', 'STARTING', 'RUNNING', 'COMPLETE']);
    expect(recorder.statuses.at(-1)?.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8').trim()).toBe(`hello from ${dir}`);
  });

  it("puts the process's stdout and stderr lines into the task's log, each on its stream", async () => {
    const recorder = new StatusRecorder();
    const log = new TaskLog();
    const task = assignedTask({ command: ['sh', '-c', 'echo out; echo err >&2; printf unfinished'] });
    await new TaskRunner(task, TaskState.RUNNING, executor.controller(task, log), recorder.sink).done;
    const lines = (): string[] => log.read({ stdout: true, stderr: true, tail: -1, sinceMs: 0 }).map((entry) => `${entry.stream}:${entry.data.toString()}`);
    // The last of it may still be in the pipe when the process has exited; the unfinished line counts once it ends.
    await eventually('the output in the log', () => lines().length === 3, { everyMs: 10 });
    expect(lines().filter((line) => line.startsWith('stdout'))).toEqual(['stdout:out\n', 'stdout:unfinished\n']);
    expect(lines().filter((line) => line.startsWith('stderr'))).toEqual(['stderr:err\n']);
  });

  it('reports FAILED with the exit code when the process exits non-zero', async () => {
    const recorder = new StatusRecorder();
    const task = assignedTask({ command: ['sh', '-c', 'exit 3'] });
    await run(task, recorder).done;
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'READY', 'STARTING', 'RUNNING', 'FAILED']);
    expect(recorder.statuses.at(-1)).toMatchObject({ exitCode: 3, err: 'task exited with code 3' });
  });

  it('rejects a task whose binary does not exist, with the spawn error', async () => {
    const recorder = new StatusRecorder();
    const task = assignedTask({ command: ['/nonexistent/shoal-no-such-binary'], args: ['x'] });
    await run(task, recorder).done;
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'READY', 'STARTING', 'REJECTED']);
    expect(recorder.statuses.at(-1)?.err).toMatch(/could not start \/nonexistent\/shoal-no-such-binary: .*ENOENT/);
  });

  it("runs the task as its spec's user, and rejects a user this host does not have", async () => {
    const recorder = new StatusRecorder();
    // The task itself checks who it runs as: exit 0 as nobody (uid 65534), 1 as anyone else.
    const asNobody = assignedTask({ command: ['sh', '-c', 'test "$(id -u)" = 65534'], user: 'nobody' });
    const ghost = assignedTask({ command: ['true'], user: 'shoal-no-such-user' });
    await Promise.all([run(asNobody, recorder).done, run(ghost, recorder).done]);
    expect(recorder.states(ghost.id)).toEqual(['ACCEPTED', 'PREPARING', 'REJECTED']);
    expect(recorder.statuses.find((s) => s.taskId === ghost.id && s.state === TaskState.REJECTED)?.err).toMatch(/user "shoal-no-such-user" does not exist on this node/);
    if (process.getuid?.() === 0) {
      // An agent running as root runs the task as the user it names, never as root.
      expect(recorder.states(asNobody.id).at(-1)).toBe('COMPLETE');
      expect(recorder.statuses.find((s) => s.taskId === asNobody.id && s.state === TaskState.COMPLETE)?.exitCode).toBe(0);
    } else {
      // Anyone else may not switch users: the task is refused with the reason, not run as the agent.
      expect(recorder.states(asNobody.id).at(-1)).toBe('REJECTED');
      expect(recorder.statuses.find((s) => s.taskId === asNobody.id && s.state === TaskState.REJECTED)?.err).toMatch(/EPERM/);
    }
  });

  it('rejects a task with no command, and one whose working directory is missing', async () => {
    const recorder = new StatusRecorder();
    const none = assignedTask({});
    const lost = assignedTask({ command: ['true'], dir: join(dir, 'missing') });
    await Promise.all([run(none, recorder).done, run(lost, recorder).done]);
    expect(recorder.states(none.id)).toEqual(['ACCEPTED', 'PREPARING', 'REJECTED']);
    expect(recorder.statuses.find((s) => s.taskId === none.id && s.state === TaskState.REJECTED)?.err).toMatch(/no command/);
    expect(recorder.statuses.find((s) => s.taskId === lost.id && s.state === TaskState.REJECTED)?.err).toMatch(/working directory .*missing does not exist/);
  });

  it('stops a running process with SIGTERM on desired SHUTDOWN', async () => {
    const recorder = new StatusRecorder();
    const pidFile = join(dir, 'pid');
    const task = assignedTask({ command: ['sh', '-c', `echo $$ > ${pidFile}; exec sleep 60`], stopGracePeriodMs: 30_000 });
    const runner = run(task, recorder);
    await recorder.waitForState(task.id, TaskState.RUNNING);
    const pid = await pidIn(pidFile);
    runner.setDesired(TaskState.SHUTDOWN);
    await runner.done;
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'READY', 'STARTING', 'RUNNING', 'SHUTDOWN']);
    expect(pidAlive(pid)).toBe(false);
  });

  it('escalates to SIGKILL after the grace period when the process traps SIGTERM', async () => {
    const recorder = new StatusRecorder();
    const pidFile = join(dir, 'pid');
    const termFile = join(dir, 'term');
    const afterTerm = join(dir, 'after-term');
    // It takes SIGTERM, says so, and carries on: only SIGKILL ends it.
    const script = `trap 'echo term >> ${termFile}' TERM; echo $$ > ${pidFile}; while true; do [ -f ${termFile} ] && echo still here >> ${afterTerm}; sleep 0.05; done`;
    const task = assignedTask({ command: ['sh', '-c', script], stopGracePeriodMs: 1_000 });
    const runner = run(task, recorder);
    const pid = await pidIn(pidFile);
    runner.setDesired(TaskState.SHUTDOWN);
    await runner.done;
    expect(readFileSync(termFile, 'utf8')).toContain('term');
    expect(readFileSync(afterTerm, 'utf8')).toContain('still here');
    expect(pidAlive(pid)).toBe(false);
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'READY', 'STARTING', 'RUNNING', 'SHUTDOWN']);
  });

  it('holds a task at READY while READY is desired, and starts it when RUNNING is', async () => {
    const recorder = new StatusRecorder();
    const task = assignedTask({ command: ['true'] });
    const runner = run(task, recorder, TaskState.READY);
    await recorder.waitForState(task.id, TaskState.READY);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'READY']);
    runner.setDesired(TaskState.RUNNING);
    await runner.done;
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'READY', 'STARTING', 'RUNNING', 'COMPLETE']);
  });

  it("describes this host's real CPUs and memory", () => {
    const description = new ExecExecutor({ timers, labels: { zone: 'a' } }).describe();
    expect(description).toMatchObject({ hostname: hostname(), nanoCpus: cpus().length * 1e9, memoryBytes: totalmem(), engineLabels: { zone: 'a' } });
    expect(description.platform.os).toBe('linux');
  });
});

describe("the exec executor: a task's root and its configs", () => {
  const timers = new TimerWheel(10);
  const asRoot = process.getuid?.() === 0;
  let dir: string;
  let executor: ExecExecutor;
  beforeEach(() => {
    // As root, a task runs as nobody, who must pass through every directory above its root:
    // the run's TMPDIR may be private (0700), /tmp is not.
    dir = mkdtempSync(join(asRoot ? '/tmp' : tmpdir(), 'shoal-roots-'));
    executor = new ExecExecutor({ timers, roots: new TaskRoots(join(dir, 'tasks')) });
  });
  afterEach(async () => {
    await executor.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the task to its end: its statuses, what it wrote, and the runner (to remove it). */
  const runToEnd = async (task: AssignedTask) => {
    const recorder = new StatusRecorder();
    const log = new TaskLog();
    const runner = new TaskRunner(task, TaskState.RUNNING, executor.controller(task, log), recorder.sink);
    await runner.done;
    const stdout = (): string =>
      log
        .read({ stdout: true, stderr: true, tail: -1, sinceMs: 0 })
        .map((entry) => `${entry.stream === 'stderr' ? 'stderr: ' : ''}${entry.data.toString()}`)
        .join('');
    return { recorder, stdout, runner };
  };

  it('writes each config under the task root at its target, with its mode, and the task reads it from $SHOAL_TASK_ROOT', async () => {
    const task = assignedTask(
      {
        command: ['sh', '-c', 'cat "$SHOAL_TASK_ROOT/etc/app.conf"; cat "$SHOAL_TASK_ROOT/relative/b.conf"; echo "root=$SHOAL_TASK_ROOT"'],
        configs: [configReference('app', '/etc/app.conf', 0o440), configReference('b', 'relative/b.conf', 0o600)],
      },
      'reader-1',
      { app: 'port=8080\n', b: 'level=debug\n' },
    );
    const { recorder, stdout, runner } = await runToEnd(task);
    const root = join(dir, 'tasks', 'reader-1');
    await eventually('the output in the log', () => stdout().includes('root='), { everyMs: 10 });
    expect(recorder.states().at(-1)).toBe('COMPLETE');
    expect(stdout()).toBe(`port=8080\nlevel=debug\nroot=${root}\n`);
    expect(statSync(join(root, 'etc', 'app.conf')).mode & 0o7777).toBe(0o440);
    expect(statSync(join(root, 'relative', 'b.conf')).mode & 0o7777).toBe(0o600);
    // Only an agent running as root gives files away: to the reference's uid and gid ("0" here).
    expect(statSync(join(root, 'etc', 'app.conf')).uid).toBe(asRoot ? 0 : process.getuid?.());
    // Others pass through the roots' directory, and do not list it.
    expect(statSync(join(dir, 'tasks')).mode & 0o777).toBe(0o711);

    // The node forgets the task: its root goes.
    await runner.remove();
    expect(existsSync(root)).toBe(false);
  });

  it("refuses a config whose target climbs out of the task's root, and writes nothing outside it", async () => {
    const task = assignedTask({ command: ['true'], configs: [configReference('evil', '/etc/../../escaped.conf')] }, 'escaper-1', { evil: 'x' });
    const { recorder } = await runToEnd(task);
    expect(recorder.states()).toEqual(['ACCEPTED', 'PREPARING', 'REJECTED']);
    expect(recorder.statuses.at(-1)?.err).toMatch(/config file \/etc\/\.\.\/\.\.\/escaped\.conf is outside the task's root/);
    expect(existsSync(join(dir, 'tasks', 'escaped.conf'))).toBe(false);
    expect(existsSync(join(dir, 'escaped.conf'))).toBe(false);
  });

  it('gives the file to the uid and gid the reference names when the agent runs as root; a task running as another user reads it', async () => {
    const owned = { ...configReference('owned', '/etc/owned.conf', 0o400), file: { name: '/etc/owned.conf', uid: '65534', gid: '65534', mode: 0o400 } };
    const task = assignedTask(
      { command: ['sh', '-c', 'cat "$SHOAL_TASK_ROOT/etc/owned.conf"; cat "$SHOAL_TASK_ROOT/etc/shared.conf"'], configs: [owned, configReference('shared', '/etc/shared.conf')], ...(asRoot ? { user: 'nobody' } : {}) },
      'owned-1',
      { owned: 'mine\n', shared: 'everyone\n' },
    );
    // The state dir as the agent makes it (mkdtemp's is 0700: no one else could pass).
    chmodSync(dir, 0o755);
    const { recorder, stdout } = await runToEnd(task);
    const file = statSync(join(dir, 'tasks', 'owned-1', 'etc', 'owned.conf'));
    if (asRoot) {
      expect([file.uid, file.gid]).toEqual([65534, 65534]);
      // As nobody, through the roots' directory: its own 0400 file and the 0444 one owned by root.
      expect({ state: recorder.states().at(-1), err: recorder.statuses.at(-1)?.err }).toEqual({ state: 'COMPLETE', err: undefined });
      await eventually('the output in the log', () => stdout() === 'mine\neveryone\n', { everyMs: 10 });
    } else {
      expect(file.uid).toBe(process.getuid?.());
    }
  });

  it("a task the node's assignments remove is stopped, then its root goes", async () => {
    const recorder = new StatusRecorder();
    const worker = new Worker(executor, recorder.sink);
    const reader = assignmentOf('long-1', { command: ['sh', '-c', 'exec sleep 60'], configs: [configReference('c', '/etc/app.conf')], stopGracePeriodMs: 5_000 });
    worker.apply(withConfigs(complete(update(reader)), addConfig('c', 'x')));
    await recorder.waitForState('long-1', TaskState.RUNNING);
    const root = join(dir, 'tasks', 'long-1');
    expect(readFileSync(join(root, 'etc', 'app.conf'), 'utf8')).toBe('x');
    worker.apply(incremental(remove('long-1')));
    await recorder.waitForState('long-1', TaskState.SHUTDOWN);
    await eventually('the root removed', () => !existsSync(root), { everyMs: 10 });
  });

  it('without a state dir, roots are under a directory of its own in the temp dir, which goes when it closes', async () => {
    const own = new ExecExecutor({ timers });
    const task = assignedTask({ command: ['sh', '-c', 'echo "$SHOAL_TASK_ROOT"; cat "$SHOAL_TASK_ROOT/app.conf"'], configs: [configReference('c', 'app.conf')] }, 'tmp-1', { c: 'hi\n' });
    const recorder = new StatusRecorder();
    const log = new TaskLog();
    await new TaskRunner(task, TaskState.RUNNING, own.controller(task, log), recorder.sink).done;
    const lines = (): string[] => log.read({ stdout: true, stderr: false, tail: -1, sinceMs: 0 }).map((entry) => entry.data.toString().trimEnd());
    await eventually('the output in the log', () => lines().length === 2, { everyMs: 10 });
    const [root, content] = lines() as [string, string];
    expect(content).toBe('hi');
    expect(dirname(dirname(root))).toBe(tmpdir());
    expect(dirname(root)).toMatch(/shoal-task-roots-/);
    expect(readdirSync(dirname(root))).toEqual(['tmp-1']);
    await own.close();
    expect(existsSync(dirname(root))).toBe(false);
  });
});
