import { TaskState } from '@shoal/contracts';
import type { ShoalEvent, Task } from '@shoal/contracts';
import { OrchestratorCore } from '@shoal/domain';
import { ComponentRunner, newObjectId } from '@shoal/runtime';
import { EventBuilder, KafkaTestTopic, appendEvents, clusterInit, eventually, nodeDescription, serviceSpec } from '@shoal/testing';

describe('the orchestrator on a real broker', () => {
  let topic: KafkaTestTopic;
  beforeEach(() => (topic = new KafkaTestTopic('orchestrator-int')));
  afterEach(() => topic.close());

  it('creates, restarts after the delay across a failover, and scales down — every step on the log', async () => {
    const log = await topic.open();
    const b = new EventBuilder();
    const append = (events: readonly ShoalEvent[]) => appendEvents(log, events);
    const web = serviceSpec('web', { kind: 'replicated', replicas: 3 }, {
      task: { container: { image: 'nginx' }, restartPolicy: { condition: 'any', delayMs: 1_500, maxAttempts: 0, windowMs: 0 } },
    });
    await append([
      clusterInit(b),
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
      b.event('ServiceCreated', { id: 's1', spec: web }),
    ]);

    const start = async (instance: string) =>
      topic.start(new ComponentRunner(await topic.open(), new OrchestratorCore({ newId: newObjectId }), { cluster: 'c1', instance }));
    const first = await start('orchestrator-a');
    const tasks = (runner: ComponentRunner): Task[] => [...runner.view.state.tasks.values()];
    await eventually('three tasks are created', () => tasks(first).length === 3);
    expect(tasks(first).map((t) => t.slot).sort()).toEqual([1, 2, 3]);

    // Play allocator, scheduler and agent: all three run on n1.
    const ids = tasks(first).map((t) => t.id);
    await append([
      b.event('TasksAllocated', { tasks: ids.map((id) => ({ id, attachments: [] })) }),
      b.event('TasksAssigned', { tasks: ids.map((id) => ({ id, nodeId: 'n1', why: 'test' })) }),
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: ids.map((id) => ({ id, state: TaskState.RUNNING, at: b.now() })) }),
    ]);
    await eventually('three tasks run', () => tasks(first).filter((t) => t.status.state === TaskState.RUNNING).length === 3);

    // One fails; the first orchestrator shuts it down and creates a replacement that waits out the delay.
    const failed = ids[0]!;
    await append([b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: failed, state: TaskState.FAILED, at: b.now(), exitCode: 1 }] })]);
    const replacement = () => tasks(first).find((t) => t.replaces === failed);
    await eventually('a replacement is created', () => replacement() !== undefined);
    expect(replacement()!.desiredState).toBe(TaskState.READY);

    // It stops before the delay is over; a second one takes over and starts the replacement when the delay has passed.
    await topic.stop(first);
    const second = await start('orchestrator-b');
    const waiting = replacement()!.id;
    await eventually('the replacement is started', () => second.view.state.tasks.get(waiting)?.desiredState === TaskState.RUNNING, 30_000);
    const records = (await log.read(0)).map((r) => JSON.parse(r.value) as ShoalEvent);
    const started = records.find((e) => e.type === 'TaskDesiredStatesChanged' && e.data.tasks.some((t) => t.id === waiting && t.desiredState === TaskState.RUNNING))!;
    const created = records.find((e) => e.type === 'TasksCreated' && e.data.tasks.some((t) => t.id === waiting))!;
    expect(started.by.instance).toBe('orchestrator-b');
    expect(Date.parse(started.at) - Date.parse(created.at)).toBeGreaterThanOrEqual(1_500);

    // Scaled down to one: two slots' tasks get desired REMOVE, in one record.
    await append([b.event('ServiceUpdated', { id: 's1', spec: { ...web, mode: { kind: 'replicated', replicas: 1 } } })]);
    const runnable = () => [...second.view.state.tasks.values()].filter((t) => t.desiredState <= TaskState.RUNNING);
    await eventually('one task is left runnable', () => runnable().length === 1);
    const after = (await log.read(0)).map((r) => JSON.parse(r.value) as ShoalEvent);
    const removals = after.filter((e) => e.type === 'TaskDesiredStatesChanged' && e.data.tasks.every((t) => t.desiredState === TaskState.REMOVE));
    expect(removals).toHaveLength(1);
    expect(removals[0]!.type === 'TaskDesiredStatesChanged' && removals[0]!.data.tasks).toHaveLength(2);
  });
});
