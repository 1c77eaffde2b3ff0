import fc from 'fast-check';
import { TaskState } from '@shoal/contracts';
import type { PortConfig } from '@shoal/contracts';
import { node, nodeSpec, nodes, pending, reported, service, specification, whenScheduled } from '@shoal/testing';
import type { Specification } from '@shoal/testing';
import { SchedulerCore } from './scheduler-core';
import { TASK_COST, TICK_BUDGET, TickBudget } from './tick-budget';

const scheduler = (tickBudget?: number) => specification({ core: () => new SchedulerCore(tickBudget === undefined ? {} : { tickBudget }) });

/** Where every task is, and what it says: the outcome two runs are compared by. */
const placements = (c: Specification<SchedulerCore>): Map<string, string> =>
  new Map([...c.state.tasks.values()].map((t) => [t.id, `${t.status.state} ${t.nodeId ?? '-'} ${t.status.err ?? ''}`]));

/** Ticks until the queue is empty (at least once); how many tasks each tick assigned. */
const drain = (c: Specification<SchedulerCore>): number[] => {
  const perTick: number[] = [];
  do {
    if (perTick.length > 1_000) throw new Error('the queue never emptied');
    perTick.push(whenScheduled(c).assigned.size);
  } while (c.core.wakeAt(c.state) !== undefined);
  return perTick;
};

describe('the tick budget', () => {
  it('spends while there is enough left, and always the first spending of a tick', () => {
    const budget = new TickBudget(100);
    expect(budget.spend(150)).toBe(true);
    expect(budget.spend(1)).toBe(false);
    const other = new TickBudget(100);
    expect([other.spend(60), other.spend(40), other.spend(1)]).toEqual([true, true, false]);
  });

  it('lets a default tick place six batches of 1,000 tasks at 5,000 nodes, and not seven', () => {
    expect(6 * (5_000 + 1_000 * TASK_COST)).toBeLessThanOrEqual(TICK_BUDGET);
    expect(7 * (5_000 + 1_000 * TASK_COST)).toBeGreaterThan(TICK_BUDGET);
  });
});

