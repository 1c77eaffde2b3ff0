import fc from 'fast-check';
import { TaskState } from '@shoal/contracts';
import type { Node } from '../state';
import { node, nodes, nodeSpec, pending, reported, service, specification, whenScheduled } from '@shoal/testing';
import type { NodeInfo } from './node-info';
import { NodeSet } from './node-set';
import { CountedMinHeap } from './counted-heap';
import { MinHeap } from './node-heap';
import { SchedulerCore, nodeOrder } from './scheduler-core';

const scheduler = () => specification({ core: () => new SchedulerCore() });
const drain = (id: string) => nodeSpec(id, { labels: {}, role: 'worker', availability: 'drain' });

describe('the nodes a batch looks at (candidates kept per filter key)', () => {
  it('are looked at again when a node changes after they were kept: a drained node takes nothing', () => {
    const c = scheduler().given(nodes('n', 3), service('a'), service('b'));
    c.given(pending('a', 1));
    expect([...whenScheduled(c).assigned.values()]).toEqual(['n1']);
    // Without the change dropping what was kept, b would go to n2: it has no task yet.
    c.given(drain('n2'), drain('n3'), pending('b', 1));
    expect([...whenScheduled(c).assigned.values()]).toEqual(['n1']);
  });

  it('take a node that registers after they were kept', () => {
    const c = scheduler().given(nodes('n', 2), service('a'), service('b', {}, { kind: 'replicated', replicas: 2 }));
    c.given(pending('a', 1));
    whenScheduled(c);
    c.given(node('m1'), pending('b', 2));
    expect(new Set(whenScheduled(c).assigned.values())).toEqual(new Set(['m1', 'n2']));
  });

  it('are not shared by tasks whose constraints differ, and are by tasks whose constraints are the same', () => {
    const east = { placement: { constraints: ['node.labels.zone==east'] } };
    const c = scheduler().given(
      node('e1', { labels: { zone: 'east' } }),
      node('w1', { labels: { zone: 'west' } }),
      node('w2', { labels: { zone: 'west' } }),
      service('east1', east),
      service('east2', east),
      service('any', {}, { kind: 'replicated', replicas: 3 }),
    );
    c.given(pending('east1', 1), pending('east2', 1), pending('any', 3));
    const out = whenScheduled(c);
    expect(out.perNode('east1')).toEqual(new Map([['e1', 1]]));
    expect(out.perNode('east2')).toEqual(new Map([['e1', 1]]));
    expect(out.perNode('any')).toEqual(new Map([['e1', 1], ['w1', 1], ['w2', 1]]));
    expect(out.why.get(c.lastCreated[0] as string)).toMatch(/; 3 of 3 nodes passed$/);
  });

  it('tell apart constraint lists whose expressions would read the same run together', () => {
    const c = scheduler().given(
      node('n1', { labels: { a: 'x', b: 'y' } }),
      service('one', { placement: { constraints: ['node.labels.a==x\nnode.labels.b==y'] } }),
      service('two', { placement: { constraints: ['node.labels.a==x', 'node.labels.b==y'] } }),
    );
    c.given(pending('one', 1), pending('two', 1));
    const out = whenScheduled(c);
    expect(out.perNode('two')).toEqual(new Map([['n1', 1]]));
    expect(out.perNode('one').size).toBe(0);
  });

  it('still count the nodes the filters that vary refuse: the why says how many passed', () => {
    const c = scheduler().given(node('big', { cpus: 8 }), node('small', { cpus: 1 }), service('ml', { resources: { reservations: { nanoCpus: 2e9 } } }));
    c.given(pending('ml', 1));
    const out = whenScheduled(c);
    expect([...out.assigned.values()]).toEqual(['big']);
    expect([...out.why.values()][0]).toBe('node has 1 task of ml (1 in all); 1 of 2 nodes passed');
  });

  it('place one-task services one a node, fewest tasks first, then by id', () => {
    const c = scheduler().given(nodes('n', 3));
    for (let i = 1; i <= 5; i++) c.given(service(`s${i}`), pending(`s${i}`, 1));
    const out = whenScheduled(c);
    expect([1, 2, 3, 4, 5].map((i) => [...out.perNode(`s${i}`).keys()][0])).toEqual(['n1', 'n2', 'n3', 'n1', 'n2']);
  });

  it('keep a faulty node last for a one-task batch, as the full order does', () => {
    const c = scheduler().given(nodes('n', 2), service('web'));
    c.given(pending('web', 1, { nodeId: 'n2' }));
    whenScheduled(c);
    for (let i = 0; i < 5; i++) {
      c.given(pending('web', 1));
      const id = c.lastCreated[0] as string;
      expect([...whenScheduled(c).assigned.values()]).toEqual(['n1']);
      c.given(reported('n1', id, TaskState.FAILED));
    }
    c.given(pending('web', 1));
    expect([...whenScheduled(c).assigned.values()]).toEqual(['n2']);
  });
});

const aNode = (id: string): Node =>
  ({
    id,
    role: 'worker',
    spec: { labels: {}, role: 'worker', availability: 'active' },
    status: { state: 'ready' },
    description: { hostname: id, platform: { os: 'linux', architecture: 'x86_64' }, resources: { nanoCpus: 4e9, memoryBytes: 2 ** 33 } },
  }) as unknown as Node;

