import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import { emptyState } from '@shoal/domain';
import { newTask, serviceSpec } from '@shoal/testing';
import { toDockerTask } from './task-mapper';

const spec = serviceSpec('web');
const state = emptyState();
state.services.set('s1', { id: 's1', spec, version: 1, createdAt: 't0', updatedAt: 't0' });
const task: Task = {
  ...newTask('t1', 's1', spec, { slot: 2 }),
  nodeId: 'n1',
  createdAt: 't0',
  status: { state: TaskState.FAILED, at: 't2', message: 'started', err: 'exit status 1', exitCode: 1 },
  attachments: [{ network: 'net1', addresses: ['10.0.1.5/24'] }],
};

describe("Docker's Task object", () => {
  it('names states in lower case and the task after its service and slot', () => {
    expect(toDockerTask(state, task)).toMatchObject({
      ID: 't1',
      Name: 'web.2',
      ServiceID: 's1',
      Slot: 2,
      NodeID: 'n1',
      DesiredState: 'running',
      Status: { State: 'failed', Timestamp: 't2', Message: 'started', Err: 'exit status 1', ContainerStatus: { ExitCode: 1 } },
      Spec: { ContainerSpec: { Image: 'nginx:1.27' } },
      NetworksAttachments: [{ Network: { ID: 'net1' }, Addresses: ['10.0.1.5/24'] }],
    });
  });

  describe("ContainerStatus: the task's container, as SwarmKit's agent reports it", () => {
    const containerId = '9a3b'.padEnd(64, 'e');
    const status = (fields: Partial<Task['status']>) => toDockerTask(state, { ...task, status: { state: TaskState.RUNNING, at: 't2', message: 'started', ...fields } }).Status;

    it('a running task: its container id, PID and exit code 0, in that order', () => {
      const shown = status({ containerId, pid: 4242 });
      expect(shown.ContainerStatus).toEqual({ ContainerID: containerId, PID: 4242, ExitCode: 0 });
      expect(Object.keys(shown.ContainerStatus!)).toEqual(['ContainerID', 'PID', 'ExitCode']);
    });

    it('an ended task: its container id, PID 0 and its exit code', () => {
      expect(status({ state: TaskState.FAILED, err: 'task exited with code 3', exitCode: 3, containerId, pid: 0 }).ContainerStatus).toEqual({ ContainerID: containerId, PID: 0, ExitCode: 3 });
    });

    it('a task with no container (not yet prepared, or a simulated executor): none, as Docker shows a task not yet started', () => {
      expect(status({ state: TaskState.ASSIGNED, message: 'scheduler assigned task to node' })).not.toHaveProperty('ContainerStatus');
      expect(status({})).not.toHaveProperty('ContainerStatus');
    });

    it('a status kept without its container (a log below level 5) that exited: its exit code alone, as before', () => {
      expect(status({ state: TaskState.COMPLETE, exitCode: 0 }).ContainerStatus).toEqual({ ExitCode: 0 });
    });

    it('a task its node ended with no container and no exit code (rejected before its container was made): an empty one, as the engine shows it', () => {
      for (const ended of [TaskState.COMPLETE, TaskState.SHUTDOWN, TaskState.FAILED, TaskState.REJECTED]) {
        const shown = status({ state: ended, message: 'preparing', err: 'No such image: x:1' });
        expect({ ended, shown: shown.ContainerStatus }).toEqual({ ended, shown: { ContainerID: '', PID: 0, ExitCode: 0 } });
      }
      // Written by the dispatcher, not reported by the node: none.
      expect(status({ state: TaskState.ORPHANED, message: 'Task belonged to a node that has been deleted' })).not.toHaveProperty('ContainerStatus');
    });
  });

  it('names a global task after its node', () => {
    expect(toDockerTask(state, { ...task, slot: undefined, nodeId: 'n9' }).Name).toBe('web.n9');
  });

  it("gives a job's task meant to run to completion desired state complete, and numbers its slots from 0, as SwarmKit", () => {
    const jobTask: Task = { ...task, slot: 1, jobIteration: 0, status: { state: TaskState.COMPLETE, at: 't2' } };
    const docker = toDockerTask(state, jobTask);
    expect(docker).toMatchObject({ Name: 'web.n1', DesiredState: 'complete', JobIteration: { Index: 0 } });
    expect(docker.Slot).toBeUndefined();
    expect(toDockerTask(state, { ...jobTask, slot: 3 })).toMatchObject({ Name: 'web.2', Slot: 2 });
    expect(toDockerTask(state, { ...jobTask, desiredState: TaskState.REMOVE }).DesiredState).toBe('remove');
    expect(toDockerTask(state, { ...jobTask, desiredState: TaskState.READY }).DesiredState).toBe('ready');
  });
});
