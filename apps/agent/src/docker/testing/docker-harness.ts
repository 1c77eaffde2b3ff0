/**
 * Engine tests' harness: the test run's engine (testEngine(): a test that needs one and has
 * none fails saying so, never skips), a docker executor for a node of the test's own, and
 * a task run through the real task runner with its statuses and its log in reach.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { get } from 'node:http';

import { join } from 'node:path';
import { TaskState, taskStateName } from '@shoal/contracts';
import type { ConfigReference, PortConfig, TaskSpec } from '@shoal/contracts';
import { eventually, freePorts, testEngine } from '@shoal/testing';
import type { AssignedTask } from '../../executor';
import { TaskLog } from '../../task-log';
import { TaskRunner } from '../../task-runner';
import type { TaskStatusReport } from '../../task-runner';
import { ConfigFiles } from '../config-files';
import { DockerExecutor } from '../docker-executor';
import { EngineClient } from '../engine-client';
import { applyVips } from '../service-vips';

/** The engine the tests run on (SHOAL_TEST_ENGINE, found or started by jest's global setup), or an error saying how to get one. */
export { testEngine };

/** A TCP port free on 127.0.0.1 now, for a port a test publishes. */
export const freePort = async (): Promise<number> => (await freePorts(1))[0]!;

/** The body of `GET /` on 127.0.0.1:`port`. */
export const httpGet = (port: number, path = '/'): Promise<string> =>
  new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.once('end', () => resolve(body));
    }).once('error', reject);
  });

export const BUSYBOX = 'shoal-test/busybox:latest';

/** A task's spec around a container spec. */
export const taskSpec = (container: Partial<TaskSpec['container']>, rest: Omit<TaskSpec, 'container'> = {}): TaskSpec => ({
  container: { image: BUSYBOX, ...container },
  ...rest,
});

export interface RunningTask {
  readonly task: AssignedTask;
  readonly runner: TaskRunner;
  readonly log: TaskLog;
  readonly statuses: TaskStatusReport[];
  /** The task's log as text (stdout and stderr). */
  text(): string;
  /** Waits until the task has reached `state` (or later) and returns that status. */
  reached(state: TaskState, timeoutMs?: number): Promise<TaskStatusReport>;
}

export class DockerHarness {
  readonly engine = new EngineClient(testEngine());
  readonly nodeId = `node${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  /** Config files on tmpfs, in a root of the test's own. */
  readonly configRoot = join('/dev/shm', `shoal-test-configs-${randomUUID().slice(0, 8)}`);
  /** What the executors said (the agent's log lines). */
  readonly said: string[] = [];
  executor = this.newExecutor();

  /** A fresh executor for the same node: the agent restarted. */
  newExecutor(): DockerExecutor {
    return new DockerExecutor({
      engine: this.engine,
      nodeId: () => this.nodeId,
      description: { hostname: 'test', platform: { os: 'linux', architecture: 'x86_64' }, nanoCpus: 1e9, memoryBytes: 2 ** 30, generic: [], engineVersion: 'test', engineLabels: {}, plugins: [] },
      configFiles: new ConfigFiles(this.configRoot),
      publishAddress: '127.0.0.1',
      log: (line) => this.said.push(line),
    });
  }

  assigned(spec: TaskSpec, options: { slot?: number; configs?: { reference: ConfigReference; data: Buffer }[]; ports?: PortConfig[] } = {}): AssignedTask {
    const id = `t${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    return { id, serviceId: 'svc1', serviceName: 'test-svc', slot: options.slot ?? 1, spec, configs: options.configs ?? [], ...(options.ports ? { ports: options.ports } : {}) };
  }

  /** Runs a task on the executor (or adopts it, for an executor that restarted). */
  run(task: AssignedTask, options: { adopt?: boolean; executor?: DockerExecutor; desired?: TaskState } = {}): RunningTask {
    const executor = options.executor ?? this.executor;
    const log = new TaskLog();
    const statuses: TaskStatusReport[] = [];
    const controller = options.adopt ? executor.adopt(task, log) : executor.controller(task, log);
    const runner = new TaskRunner(task, options.desired ?? TaskState.RUNNING, controller, (status) => statuses.push(status), undefined, options.adopt ?? false);
    const text = (): string =>
      log
        .read({ stdout: true, stderr: true, tail: -1, sinceMs: 0 })
        .map((entry) => entry.data.toString())
        .join('');
    const reached = (state: TaskState, timeoutMs = 30_000): Promise<TaskStatusReport> =>
      eventually(`task ${task.id} reaches ${taskStateName(state)}`, () => statuses.find((status) => status.state >= state), { timeoutMs, explain: () => statuses });
    return { task, runner, log, statuses, text, reached };
  }

  /** The node's containers on the engine, of one task or all. */
  containers(taskId?: string): Promise<{ Id: string; Names: string[]; State: string; Labels: Record<string, string> }[]> {
    return this.executor.containersOf(taskId) as never;
  }

  /** Removes every container of the test's node, its config root, and its VIP rules if it made any. */
  async cleanUp(): Promise<void> {
    this.executor.close();
    await applyVips(this.nodeId, []).catch(() => undefined);
    for (const container of await this.containers().catch(() => [])) {
      await this.engine.call('DELETE', `/containers/${container.Id}`, { query: { force: 1, v: 1 } }).catch(() => undefined);
    }
    await rm(this.configRoot, { recursive: true, force: true });
  }
}
