import { randomUUID } from 'node:crypto';
import { TaskState, encode } from '@shoal/contracts';
import type { ShoalEvent, Task } from '@shoal/contracts';
import { OrchestratorCore } from '@shoal/domain';
import { KafkaEventLog } from '@shoal/eventlog';
import { ComponentRunner } from '@shoal/runtime';
import { EventBuilder, clusterInit, nodeDescription, serviceSpec } from '@shoal/testing';
import { newTaskId } from './orchestrator.module';

const brokers = (process.env.KAFKA_BROKERS ?? '')
  .split(',')
  .map((broker) => broker.trim())
  .filter(Boolean);
if (brokers.length === 0) throw new Error('KAFKA_BROKERS is not set: the orchestrator integration test needs a real broker (jest finds or starts one).');

const until = async (check: () => boolean, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('the orchestrator on a real broker', () => {
  const opened: KafkaEventLog[] = [];
  const runners: ComponentRunner[] = [];
  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.stop();
    await Promise.all(opened.splice(0).map((log) => log.close()));
  });

  it('creates, restarts after the delay across a failover, and scales down — every step on the log', async () => {
    const topic = `shoal-test-${randomUUID()}.events`;
    const open = async () => {
      const log = await KafkaEventLog.open({ brokers, topic, clientId: 'orchestrator-int' });
      opened.push(log);
      return log;
    };
    const log = await open();
    const b = new EventBuilder();
    const append = (events: readonly ShoalEvent[]) => log.append(events.map((e) => ({ key: 'c1', value: encode(e) })));
    const web = serviceSpec('web', { kind: 'replicated', replicas: 3 }, {
      task: { container: { image: 'nginx' }, restartPolicy: { condition: 'any', delayMs: 1_500, maxAttempts: 0, windowMs: 0 } },
    });
    await append([
      clusterInit(b),
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
      b.event('ServiceCreated', { id: 's1', spec: web }),
    ]);

    const start = async (instance: string) => {
      const runner = new ComponentRunner(await open(), new OrchestratorCore({ newId: newTaskId }), { cluster: 'c1', instance });
      runners.push(runner);
      await runner.start();
      return runner;
    };
    const first = await start('orchestrator-a');
    const tasks = (runner: ComponentRunner): Task[] => [...runner.view.state.tasks.values()];
    await until(() => tasks(first).length === 3);
    expect(tasks(first).map((t) => t.slot).sort()).toEqual([1, 2, 3]);

    // Play allocator, scheduler and agent: all three run on n1.
    const ids = tasks(first).map((t) => t.id);
    await append([
      b.event('TasksAllocated', { tasks: ids.map((id) => ({ id, attachments: [] })) }),
      b.event('TasksAssigned', { tasks: ids.map((id) => ({ id, nodeId: 'n1', why: 'test' })) }),
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: ids.map((id) => ({ id, state: TaskState.RUNNING, at: b.now() })) }),
    ]);
    await until(() => tasks(first).filter((t) => t.status.state === TaskState.RUNNING).length === 3);

    // One fails; the first orchestrator shuts it down and creates a replacement that waits out the delay.
    const failed = ids[0]!;
    await append([b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: failed, state: TaskState.FAILED, at: b.now(), exitCode: 1 }] })]);
    const replacement = () => tasks(first).find((t) => t.replaces === failed);
    await until(() => replacement() !== undefined);
    expect(replacement()!.desiredState).toBe(TaskState.READY);

    // It stops before the delay is over; a second one takes over and starts the replacement when the delay has passed.
    await first.stop();
    runners.splice(runners.indexOf(first), 1);
    const second = await start('orchestrator-b');
    const waiting = replacement()!.id;
    await until(() => second.view.state.tasks.get(waiting)?.desiredState === TaskState.RUNNING, 30_000);
    const records = (await log.read(0)).map((r) => JSON.parse(r.value) as ShoalEvent);
    const started = records.find((e) => e.type === 'TaskDesiredStatesChanged' && e.data.tasks.some((t) => t.id === waiting && t.desiredState === TaskState.RUNNING))!;
    const created = records.find((e) => e.type === 'TasksCreated' && e.data.tasks.some((t) => t.id === waiting))!;
    expect(started.by.instance).toBe('orchestrator-b');
    expect(Date.parse(started.at) - Date.parse(created.at)).toBeGreaterThanOrEqual(1_500);

    // Scaled down to one: two slots' tasks get desired REMOVE, in one record.
    await append([b.event('ServiceUpdated', { id: 's1', spec: { ...web, mode: { kind: 'replicated', replicas: 1 } } })]);
    const runnable = () => [...second.view.state.tasks.values()].filter((t) => t.desiredState <= TaskState.RUNNING);
    await until(() => runnable().length === 1);
    const after = (await log.read(0)).map((r) => JSON.parse(r.value) as ShoalEvent);
    const removals = after.filter((e) => e.type === 'TaskDesiredStatesChanged' && e.data.tasks.every((t) => t.desiredState === TaskState.REMOVE));
    expect(removals).toHaveLength(1);
    expect(removals[0]!.type === 'TaskDesiredStatesChanged' && removals[0]!.data.tasks).toHaveLength(2);
  });
});
