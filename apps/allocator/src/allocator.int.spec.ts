import { TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { ComponentRunner, componentCore } from '@shoal/runtime';
import { EventBuilder, KafkaTestTopic, appendEvents, clusterInit, eventually, newTask, serviceSpec } from '@shoal/testing';

describe('the allocator on a real broker', () => {
  let topic: KafkaTestTopic;
  beforeEach(() => (topic = new KafkaTestTopic('allocator-int')));
  afterEach(() => topic.close());

  it('creates ingress, allocates networks, endpoints and 200 tasks (the ingress network is a /24, as in Docker), and after a failover hands nothing out twice', async () => {
    const log = await topic.open();
    const b = new EventBuilder();
    const append = (events: readonly ShoalEvent[]) => appendEvents(log, events);
    const web = {
      ...serviceSpec('web'),
      task: { container: { image: 'nginx' }, networks: [{ target: 'backend' }] },
      endpoint: { mode: 'vip' as const, ports: [{ protocol: 'tcp' as const, targetPort: 80, publishMode: 'ingress' as const }] },
    };
    await append([
      clusterInit(b),
      b.event('NetworkCreated', { id: 'n1', spec: { name: 'backend', driver: 'overlay', ipam: [{ subnet: '10.20.0.0/22' }] } }),
      b.event('ServiceCreated', { id: 's1', spec: web }),
      b.event('TasksCreated', { tasks: Array.from({ length: 200 }, (_, i) => newTask(`t${i}`, 's1', web, { slot: i + 1 })) }),
    ]);

    const first = await topic.start(new ComponentRunner(log, componentCore('allocator'), { cluster: 'c1', instance: 'allocator-a' }));
    const pendingIn = (runner: ComponentRunner, prefix: string, count: number) => () =>
      [...runner.view.state.tasks.values()].filter((t) => t.id.startsWith(prefix) && t.status.state === TaskState.PENDING).length === count;
    await eventually('200 tasks are allocated', pendingIn(first, 't', 200));
    const state = first.view.state;
    const ingress = [...state.networks.values()].find((n) => n.spec.ingress);
    expect(ingress).toMatchObject({ subnet: '10.0.0.0/24', gateway: '10.0.0.1' });
    expect(state.services.get('s1')?.endpoint?.ports[0]?.publishedPort).toBe(30000);

    // A second allocator takes over; the first stops. It replays, then allocates more.
    await topic.stop(first);
    const second = await topic.start(new ComponentRunner(await topic.open(), componentCore('allocator'), { cluster: 'c1', instance: 'allocator-b' }));
    await eventually('the second allocator is active', () => second.state === 'active');
    await append([
      b.event('ServiceCreated', { id: 's2', spec: { ...web, name: 'api' } }),
      b.event('TasksCreated', { tasks: Array.from({ length: 40 }, (_, i) => newTask(`u${i}`, 's2', { ...web, name: 'api' }, { slot: i + 1 })) }),
    ]);
    await eventually('40 more tasks are allocated', pendingIn(second, 'u', 40));
    const after = second.view.state;
    expect([...after.networks.values()].filter((n) => n.spec.ingress)).toHaveLength(1);
    expect(after.services.get('s2')?.endpoint?.ports[0]?.publishedPort).toBe(30001);
    const held = new Set<string>();
    for (const task of after.tasks.values()) {
      for (const a of task.attachments ?? []) for (const address of a.addresses) held.add(`${a.network} ${address}`);
    }
    for (const service of after.services.values()) for (const v of service.endpoint?.virtualIps ?? []) held.add(`${v.network} ${v.address}`);
    // 240 tasks on two networks each, and two services with a VIP on each: all distinct.
    expect(held.size).toBe(240 * 2 + 2 * 2);
    const records = (await log.read(0)).map((r) => JSON.parse(r.value) as ShoalEvent);
    const allocations = records.filter((e) => e.type === 'TasksAllocated');
    expect(allocations.length).toBeLessThanOrEqual(4);
    expect(records.filter((e) => e.type === 'TasksAllocated' && e.by.instance === 'allocator-b')[0]?.by.term).toBe(2);
  });
});