describe('a backlog larger than one tick', () => {
  it('decides the head of the queue within the budget, asks to decide again at once, and places the rest on the next ticks', () => {
    // 4 nodes: a batch's tree costs 4, each task TASK_COST; room for the tree and 5 tasks.
    const c = scheduler(4 + 5 * TASK_COST).given(nodes('n', 4), service('web'));
    c.given(pending('web', 12));
    const created = c.lastCreated;
    const first = whenScheduled(c);
    expect([...first.assigned.keys()]).toEqual(created.slice(0, 5));
    expect(c.core.view.queue.size).toBe(7);
    expect(c.core.wakeAt(c.state)).toBe(0);
    expect(c.state.tasks.get(created[5] as string)?.status.state).toBe(TaskState.PENDING);
    expect(drain(c)).toEqual([5, 2]);
    expect(c.core.wakeAt(c.state)).toBeUndefined();
    expect([...whenScheduled(c).perNode('web').values()]).toEqual([3, 3, 3, 3]);
  });

  it('keeps for the rest of a batch cut short only as many nodes as it has tasks, and builds the tree again when more are queued', () => {
    // 10 nodes: room for the tree and one task a tick; the batch's first 4 tasks leave it a tree of 4 nodes.
    const c = scheduler(10 + TASK_COST).given(nodes('n', 10), service('web'));
    c.given(pending('web', 4));
    expect(whenScheduled(c).assigned.size).toBe(1);
    // Six more of the same batch: the kept tree has room for 3, so it is not gone on with.
    c.given(pending('web', 6));
    drain(c);
    expect([...whenScheduled(c).perNode('web').values()]).toEqual(Array.from({ length: 10 }, () => 1));
  });

  it('counts a new batch\'s tree against the budget: a second service waits for the next tick', () => {
    const c = scheduler(4 + 3 * TASK_COST).given(nodes('n', 4), service('a'), service('b'));
    c.given(pending('a', 2), pending('b', 2));
    const first = whenScheduled(c);
    expect([...first.assigned.keys()].map((id) => id.split('.')[0])).toEqual(['a', 'a']);
    expect(whenScheduled(c).assigned.size).toBe(2);
    expect(c.core.wakeAt(c.state)).toBeUndefined();
  });

  describe('the tree of a batch cut short, kept for its rest', () => {
    // 12 nodes: a tree costs 12, so a tick that builds one places 5 tasks, one that goes on with it 7.
    const BUDGET = 12 + 5 * TASK_COST;
    const cluster = () => {
      const c = scheduler(BUDGET).given(nodes('n', 12), service('web'));
      c.given(pending('web', 24));
      return c;
    };

    it('goes on with it while nothing changed: the next slices look at no node, and land where one decision puts them', () => {
      const c = cluster();
      expect(drain(c)).toEqual([5, 7, 7, 5]);
      const whole = scheduler(Number.POSITIVE_INFINITY).given(nodes('n', 12), service('web'));
      whole.given(pending('web', 24));
      drain(whole);
      expect(placements(c)).toEqual(placements(whole));
    });

    it('builds it again when a node changed between two slices', () => {
      const c = cluster();
      // Equal nodes in the order of their ids: n1, n10, n11, n12, n2, n3, …
      expect([...whenScheduled(c).assigned.values()]).toEqual(['n1', 'n10', 'n11', 'n12', 'n2']);
      // n3 was next in line: drained, it takes nothing more; the slice pays for a new tree.
      c.given(nodeSpec('n3', { labels: {}, role: 'worker', availability: 'drain' }));
      expect([...whenScheduled(c).assigned.values()]).toEqual(['n4', 'n5', 'n6', 'n7', 'n8']);
    });

    it('builds it again when a task left a node between two slices', () => {
      const c = cluster();
      const first = whenScheduled(c);
      const [id, nodeId] = [...first.assigned.entries()][0] as [string, string];
      c.given(reported(nodeId, id, TaskState.COMPLETE));
      const next = whenScheduled(c);
      expect(next.assigned.size).toBe(5);
      expect([...next.assigned.values()][0]).toBe(nodeId);
    });

    it('goes on with it at another time only while no candidate has failed tasks of the service lately', () => {
      const withFailure = () => {
        const c = scheduler(BUDGET).given(nodes('n', 12), service('web'));
        c.given(pending('web', 1));
        expect([...whenScheduled(c).assigned.values()]).toEqual(['n1']);
        c.given(reported('n1', c.lastCreated[0] as string, TaskState.FAILED));
        c.given(pending('web', 24));
        return c;
      };
      const at = new Date(Date.parse(withFailure().b.now()) + 60_000);
      const same = withFailure();
      expect([whenScheduled(same, at).assigned.size, whenScheduled(same, at).assigned.size]).toEqual([5, 7]);
      const later = withFailure();
      expect([whenScheduled(later, at).assigned.size, whenScheduled(later, new Date(at.getTime() + 1)).assigned.size]).toEqual([5, 5]);
      // Without failures, time does not order the nodes: the tree goes on.
      const c = cluster();
      expect([whenScheduled(c, at).assigned.size, whenScheduled(c, new Date(at.getTime() + 1)).assigned.size]).toEqual([5, 7]);
    });
  });

  it('places at least one task a tick however small the budget', () => {
    const c = scheduler(1).given(nodes('n', 3), service('web'));
    c.given(pending('web', 4));
    expect(drain(c)).toEqual([1, 1, 1, 1]);
    expect([...whenScheduled(c).perNode('web').values()].sort()).toEqual([1, 1, 2]);
  });

  it('with the whole queue in one decision, as without a budget, places everything at once', () => {
    const c = scheduler(Number.POSITIVE_INFINITY).given(nodes('n', 4), service('a'), service('b'));
    c.given(pending('a', 50), pending('b', 50));
    expect(drain(c)).toEqual([100]);
  });

  const serviceArb = fc.record({
    cpus: fc.constantFrom(0, 0.5e9, 1e9, 2e9),
    memory: fc.constantFrom(0, 2 ** 29, 2 ** 30),
    port: fc.constantFrom(undefined, 80, 8080),
    maxReplicas: fc.constantFrom(0, 0, 1, 3),
    count: fc.integer({ min: 1, max: 15 }),
  });
  const nodeArb = fc.record({ cpus: fc.integer({ min: 0, max: 6 }), memoryGiB: fc.integer({ min: 0, max: 4 }), ready: fc.boolean() });
  const world = fc.record({
    nodes: fc.array(nodeArb, { minLength: 1, maxLength: 8 }),
    services: fc.array(serviceArb, { minLength: 1, maxLength: 5 }),
    rounds: fc.integer({ min: 1, max: 3 }),
    /** 0: no task ends between rounds; else every n-th task on a node does. */
    endEvery: fc.constantFrom(0, 2, 3, 5),
    budget: fc.integer({ min: 1, max: 120 }),
  });
  type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

  /** The world scheduled in rounds, each drained, some tasks ending between them. */
  const run = (w: World, tickBudget: number): { c: Specification<SchedulerCore>; ticks: number[] } => {
    const c = scheduler(tickBudget);
    w.nodes.forEach((n, i) =>
      c.given(node(`n${i}`, { cpus: n.cpus, memoryBytes: n.memoryGiB * 2 ** 30, ...(n.ready || i === 0 ? {} : { state: 'down' as const }) })),
    );
    w.services.forEach((s, i) => {
      const ports: PortConfig[] | undefined = s.port ? [{ protocol: 'tcp', targetPort: 80, publishedPort: s.port, publishMode: 'host' }] : undefined;
      c.given(service(`s${i}`, { resources: { reservations: { nanoCpus: s.cpus, memoryBytes: s.memory } }, placement: { maxReplicas: s.maxReplicas } }, undefined, ports));
    });
    const ticks: number[] = [];
    for (let round = 0; round < w.rounds; round++) {
      w.services.forEach((s, i) => c.given(pending(`s${i}`, s.count)));
      ticks.push(...drain(c));
      if (w.endEvery === 0) continue;
      [...c.state.tasks.values()]
        .filter((t) => t.nodeId !== undefined && t.status.state === TaskState.ASSIGNED)
        .forEach((t, k) => {
          if (k % w.endEvery === 0) c.given(reported(t.nodeId as string, t.id, TaskState.COMPLETE));
        });
    }
    ticks.push(...drain(c));
    return { c, ticks };
  };

  /** No tick places more than the budget allows: a tick that goes on with a kept tree looks at no node. */
  const withinBudget = (w: World, ticks: readonly number[]): void => {
    const most = Math.max(1, Math.floor(w.budget / TASK_COST));
    for (const n of ticks) expect(n).toBeLessThanOrEqual(most);
  };

  it('ends, whatever the budget, with every task where one decision of the whole queue puts it, saying the same', () => {
    fc.assert(
      fc.property(world, (w0) => {
        // Nothing ends, so nothing waiting is tried again: the queue reaches each decision in
        // the order the tasks were created, in both runs.
        const w = { ...w0, endEvery: 0 };
        const capped = run(w, w.budget);
        const whole = run(w, Number.POSITIVE_INFINITY);
        expect(placements(capped.c)).toEqual(placements(whole.c));
        expect(whole.ticks.filter((n) => n > 0).length).toBeLessThanOrEqual(w.rounds);
        withinBudget(w, capped.ticks);
      }),
      { numRuns: 200 },
    );
  });

  it('with tasks ending and waiting ones tried again, keeps to every node\'s resources, host ports and max replicas', () => {
    // Tried again, a waiting task joins the end of the queue: a decision of the whole queue
    // batches it with its service's new tasks, a budgeted tick when it reaches it.
    fc.assert(
      fc.property(world, (w) => {
        const { c, ticks } = run(w, w.budget);
        withinBudget(w, ticks);
        const holding = [...c.state.tasks.values()].filter((t) => t.nodeId !== undefined && t.status.state === TaskState.ASSIGNED);
        for (const [i, n] of w.nodes.entries()) {
          const here = holding.filter((t) => t.nodeId === `n${i}`);
          const sum = (f: (s: World['services'][number]) => number) => here.reduce((acc, t) => acc + f(w.services[Number(t.serviceId.slice(1))] as World['services'][number]), 0);
          expect(sum((s) => s.cpus)).toBeLessThanOrEqual(n.cpus * 1e9);
          expect(sum((s) => s.memory)).toBeLessThanOrEqual(n.memoryGiB * 2 ** 30);
          const ports = here.map((t) => w.services[Number(t.serviceId.slice(1))]?.port).filter((p) => p !== undefined);
          expect(new Set(ports).size).toBe(ports.length);
          w.services.forEach((s, k) => {
            if (s.maxReplicas > 0) expect(here.filter((t) => t.serviceId === `s${k}`).length).toBeLessThanOrEqual(s.maxReplicas);
          });
        }
        // Every task left PENDING says why.
        for (const t of c.state.tasks.values()) if (t.status.state === TaskState.PENDING) expect(t.status.err).toMatch(/^no suitable node/);
      }),
      { numRuns: 200 },
    );
  });

  it('spreads over a label as evenly when the batch is placed over several ticks', () => {
    // Split by the budget, a batch's ties between branches may break another way than in
    // one decision; the counts still come out at most one apart, zone by zone and node by node.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 100 }),
        (zones, perZone, batches, budget) => {
          const c = scheduler(budget);
          for (let z = 0; z < zones; z++) c.given(nodes(`z${z}-n`, perZone, { labels: { zone: `z${z}` } }));
          c.given(service('web', { placement: { preferences: [{ spread: 'node.labels.zone' }] } }));
          for (const size of batches) {
            c.given(pending('web', size));
            drain(c);
          }
          const perNode = whenScheduled(c).perNode('web');
          const countsIn = (z: number): number[] => Array.from({ length: perZone }, (_, i) => perNode.get(`z${z}-n${i + 1}`) ?? 0);
          const zoneCounts = Array.from({ length: zones }, (_, z) => countsIn(z).reduce((a, b) => a + b));
          expect(Math.max(...zoneCounts) - Math.min(...zoneCounts)).toBeLessThanOrEqual(1);
          expect(zoneCounts.reduce((a, b) => a + b)).toBe(batches.reduce((a, b) => a + b));
          for (let z = 0; z < zones; z++) expect(Math.max(...countsIn(z)) - Math.min(...countsIn(z))).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 150 },
    );
  });
});
