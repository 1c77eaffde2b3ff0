import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { cpus, hostname, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@shoal/contracts';
import { eventually, pidAlive } from '@shoal/testing';
import { ExecExecutor } from './exec-executor';
import type { AssignedTask } from './executor';
import { TaskLog } from './task-log';
import { TaskRunner } from './task-runner';
import { StatusRecorder, assignedTask } from './testing/task-fixtures';
import { TimerWheel } from './timers';

/** The pid the task's shell writes to `pidFile`, once it is there. */
const pidIn = async (pidFile: string): Promise<number> => {
  await eventually('the task writes its pid', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', { everyMs: 20 });
  return Number(readFileSync(pidFile, 'utf8'));
};

describe('the exec executor', () => {
  const timers = new TimerWheel(10);
  const executor = new ExecExecutor({ timers });
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
