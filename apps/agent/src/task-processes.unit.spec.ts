import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@shoal/contracts';
import { eventually } from '@shoal/testing';
import { ExecExecutor } from './exec-executor';
import { TaskProcessRecord, processStartTime } from './task-processes';
import { TaskLog } from './task-log';
import { TaskRoots } from './task-root';
import { TaskRunner } from './task-runner';
import { StatusRecorder, assignedTask } from './testing/task-fixtures';
import { TimerWheel } from './timers';

/** The pid the task's shell writes to `pidFile`, once it is there. */
const pidIn = async (pidFile: string): Promise<number> => {
  await eventually('the task writes its pid', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', { everyMs: 20 });
  return Number(readFileSync(pidFile, 'utf8'));
};

/** Running as recorded: there, and not a zombie waiting to be reaped. */
const running = (pid: number): boolean => processStartTime(pid) !== undefined;

describe('task processes left by a crashed agent', () => {
  const timers = new TimerWheel(10);
  let stateDir: string;
  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'shoal-agent-state-'));
  });

  /** An exec agent's task, started with its process recorded; the agent then "crashes": nothing stops the task. */
  const startAndAbandon = async (script: string, stopGracePeriodMs: number): Promise<{ taskId: string; pids: number[] }> => {
    const executor = new ExecExecutor({ timers, processes: new TaskProcessRecord(join(stateDir, 'tasks')), roots: new TaskRoots(join(stateDir, 'roots')) });
    const recorder = new StatusRecorder();
    const pidFile = join(stateDir, 'child.pid');
    const task = assignedTask({ command: ['sh', '-c', script.replace('$PIDFILE', pidFile)], stopGracePeriodMs });
    new TaskRunner(task, TaskState.RUNNING, executor.controller(task, new TaskLog()), recorder.sink);
    await recorder.waitForState(task.id, TaskState.RUNNING);
    const leader = JSON.parse(readFileSync(join(stateDir, 'tasks', `${task.id}.json`), 'utf8')) as { pid: number };
    return { taskId: task.id, pids: [leader.pid, await pidIn(pidFile)] };
  };

  it('a restarted agent stops, by its record, the task processes the crashed one left running', async () => {
    const { taskId, pids } = await startAndAbandon('sleep 60 & echo $! > $PIDFILE; wait', 10_000);
    expect(pids.every(running)).toBe(true);

    const leftovers = await new TaskProcessRecord(join(stateDir, 'tasks')).stopLeftovers();
    expect(leftovers).toEqual([{ taskId, pid: pids[0], outcome: 'stopped' }]);
    // SIGTERM went to the whole group: the task's own child stops too.
    await eventually('the task and its child are gone', () => !pids.some(running));
    expect(readdirSync(join(stateDir, 'tasks'))).toEqual([]);
  });

  it('one that ignores SIGTERM is killed once its grace period is over', async () => {
    const { taskId, pids } = await startAndAbandon('trap "" TERM; sleep 60 & echo $! > $PIDFILE; wait; wait', 300);
    const leftovers = await new TaskProcessRecord(join(stateDir, 'tasks')).stopLeftovers();
    expect(leftovers).toEqual([{ taskId, pid: pids[0], outcome: 'killed' }]);
    await eventually('the task and its child are gone', () => !pids.some(running));
  });

  it('a task that ended by itself leaves no record behind', async () => {
    const executor = new ExecExecutor({ timers, processes: new TaskProcessRecord(join(stateDir, 'tasks')), roots: new TaskRoots(join(stateDir, 'roots')) });
    const recorder = new StatusRecorder();
    const task = assignedTask({ command: ['sh', '-c', 'sleep 0.2'] });
    await new TaskRunner(task, TaskState.RUNNING, executor.controller(task, new TaskLog()), recorder.sink).done;
    expect(recorder.states().at(-1)).toBe('COMPLETE');
    expect(readdirSync(join(stateDir, 'tasks'))).toEqual([]);
    expect(await new TaskProcessRecord(join(stateDir, 'tasks')).stopLeftovers()).toEqual([]);
  });

  it('never signals a process that only has the recorded pid (started at another time), and forgets the record', async () => {
    const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const pid = stranger.pid!;
      mkdirSync(join(stateDir, 'tasks'));
      writeFileSync(join(stateDir, 'tasks', 'old-task.json'), JSON.stringify({ pid, startTime: '1', gracePeriodMs: 100 }));
      writeFileSync(join(stateDir, 'tasks', 'garbled.json'), '{not json');

      const leftovers = await new TaskProcessRecord(join(stateDir, 'tasks')).stopLeftovers();
      expect(leftovers.sort((a, b) => a.taskId.localeCompare(b.taskId))).toEqual([
        { taskId: 'garbled', pid: 0, outcome: 'gone' },
        { taskId: 'old-task', pid, outcome: 'gone' },
      ]);
      expect(running(pid)).toBe(true);
      expect(readdirSync(join(stateDir, 'tasks'))).toEqual([]);
    } finally {
      stranger.kill('SIGKILL');
    }
  });

  it('without a state dir there is nothing to stop', async () => {
    expect(await new TaskProcessRecord(join(stateDir, 'never-made')).stopLeftovers()).toEqual([]);
  });
});
