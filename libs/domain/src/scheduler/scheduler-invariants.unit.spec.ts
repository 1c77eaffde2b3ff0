import fc from 'fast-check';
import { TaskState } from '@shoal/contracts';
import type { PortConfig, Task } from '@shoal/contracts';
import type { ClusterState } from '../state';
import { node, nodes, pending, reported, service, specification, whenScheduled } from '@shoal/testing';
import { SchedulerCore } from './scheduler-core';
import { taskHostPorts } from './scheduling-task';

const scheduler = () => specification({ core: () => new SchedulerCore() });

const holding = (state: ClusterState): Task[] =>
  [...state.tasks.values()].filter((t) => t.nodeId !== undefined && t.status.state >= TaskState.ASSIGNED && t.status.state <= TaskState.RUNNING);

const byNode = (tasks: readonly Task[]): Map<string, Task[]> => {
  const out = new Map<string, Task[]>();
  for (const t of tasks) out.set(t.nodeId as string, [...(out.get(t.nodeId as string) ?? []), t]);
  return out;
};

const serviceArb = fc.record({
  cpus: fc.constantFrom(0, 0.5e9, 1e9, 2e9),
  memory: fc.constantFrom(0, 2 ** 29, 2 ** 30),
  gpus: fc.constantFrom(0, 0, 1, 2),
  port: fc.constantFrom(undefined, 80, 443, 8080),
  protocol: fc.constantFrom('tcp' as const, 'udp' as const),
  maxReplicas: fc.constantFrom(0, 0, 1, 2, 3),
  count: fc.integer({ min: 1, max: 12 }),
});

const nodeArb = fc.record({
  cpus: fc.integer({ min: 0, max: 6 }),
  memoryGiB: fc.integer({ min: 0, max: 4 }),
  gpus: fc.integer({ min: 0, max: 3 }),
  ready: fc.boolean(),
});

/** Random nodes and services, scheduled in rounds, with some tasks ending between rounds. */
const world = fc.record({
  nodes: fc.array(nodeArb, { minLength: 1, maxLength: 8 }),
  services: fc.array(serviceArb, { minLength: 1, maxLength: 5 }),
  rounds: fc.integer({ min: 1, max: 3 }),
  endEvery: fc.integer({ min: 2, max: 5 }),
});

type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

const run = (w: World) => {
  const c = scheduler();
  w.nodes.forEach((n, i) =>
    c.given(node(`n${i}`, {
      cpus: n.cpus,
      memoryBytes: n.memoryGiB * 2 ** 30,
      ...(n.gpus > 0 ? { generic: [{ kind: 'gpu', discrete: n.gpus }] } : {}),
      ...(n.ready || i === 0 ? {} : { state: 'down' as const }),
    })),
  );
  w.services.forEach((s, i) => {
    const ports: PortConfig[] | undefined = s.port ? [{ protocol: s.protocol, targetPort: 80, publishedPort: s.port, publishMode: 'host' }] : undefined;
    c.given(service(
      `s${i}`,
      {
        resources: {
          reservations: { nanoCpus: s.cpus, memoryBytes: s.memory, ...(s.gpus > 0 ? { generic: [{ kind: 'gpu', discrete: s.gpus }] } : {}) },
        },
        placement: { maxReplicas: s.maxReplicas },
      },
      undefined,
      ports,
    ));
  });
  for (let round = 0; round < w.rounds; round++) {
    w.services.forEach((s, i) => c.given(pending(`s${i}`, s.count)));
    whenScheduled(c);
    // Some tasks end between rounds, freeing what they held.
    holding(c.state).forEach((t, k) => {
      if (k % w.endEvery === 0) c.given(reported(t.nodeId as string, t.id, TaskState.COMPLETE));
    });
  }
  whenScheduled(c);
  return c;
};

describe('scheduler invariants', () => {
  it('never assigns a node beyond its CPU, memory or generic resources', () => {
    fc.assert(
      fc.property(world, (w) => {
        const c = run(w);
        for (const [nodeId, tasks] of byNode(holding(c.state))) {
          const has = c.state.nodes.get(nodeId)?.description.resources;
          const sum = (f: (t: Task) => number) => tasks.reduce((acc, t) => acc + f(t), 0);
          expect(sum((t) => t.spec.resources?.reservations?.nanoCpus ?? 0)).toBeLessThanOrEqual(has?.nanoCpus ?? 0);
          expect(sum((t) => t.spec.resources?.reservations?.memoryBytes ?? 0)).toBeLessThanOrEqual(has?.memoryBytes ?? 0);
          const gpus = sum((t) => t.spec.resources?.reservations?.generic?.reduce((a, g) => a + ('discrete' in g ? g.discrete : 1), 0) ?? 0);
          const nodeGpus = has?.generic?.reduce((a, g) => a + ('discrete' in g ? g.discrete : 1), 0) ?? 0;
          expect(gpus).toBeLessThanOrEqual(nodeGpus);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('never uses a host port twice on one node', () => {
    fc.assert(
      fc.property(world, (w) => {
        const c = run(w);
        for (const tasks of byNode(holding(c.state)).values()) {
          const ports = tasks.flatMap((t) => taskHostPorts(t, c.state));
          expect(new Set(ports).size).toBe(ports.length);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('never puts more of a service on a node than its max replicas', () => {
    fc.assert(
      fc.property(world, (w) => {
        const c = run(w);
        for (const tasks of byNode(holding(c.state).filter((t) => t.desiredState <= TaskState.COMPLETE)).values()) {
          const perService = new Map<string, number>();
          for (const t of tasks) perService.set(t.serviceId, (perService.get(t.serviceId) ?? 0) + 1);
          for (const [serviceId, count] of perService) {
            const max = c.state.services.get(serviceId)?.spec.task.placement?.maxReplicas ?? 0;
            if (max > 0) expect(count).toBeLessThanOrEqual(max);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('spreads an unconstrained service over identical nodes with per-node counts at most one apart', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(11), fc.integer({ min: 1, max: 5 })), { maxLength: 4 }),
        (nodeCount, batches, others) => {
          const c = scheduler().given(nodes('n', nodeCount), service('web'), service('other'));
          // Other tasks already on some nodes change only the tie-breaks.
          for (const [k, count] of others) c.given(pending('other', count, { nodeId: `n${(k % nodeCount) + 1}` }));
          whenScheduled(c);
          for (const size of batches) {
            c.given(pending('web', size));
            whenScheduled(c);
          }
          const counts = Array.from({ length: nodeCount }, (_, i) => holding(c.state).filter((t) => t.serviceId === 'web' && t.nodeId === `n${i + 1}`).length);
          expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
          expect(counts.reduce((a, b) => a + b)).toBe(batches.reduce((a, b) => a + b));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps from the events the same view a rebuild from the state gives', () => {
    fc.assert(
      fc.property(world, (w) => {
        const c = run(w);
        const fresh = new SchedulerCore();
        fresh.reconcileAll(c.state);
        for (const node of c.core.view.nodes.values()) {
          const rebuilt = fresh.view.nodes.get(node.id);
          expect(rebuilt?.nanoCpus).toBe(node.nanoCpus);
          expect(rebuilt?.memoryBytes).toBe(node.memoryBytes);
          expect(rebuilt?.activeTasks).toBe(node.activeTasks);
          expect([...(rebuilt?.usedHostPorts.keys() ?? [])].sort()).toEqual([...node.usedHostPorts.keys()].sort());
        }
      }),
      { numRuns: 100 },
    );
  });
});