const counting = (serviceId: string) =>
  ({ task: { id: `${serviceId}-${Math.random()}`, serviceId }, demand: { nanoCpus: 0, memoryBytes: 0, generic: [], hostPorts: [], plugins: [] } }) as never;

describe('the node set', () => {
  it("keeps each service's active tasks over every node, and takes a removed node's out", () => {
    const set = new NodeSet();
    set.sync('a', aNode('a'));
    set.sync('b', aNode('b'));
    set.get('a')?.addTask(counting('web'), true);
    set.get('b')?.addTask(counting('web'), true);
    set.get('b')?.addTask(counting('db'), true);
    set.get('b')?.addTask(counting('db'), false);
    expect([set.activeOf('web'), set.activeOf('db'), set.activeOf('none')]).toEqual([2, 1, 0]);
    set.sync('b', undefined);
    expect([set.activeOf('web'), set.activeOf('db')]).toEqual([1, 0]);
    set.clear();
    expect(set.activeOf('web')).toBe(0);
  });

  it('counts the nodes with a failure, until they leave', () => {
    const set = new NodeSet();
    set.sync('a', aNode('a'));
    set.sync('b', aNode('b'));
    set.get('a')?.taskFailed('web', 1, 1_000);
    set.get('a')?.taskFailed('web', 1, 2_000);
    expect(set.failingNodes).toBe(1);
    set.sync('a', undefined);
    expect(set.failingNodes).toBe(0);
  });

  it('ranks nodes in the order of their ids, again once nodes came or went and a second has passed', () => {
    const set = new NodeSet();
    for (const id of ['c', 'a', 'b']) set.sync(id, aNode(id));
    set.rankById(10_000);
    expect(set.ranked).toBe(true);
    expect(['a', 'b', 'c'].map((id) => set.get(id)?.rank)).toEqual([0, 1, 2]);
    set.sync('a2', aNode('a2'));
    expect(set.ranked).toBe(false);
    set.rankById(10_500);
    expect(set.ranked).toBe(false);
    set.rankById(11_000);
    expect(['a', 'a2', 'b', 'c'].map((id) => set.get(id)?.rank)).toEqual([0, 1, 2, 3]);
    set.sync('b', aNode('b'));
    expect(set.ranked).toBe(true);
  });
});

describe('the batch order with hints', () => {
  const shape = fc.array(
    fc.record({
      id: fc.stringMatching(/^[a-e]{1,3}$/),
      active: fc.nat(3),
      ofService: fc.nat(2),
      failures: fc.nat(6),
    }),
    { minLength: 1, maxLength: 12 },
  );

  it('sorts exactly as the order without them, wherever the hints hold', () => {
    fc.assert(
      fc.property(shape, fc.boolean(), (specs, ranked) => {
        const set = new NodeSet();
        const unique = [...new Map(specs.map((s) => [s.id, s])).values()];
        for (const s of unique) {
          set.sync(s.id, aNode(s.id));
          const info = set.get(s.id) as NodeInfo;
          for (let i = 0; i < s.active; i++) info.addTask(counting('other'), true);
          for (let i = 0; i < s.ofService; i++) info.addTask(counting('web'), true);
          for (let i = 0; i < s.failures; i++) info.taskFailed('web', 1, 1_000 + i);
        }
        if (ranked) set.rankById(0);
        const now = 60_000;
        const infos = [...set.values()];
        const plain = [...infos].sort(nodeOrder('web', 1, now)).map((n) => n.id);
        const hinted = [...infos]
          .sort(nodeOrder('web', 1, now, { faultless: set.failingNodes === 0, ranked: set.ranked, unplaced: set.activeOf('web') === 0 }))
          .map((n) => n.id);
        expect(hinted).toEqual(plain);
      }),
    );
  });
});

describe('the counted placing heap', () => {
  const shape = fc.record({
    nodes: fc.array(fc.record({ active: fc.nat(4), ofService: fc.nat(3) }), { minLength: 1, maxLength: 16 }),
    placements: fc.array(fc.boolean(), { maxLength: 60 }),
    ranked: fc.boolean(),
  });

  /** A node set as `nodes` says, ids in an order of their own. */
  const nodeSet = (nodes: readonly { active: number; ofService: number }[]) => {
    const set = new NodeSet();
    nodes.forEach((spec, i) => {
      const id = `n${(i * 7) % 17}-${i}`;
      set.sync(id, aNode(id));
      const info = set.get(id) as NodeInfo;
      for (let k = 0; k < spec.active; k++) info.addTask(counting('other'), true);
      for (let k = 0; k < spec.ofService; k++) info.addTask(counting('web'), true);
    });
    return set;
  };

  it('places where the full order would, node by node, as tasks land and nodes fill up', () => {
    fc.assert(
      fc.property(shape, ({ nodes, placements, ranked }) => {
        const run = (counted: boolean): string[] => {
          const set = nodeSet(nodes);
          if (ranked) set.rankById(0);
          const compare = nodeOrder('web', 1, 0, { faultless: true, ranked: set.ranked });
          const sorted = [...set.values()].sort(compare);
          const heap = counted ? new CountedMinHeap(sorted, 'web', (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) : new MinHeap(sorted, compare);
          const chosen: string[] = [];
          for (const more of placements) {
            const node = heap.top;
            if (!node) break;
            chosen.push(node.id);
            node.addTask(counting('web'), true);
            if (more) heap.topChanged();
            else heap.popTop();
          }
          return chosen;
        };
        expect(run(true)).toEqual(run(false));
      }),
    );
  });
});
