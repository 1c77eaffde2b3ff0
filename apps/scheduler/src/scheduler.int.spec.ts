import { TaskState } from '@shoal/contracts';
import type { ServiceSpec, ShoalEvent, Task } from '@shoal/contracts';
import { SchedulerCore } from '@shoal/domain';
import type { ClusterState } from '@shoal/domain';
import { ComponentRunner } from '@shoal/runtime';
import { EventBuilder, KafkaTestTopic, appendEvents, clusterInit, eventually, newTask, nodeDescription, serviceSpec } from '@shoal/testing';

const assigned = (state: ClusterState, prefix: string): Task[] =>
  [...state.tasks.values()].filter((t) => t.id.startsWith(prefix) && t.status.state === TaskState.ASSIGNED);

describe('the scheduler on a real broker', () => {
  let topic: KafkaTestTopic;
  beforeEach(() => (topic = new KafkaTestTopic('scheduler-int')));
  afterEach(() => topic.close());

  it('places 1,000 tasks of several services on 100 nodes, spread by zone; after a drain and a failover it re-places the drained node\'s tasks elsewhere', async () => {
    const log = await topic.open();
    const b = new EventBuilder();
    const append = (events: readonly ShoalEvent[]) => appendEvents(log, events);
    const specs: ServiceSpec[] = [0, 1, 2, 3].map((i) =>
      serviceSpec(`svc${i}`, { kind: 'replicated', replicas: 250 }, {
        task: {
          container: { image: 'nginx' },
          resources: { reservations: { nanoCpus: 1e8, memoryBytes: 2 ** 24 } },
          ...(i % 2 === 0 ? { placement: { preferences: [{ spread: 'node.labels.zone' }] } } : {}),
        },
      }),
    );
    const events: ShoalEvent[] = [clusterInit(b)];
    for (let n = 0; n < 100; n++) {
      events.push(b.event('NodeRegistered', { id: `n${n}`, role: 'worker', description: nodeDescription(`n${n}`) }));
      events.push(b.event('NodeSpecUpdated', { id: `n${n}`, spec: { labels: { zone: `z${n % 3}` }, role: 'worker', availability: 'active' } }));
    }
    specs.forEach((spec, i) => {
      const tasks = Array.from({ length: 250 }, (_, k) => newTask(`s${i}.t${k}`, `s${i}`, spec, { slot: k + 1 }));
      events.push(
        b.event('ServiceCreated', { id: `s${i}`, spec }),
        b.event('TasksCreated', { tasks }),
        b.event('TasksAllocated', { tasks: tasks.map((t) => ({ id: t.id, attachments: [] })) }),
      );
    });
    await append(events);

    const first = await topic.start(new ComponentRunner(log, new SchedulerCore(), { cluster: 'c1', instance: 'scheduler-a' }));
    await eventually('1,000 tasks are assigned', () => assigned(first.view.state, 's').length === 1000);
    const state = first.view.state;
    for (let i = 0; i < 4; i++) {
      const perNode = new Map<string, number>();
      for (const t of assigned(state, `s${i}.`)) perNode.set(t.nodeId as string, (perNode.get(t.nodeId as string) ?? 0) + 1);
      // 250 tasks on 100 identical nodes: two or three each.
      expect(perNode.size).toBe(100);
      expect(Math.min(...perNode.values())).toBeGreaterThanOrEqual(2);
      expect(Math.max(...perNode.values())).toBeLessThanOrEqual(3);
      expect(assigned(state, `s${i}.`).every((t) => (t.assignmentReason ?? '').includes('100 of 100 nodes passed'))).toBe(true);
    }

    // A failover: the second scheduler replays and takes over.
    await topic.stop(first);
    const second = await topic.start(new ComponentRunner(await topic.open(), new SchedulerCore(), { cluster: 'c1', instance: 'scheduler-b' }));
    await eventually('the second scheduler is active', () => second.state === 'active');

    // n0 is drained; its tasks are shut down and replaced (as the orchestrator would).
    const onN0 = [...second.view.state.tasks.values()].filter((t) => t.nodeId === 'n0');
    expect(onN0.length).toBeGreaterThan(0);
    const replacements = onN0.map((t) => newTask(`r.${t.id}`, t.serviceId, specs[Number(t.serviceId.slice(1))] as ServiceSpec, { slot: t.slot ?? 0, replaces: t.id }));
    await append([
      b.event('NodeSpecUpdated', { id: 'n0', spec: { labels: { zone: 'z0' }, role: 'worker', availability: 'drain' } }),
      b.event('TaskDesiredStatesChanged', { tasks: onN0.map((t) => ({ id: t.id, desiredState: TaskState.SHUTDOWN })) }),
      b.event('TasksCreated', { tasks: replacements }),
      b.event('TasksAllocated', { tasks: replacements.map((t) => ({ id: t.id, attachments: [] })) }),
    ]);
    await eventually('the replacements are assigned', () => assigned(second.view.state, 'r.').length === replacements.length);
    expect(assigned(second.view.state, 'r.').some((t) => t.nodeId === 'n0')).toBe(false);
    const records = (await log.read(0)).map((r) => JSON.parse(r.value) as ShoalEvent);
    const byB = records.filter((e) => e.type === 'TasksAssigned' && e.by.instance === 'scheduler-b');
    expect(byB.length).toBeGreaterThan(0);
    expect(byB.every((e) => e.by.term === 2)).toBe(true);
  });
});
