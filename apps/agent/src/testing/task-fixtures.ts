/** Small helpers the agent's specs share: a task to assign and a recorder of its statuses. */
import { isTerminal, taskStateName } from '@shoal/contracts';
import type { ContainerSpec, TaskState } from '@shoal/contracts';
import type { AssignedTask } from '../executor';
import type { TaskStatusReport } from '../task-runner';

let counter = 0;

/** A task of `container`; its configs, when it names any, are given these bytes (by config id). */
export const assignedTask = (container: Partial<ContainerSpec> = {}, id = `task-${++counter}`, data: Readonly<Record<string, string>> = {}): AssignedTask => ({
  id,
  serviceId: 'svc-1',
  serviceName: 'web',
  slot: 1,
  spec: { container: { image: 'busybox', ...container } },
  configs: (container.configs ?? []).map((reference) => ({ reference, data: Buffer.from(data[reference.configId] ?? '') })),
});

/** Records reported statuses and lets a spec wait for one. */
export class StatusRecorder {
  readonly statuses: TaskStatusReport[] = [];
  private waiters: { test: (status: TaskStatusReport) => boolean; resolve: (status: TaskStatusReport) => void }[] = [];

  readonly sink = (status: TaskStatusReport): void => {
    this.statuses.push(status);
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.test(status)) return true;
      waiter.resolve(status);
      return false;
    });
  };

  states(taskId?: string): string[] {
    return this.statuses.filter((status) => taskId === undefined || status.taskId === taskId).map((status) => taskStateName(status.state));
  }

  waitFor(test: (status: TaskStatusReport) => boolean): Promise<TaskStatusReport> {
    const seen = this.statuses.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  waitForState(taskId: string, state: TaskState): Promise<TaskStatusReport> {
    return this.waitFor((status) => status.taskId === taskId && status.state === state);
  }

  terminal(taskId: string): Promise<TaskStatusReport> {
    return this.waitFor((status) => status.taskId === taskId && isTerminal(status.state));
  }
}
